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
# The face scenario's peer is dlib's Python binding (what the face_recognition package runs). Debian 12
# has no python3-dlib: PyPI's dlib-bin wheel goes into a virtual environment of its own in the cache,
# which sees the interpreter's packages (Pillow, scikit-learn), and becomes the bench's Python.
if ! "$PYTHON" -c 'import dlib' 2>/dev/null; then
  venv="${XDG_CACHE_HOME:-$HOME/.cache}/memora/bench-dlib"
  if ! "$venv/bin/python" -c 'import dlib, numpy' 2>/dev/null; then
    echo "Installing dlib's Python binding (dlib-bin 19.24.6) for the face scenario's peer..." >&2
    rm -rf "$venv"
    "$PYTHON" -m venv --system-site-packages "$venv" >&2 && "$venv/bin/python" -m pip install --quiet dlib-bin==19.24.6 numpy >&2 ||
      echo "Could not install dlib's Python binding: scenario 17 runs without its peer." >&2
  fi
  if "$venv/bin/python" -c 'import dlib, numpy, PIL, sklearn' 2>/dev/null; then PYTHON="$venv/bin/python"; fi
fi
# The OCR scenario's peer is RapidOCR 3.10.0's own Python pipeline (PyPI's rapidocr, with the same
# PP-OCRv6 small models Memora installs), in a virtual environment of its own in the cache.
ocr_venv="${XDG_CACHE_HOME:-$HOME/.cache}/memora/bench-ocr-3.10"
if ! "$ocr_venv/bin/python" -c 'import rapidocr' 2>/dev/null; then
  echo "Installing RapidOCR (rapidocr 3.10.0) for the OCR scenario's peer..." >&2
  rm -rf "$ocr_venv"
  "$PYTHON" -m venv "$ocr_venv" >&2 && "$ocr_venv/bin/python" -m pip install --quiet rapidocr==3.10.0 onnxruntime==1.32.0 >&2 ||
    echo "Could not install RapidOCR: scenario 21 runs without its peer." >&2
fi
export MEMORA_BENCH_OCR_PYTHON="$ocr_venv/bin/python"
# The vault scenario's peer is Debian's `age`; installed when we can, skipped otherwise.
if ! command -v age >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing age for the benchmark peer..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq age >&2 || true
fi
# The sync scenario loads the server with Debian's `wrk` (installed when we can, skipped otherwise) and
# measures PostgreSQL too when scripts/test-postgres.sh can start one: the bench gets a fresh database.
if ! command -v wrk >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing wrk for the sync scenario..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >&2 || true
fi
if [ -z "${MEMORA_BENCH_DATABASE:-}" ] && postgres=$(scripts/test-postgres.sh 2>/dev/null) && command -v psql >/dev/null 2>&1; then
  database="memora_bench_$(date +%s)_$$"
  if psql "$postgres" -qc "CREATE DATABASE $database" >/dev/null 2>&1; then
    export MEMORA_BENCH_DATABASE="${postgres%/postgres}/$database"
    trap 'psql "$postgres" -qc "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true' EXIT
  fi
fi
# The fleet scenario (23) gets a fresh database of its own: its servers share one folder, which the
# database records (a second folder on the sync scenario's database would be refused).
if [ -z "${MEMORA_BENCH_FLEET_DATABASE:-}" ] && postgres=$(scripts/test-postgres.sh 2>/dev/null) && command -v psql >/dev/null 2>&1; then
  fleet_database="memora_bench_fleet_$(date +%s)_$$"
  if psql "$postgres" -qc "CREATE DATABASE $fleet_database" >/dev/null 2>&1; then
    export MEMORA_BENCH_FLEET_DATABASE="${postgres%/postgres}/$fleet_database"
    export MEMORA_BENCH_FSYNC="$(psql "$postgres" -Atc 'SHOW fsync' 2>/dev/null || echo unknown)"
    trap 'psql "$postgres" -qc "DROP DATABASE IF EXISTS ${database:-memora_bench_none}" >/dev/null 2>&1 || true; psql "$postgres" -qc "DROP DATABASE IF EXISTS $fleet_database" >/dev/null 2>&1 || true' EXIT
  fi
fi
# The hub scenario (20) measures its dashboard pages on PostgreSQL too, in a fresh database of its own.
if [ -z "${MEMORA_BENCH_HUB_DATABASE:-}" ] && postgres=$(scripts/test-postgres.sh 2>/dev/null) && command -v psql >/dev/null 2>&1; then
  hub_database="memora_bench_hub_$(date +%s)_$$"
  if psql "$postgres" -qc "CREATE DATABASE $hub_database" >/dev/null 2>&1; then
    export MEMORA_BENCH_HUB_DATABASE="${postgres%/postgres}/$hub_database"
    trap 'for name in ${database:-} ${fleet_database:-} $hub_database; do psql "$postgres" -qc "DROP DATABASE IF EXISTS $name" >/dev/null 2>&1 || true; done' EXIT
  fi
fi
swift build -c release --product memora-bench >&2
swift build -c release --product loca-memory-probe >&2
swift build -c release --product memora >&2  # scenario 8 runs the CLI as a child process
.build/release/memora-bench --python "$PYTHON" --peer-script scripts/pillow_peer.py --ocr-python "$MEMORA_BENCH_OCR_PYTHON" "$@"
