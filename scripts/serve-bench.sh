#!/usr/bin/env bash
# The load test of `grundy serve` (issue 30), for BENCHMARKS.md's "The server": the
# 10M-node / 100M-edge game of scripts/bench.sh indexed, served on loopback, and
# `GET /v1/position` asked for random nodes by the std-only client in benches/load.rs at 1 and
# 64 keep-alive connections (requests per second, p50 / p99 / max latency, non-200
# responses), with the server's resident memory after a warm-up and after the load; then a
# screenshot of the page (the browser test, tests/py/test_page.py) into target/bench/page.png.
# Usage: scripts/serve-bench.sh [SECONDS per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
cargo build --release --quiet --features serve
cargo build --release --quiet -p grundy-benches --bin load
bin=target/release/grundy
load=target/release/load
dir=target/bench
mkdir -p "$dir"
[ -s "$dir/m10.txt" ] || $bin generate -n 10000000 --edges 100000000 -q 1000000 --seed 3 \
  -o "$dir/m10.txt" --quiet
[ -s "$dir/m10.grundy" ] || $bin index "$dir/m10.txt" -o "$dir/m10.grundy" --quiet
$bin serve "$dir/m10.grundy" --listen 127.0.0.1:0 2>"$dir/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
until grep -q 'on http://' "$dir/serve.err"; do sleep 0.2; done
address=$(grep -o '127\.0\.0\.1:[0-9]*' "$dir/serve.err" | head -1)
status() { awk -v key="$1" '$1 == key":" { print $2 }' "/proc/$pid/status"; }
echo "grundy serve $dir/m10.grundy ($(du -m "$dir/m10.grundy" | cut -f1) MB), $(nproc) cores"
$load "$address" 10000000 64 3 >/dev/null
echo "resident after a warm-up: $(( $(status VmRSS) / 1024 )) MiB"
for connections in 1 64; do
  $load "$address" 10000000 "$connections" "$seconds"
  echo "resident: $(( $(status VmRSS) / 1024 )) MiB"
done
echo "peak resident: $(( $(status VmHWM) / 1024 )) MiB"
kill -TERM "$pid"
wait "$pid"
scripts/browser.sh
GRUNDY=$(realpath "$bin") GRUNDY_SCREENSHOT=$(realpath "$dir")/page.png \
  target/venv/bin/python -m pytest tests/py/test_page.py -q -p no:cacheprovider
echo "screenshot: $dir/page.png"
