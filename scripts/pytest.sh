#!/usr/bin/env bash
# The Python tests of the columnar outputs (tests/py): pyarrow reads the Parquet and Arrow IPC
# files grundy writes and compares them with its CSV. Makes target/venv (python3 -m venv) and
# installs pyarrow and pytest into it the first time; runs on target/release/grundy, built
# with the columnar feature (by `cargo test --release` or `cargo build --release`).
# Usage: scripts/pytest.sh [PYTEST ARGS]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/venv
if ! "$venv/bin/python" -c 'import pyarrow, pytest' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'pyarrow>=14' 'pytest>=7'
fi
bin=target/release/grundy
[ -x "$bin" ] || cargo build --release --quiet
GRUNDY=$(realpath "$bin") exec "$venv/bin/python" -m pytest tests/py -q -p no:cacheprovider "$@"
