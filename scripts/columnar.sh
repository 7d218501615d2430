#!/usr/bin/env bash
# `grundy values` of a 10^7-node graph (10^7 rows) written as CSV, Parquet and Arrow IPC:
# the median time of RUNS interleaved runs of each (csv, parquet, arrow, csv, ...), the peak
# memory, the file sizes and their ratios to the CSV. The whole run is timed (reading,
# ordering and evaluating the graph, then writing); `stats` gives the part before writing.
#
# Writes the section "## Columnar dumps" of BENCHMARKS.md.
# Usage: scripts/columnar.sh [RUNS]     (default 5). Files under target/columnar (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=target/columnar
out=BENCHMARKS.md
mkdir -p "$dir"
cargo build --release --features columnar --quiet
bin=$(realpath target/release/grundy)
gen="-n 10000000 --edges 30000000 -q 0 --seed 7"
# shellcheck disable=SC2086
[ -s "$dir/graph.txt" ] || "$bin" generate $gen -o "$dir/graph.txt"

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# "seconds peak_KiB" of one run of "$@" (GNU time when there is one, else no peak).
measure() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" "$@" > /dev/null
    cat "$dir/time.txt"
  else
    local t0 t1
    t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a, 0}'
  fi
}
formats="csv parquet arrow"
for f in $formats; do : > "$dir/$f.times"; done
for _ in $(seq "$runs"); do
  for f in $formats; do
    measure "$bin" values "$dir/graph.txt" --quiet -o "$dir/values.$f" >> "$dir/$f.times"
  done
done
before=$("$bin" stats "$dir/graph.txt" | sed -n 's/^ *time (s) *//p')
csv_size=$(stat -c %s "$dir/values.csv")
csv_time=$(cut -d' ' -f1 "$dir/csv.times" | median)

{
  echo "## Columnar dumps (issue 26)"
  echo
  echo "Produced by \`scripts/columnar.sh $runs\` on $(date -u +%Y-%m-%d), $(nproc) cores: \`grundy values\`"
  echo "of \`generate $gen\` (10,000,000 rows), medians of $runs interleaved runs of the whole"
  echo "command, peak resident memory, and the file's size. Before writing, the run reads,"
  echo "orders and evaluates the graph ($before s, \`stats\`)."
  echo
  echo "| output | seconds | x CSV | peak MiB | size (bytes) | x CSV |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for f in $formats; do
    t=$(cut -d' ' -f1 "$dir/$f.times" | median)
    m=$(cut -d' ' -f2 "$dir/$f.times" | median)
    s=$(stat -c %s "$dir/values.$f")
    awk -v f="$f" -v t="$t" -v ct="$csv_time" -v m="$m" -v s="$s" -v cs="$csv_size" 'BEGIN {
      printf "| -o values.%s | %.2f | %.2f | %.0f | %d | %.3f |\n", f, t, t / ct, m / 1024, s, s / cs }'
  done
  echo
  echo "Parquet: zstd level 1, row groups of 2^20 rows, \`node\` delta-encoded, the other"
  echo "columns dictionary-encoded, columns encoded in parallel. Arrow IPC: uncompressed, batches"
  echo "of 2^18 rows (a reader can map it and use it in place; larger than the CSV: five"
  echo "4-byte columns against about 17 characters a row)."
} > "$dir/section.md"

replace_section 'Columnar dumps' "$dir/section.md" "$out"
cat "$dir/section.md"
