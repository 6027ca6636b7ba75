#!/usr/bin/env bash
# The dashboard test's browser check (scripts/dashboard-check.py): Selenium and axe-core from PyPI
# (axe-core's script comes with axe-playwright-python; its Playwright dependency is not needed), for
# Debian's chromium and chromedriver (scripts/install-deps.sh). Installed with pip when missing.
set -euo pipefail
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import selenium' 2>/dev/null; then
  "$PYTHON" -m pip install --quiet "selenium>=4.20" >&2 || "$PYTHON" -m pip install --quiet --break-system-packages "selenium>=4.20" >&2
fi
if ! "$PYTHON" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("axe_playwright_python") is None)' 2>/dev/null; then
  "$PYTHON" -m pip install --quiet --no-deps "axe-playwright-python==0.1.8" >&2 || "$PYTHON" -m pip install --quiet --no-deps --break-system-packages "axe-playwright-python==0.1.8" >&2
fi
