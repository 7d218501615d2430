#!/usr/bin/env bash
# Every test, as the README's test command: the Rust tests with the columnar and serve
# features (unit, integration, properties; the server's tests start it on free loopback
# ports), the refusal of the columnar formats and of `serve` by a build without them (a
# debug build, so as not to link a second optimised binary), then Chromium from Debian's
# packages (scripts/browser.sh, once) and the Python tests
# (scripts/pytest.sh: the `grundy` module, built into a virtual environment, and pyarrow
# reading the columnar files of the release binary the first step built). Extra arguments go
# to each cargo command.
# Usage: scripts/test.sh [CARGO ARGS]
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo test --release --features columnar,serve"
cargo test --release --features columnar,serve "$@"
echo "== without the columnar and serve features: their outputs and serve are refused"
cargo test "$@" --test integration -- columnar:: errors::serve_without_the_feature
echo "== the Python tests: the grundy module, the columnar files, the page in Chromium"
scripts/browser.sh
scripts/pytest.sh
