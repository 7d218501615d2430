#!/usr/bin/env bash
# `grundy serve` against hostile clients (issue 63, items 2, 3 and 4): 2,000 slow heads, 64
# clients that post a query and never read its answer, and 4 clients flooding it with a few
# hundred KB of zstd that answer with gigabytes of rows, all at once, on a server with its
# default limits; meanwhile a legitimate `GET /v1/position/1/N` on a new connection every
# 100 ms must be answered within 2 s, every time, and the server's peak resident memory
# (VmHWM) must stay under 512 MiB. The clients are scripts/serve-attack.py (Python 3's
# standard library). Prints the legitimate requests' median and largest latency, the peak
# memory and the attackers' counts; exits 1 if the bar is not met.
# Usage: scripts/serve-attack.sh [SECONDS, default 90]
#   GRUNDY=path/to/grundy   a release binary built with --features serve (else it is built)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-90}
if [ -z "${GRUNDY:-}" ]; then
  cargo build --release --quiet --features serve
  GRUNDY=target/release/grundy
fi
dir=target/attack
mkdir -p "$dir"
nodes=1000000
[ -s "$dir/game.txt" ] || "$GRUNDY" generate -n $nodes --avg-degree 3 -q 1000 --seed 63 \
  -o "$dir/game.txt" --quiet
[ -s "$dir/game.grundy" ] || "$GRUNDY" index "$dir/game.txt" -o "$dir/game.grundy" --quiet
# 400 million queries `1 0` (1.6 GB of text, 9 GB of rows), compressed: the issue's bomb.
if [ ! -s "$dir/bomb" ]; then
  if command -v zstd >/dev/null; then
    # `yes` ends on a broken pipe once `head` has its lines: not a failure.
    { yes '1 0' || true; } | head -n 400000000 | zstd -q -3 -c >"$dir/bomb"
  else
    python3 -c 'import gzip, sys
with gzip.GzipFile(fileobj=sys.stdout.buffer, mode="wb", compresslevel=9) as out:
    block = b"1 0\n" * 250_000
    for _ in range(1600):
        out.write(block)' >"$dir/bomb"
  fi
fi
# The attack's connections: the server raises its own limit on open files as it needs.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
"$GRUNDY" serve "$dir/game.grundy" --listen 127.0.0.1:0 2>"$dir/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
until grep -q 'on http://' "$dir/serve.err"; do
  kill -0 $pid 2>/dev/null || { cat "$dir/serve.err"; exit 1; }
  sleep 0.2
done
address=$(grep -o '127\.0\.0\.1:[0-9]*' "$dir/serve.err" | head -1)
echo "grundy serve $dir/game.grundy ($nodes nodes) on $address, $(nproc) cores, defaults:" \
  "--connections 1024 --query-slots 8 --timeout 60 --head-timeout 10 --answer-limit 1G"
status=0
python3 scripts/serve-attack.py "$address" $pid $nodes "$dir/bomb" "$seconds" || status=$?
kill -TERM $pid
wait $pid || true
exit $status
