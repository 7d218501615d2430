#!/usr/bin/env bash
# The Python tests: the `grundy` module (python/tests: against a plain-Python oracle, the
# command line, networkx and scipy) and the columnar outputs (tests/py: pyarrow reads the
# Parquet and Arrow IPC files grundy writes and compares them with its CSV; and the page of
# `grundy serve` in headless Chromium, which scripts/browser.sh installs). Makes target/venv
# (python3 -m venv) and installs maturin, numpy, networkx, scipy, pyarrow, selenium and pytest into it
# the first time; builds and installs the module from python/ (maturin, through pip; cargo
# rebuilds only what changed) on every run; the columnar tests run target/release/grundy, built
# with the columnar and serve features (by scripts/test.sh's `cargo test --release`).
# Usage: scripts/pytest.sh [PYTEST ARGS]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venv
if ! "$venv/bin/python" -c 'import pyarrow, pytest, numpy, networkx, scipy, maturin, selenium' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'pyarrow>=14' 'pytest>=7' \
    'numpy>=1.21' 'networkx>=2.8' 'scipy>=1.9' 'maturin>=1.7,<2' 'selenium>=4.11'
fi
# pip runs maturin, the build backend python/pyproject.toml names, from the venv's PATH.
PATH="$(realpath "$venv/bin"):$PATH" "$venv/bin/pip" install --quiet --disable-pip-version-check \
  --no-build-isolation --force-reinstall --no-deps ./python
bin=target/release/grundy
[ -x "$bin" ] || cargo build --release --quiet
GRUNDY=$(realpath "$bin") exec "$venv/bin/python" -m pytest python/tests tests/py -q -p no:cacheprovider "$@"
