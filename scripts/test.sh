#!/usr/bin/env bash
# Every test, as the README's test command: the Rust tests with the columnar feature (unit,
# integration, properties), the refusal of the columnar formats by a build without it (a
# debug build, so as not to link a second optimised binary), then the Python tests
# (scripts/pytest.sh: the `grundy` module, built into a virtual environment, and pyarrow
# reading the columnar files of the release binary the first step built). Extra arguments go
# to each cargo command.
# Usage: scripts/test.sh [CARGO ARGS]
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo test --release --features columnar"
cargo test --release --features columnar "$@"
echo "== without the columnar feature: its outputs are refused"
cargo test "$@" --test integration columnar::
echo "== the Python tests: the grundy module, the columnar files (scripts/pytest.sh)"
scripts/pytest.sh
