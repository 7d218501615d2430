#!/usr/bin/env bash
# Large honest runs, too slow for CI: a ~5 GB query section answered by `solve` and by
# `query` (rows to /dev/null), and the 10M-node / 100M-edge graph of scripts/bench.sh, with
# time and peak memory (GNU time). Replaces the "## Stress" section of BENCHMARKS.md.
#
# Usage: scripts/stress.sh [QUERIES]     (default 125000000 queries, about 5 GB)
set -euo pipefail
cd "$(dirname "$0")/.."
queries=${1:-125000000}
bin=target/release/grundy
dir=target/bench
mkdir -p "$dir"
cargo build --release --quiet
big=$dir/q5g.txt
[ -s "$big" ] || $bin generate -n 1000000 --edges 10000000 -q "$queries" --seed 4 -o "$big"
# The same queries alone, for `grundy query` (the graph is the first 1,000,001 lines).
[ -s "$dir/q5g-queries.txt" ] || tail -n +1000002 "$big" > "$dir/q5g-queries.txt"
[ -s "$dir/m10.txt" ] || $bin generate -n 10000000 --edges 100000000 -q 1000000 --seed 3 -o "$dir/m10.txt"
measure() { # label, command...
  local label=$1; shift
  local out
  out=$( { /usr/bin/time -f '%e %M' "$@" >/dev/null; } 2>&1 | tail -1)
  echo "| $label | $(awk -v s="${out% *}" 'BEGIN {printf "%.1f", s}') | $(( ${out#* } / 1000 )) |"
  echo "$label: $out" >&2
}
section=$(
  echo "## Stress"
  echo
  echo "Produced by \`scripts/stress.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores: wall time and peak"
  echo "resident memory (GNU time). Files: q5g.txt $(( $(stat -L -c %s "$big") / 1000000 )) MB (1M nodes, 10M edges,"
  echo "$queries queries), q5g-queries.txt $(( $(stat -L -c %s "$dir/q5g-queries.txt") / 1000000 )) MB (its queries alone),"
  echo "m10.txt $(( $(stat -L -c %s "$dir/m10.txt") / 1000000 )) MB (10M nodes, 100M edges)."
  echo
  echo "| run | seconds | peak MB |"
  echo "| --- | ---: | ---: |"
  measure "solve q5g.txt, 1 thread" $bin solve --threads 1 "$big"
  measure "solve q5g.txt, all threads" $bin solve "$big"
  measure "query q5g.txt q5g-queries.txt -o /dev/null, all threads" $bin query "$big" "$dir/q5g-queries.txt" -o /dev/null
  measure "values m10.txt -o /dev/null, all threads" $bin values "$dir/m10.txt" -o /dev/null
  measure "solve m10.txt, all threads" $bin solve "$dir/m10.txt"
)
if [ -f BENCHMARKS.md ]; then
  awk '/^## Stress/ {exit} {print}' BENCHMARKS.md > BENCHMARKS.md.tmp
else
  : > BENCHMARKS.md.tmp
fi
printf '\n%s\n' "$section" >> BENCHMARKS.md.tmp
mv BENCHMARKS.md.tmp BENCHMARKS.md
echo "$section"
