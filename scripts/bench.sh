#!/usr/bin/env bash
# Builds memora-bench in release mode and runs it. The thumbnail scenario's peer
# is Python Pillow; it is installed with pip when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
  echo "Installing Pillow for the benchmark peer..." >&2
  "$PYTHON" -m pip install --quiet Pillow >&2 || "$PYTHON" -m pip install --quiet --break-system-packages Pillow >&2
fi
# The DBSCAN scenario's peer is scikit-learn (with NumPy), installed with pip when missing.
if ! "$PYTHON" -c 'import sklearn, numpy' 2>/dev/null; then
  echo "Installing scikit-learn for the benchmark peer..." >&2
  "$PYTHON" -m pip install --quiet scikit-learn >&2 || "$PYTHON" -m pip install --quiet --break-system-packages scikit-learn >&2
fi
# The vault scenario's peer is Debian's `age`; installed when we can, skipped otherwise.
if ! command -v age >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing age for the benchmark peer..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq age >&2 || true
fi
swift build -c release --product memora-bench >&2
swift build -c release --product loca-memory-probe >&2
swift build -c release --product memora >&2  # scenario 8 runs the CLI as a child process
exec .build/release/memora-bench --python "$PYTHON" --peer-script scripts/pillow_peer.py "$@"
