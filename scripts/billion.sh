#!/usr/bin/env bash
# A billion edges (issue 27): `grundy solve` on the 100M-node / 1B-edge / 1M-query file, from
# the file and through a pipe, with wall time and peak memory (GNU time's maximum resident set
# size) per run and per edge, answers compared between the two. With a second binary, the same
# runs of it too (a baseline: the answers must be the same bytes). Not in CI: the file is
# 9.2 GB (generated once under target/bench, about a minute) and each run takes about a minute.
#
# With --edges32, instead: one case of 2^32 + 1,000 edges (44M nodes), written by `grundy
# generate` straight into `grundy solve -` (no 40 GB file), with solve's time and peak. It
# needs about 18 GB of memory and a few minutes.
#
# With --scaling, instead: the issue's "10x the edges in at most 12x the time": `grundy solve`
# of this file against that of the 10M/100M one (`generate -n 10000000 --edges 100000000 -q
# 1000000 --seed 3`), then the same of the two-thread C peer (scripts/peer2.c), each in
# interleaved pairs (scripts/pairs.sh, PAIRS pairs, default 3; a pair of the peer takes about
# 50 s and 14 GB), with both answers compared. The files should be in the page cache alike
# (both read cold once by grundy, say, so that both are held in 2 MiB pieces).
#
# Usage: scripts/billion.sh [BASELINE_BINARY]
#        scripts/billion.sh --edges32
#        scripts/billion.sh --scaling [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
if [ "${1:-}" = --edges32 ]; then
  bin=$(realpath target/release/grundy)
  edges=$(( (1 << 32) + 1000 ))
  echo "| run | wall (s) | peak (KB) | peak per edge (B) |"
  echo "| --- | ---: | ---: | ---: |"
  line=$( { "$bin" generate -n 44000000 --edges "$edges" -q 1000 --seed 7 --quiet \
    | /usr/bin/time -f "%e %M" "$bin" solve - > target/e32.out; } 2>&1 | tail -1)
  awk -v e="$edges" -v t="${line% *}" -v k="${line#* }" \
    'BEGIN {printf "| generate -n 44000000 --edges %.0f \\| solve - | %.1f | %d | %.2f |\n", e, t, k, k * 1024 / e}'
  echo "answers: $(wc -l < target/e32.out) lines, $(grep -c WIN target/e32.out) WIN"
  exit 0
fi
if [ "${1:-}" = --scaling ]; then
  bin=$(realpath target/release/grundy)
  dir=target/bench
  mkdir -p "$dir"
  b1=$dir/b1.txt m10=$dir/m10.txt
  [ -s "$b1" ] || "$bin" generate -n 100000000 --avg-degree 10 -q 1000000 --seed 5 -o "$b1"
  [ -s "$m10" ] || "$bin" generate -n 10000000 --edges 100000000 -q 1000000 --seed 3 -o "$m10"
  cc -O2 -march=native -fopenmp -o "$dir/peer2" scripts/peer2.c
  peer="env OMP_NUM_THREADS=2 $dir/peer2"
  for f in "$b1" "$m10"; do
    cmp -s <("$bin" solve "$f") <($peer "$f") || { echo "error: $f: the peer's answers differ" >&2; exit 1; }
  done
  echo "## grundy solve: 1B edges (A) against 100M (B)"
  scripts/pairs.sh -n "${2:-3}" "$bin solve $b1" "$bin solve $m10"
  echo "## the two-thread peer: 1B edges (A) against 100M (B)"
  scripts/pairs.sh -n "${2:-3}" "$peer $b1" "$peer $m10"
  exit 0
fi
bins=("$(realpath target/release/grundy)")
[ $# -ge 1 ] && bins+=("$(realpath "$1")")
dir=target/bench
mkdir -p "$dir"
file=$dir/b1.txt
edges=1000000000
[ -s "$file" ] || "${bins[0]}" generate -n 100000000 --avg-degree 10 -q 1000000 --seed 5 -o "$file"
cat "$file" > /dev/null   # warm: the first run should not read the disk

run() { # label, output file, command...
  local label=$1 out=$2
  shift 2
  local line
  line=$( { /usr/bin/time -f "%e %M" "$@" > "$out"; } 2>&1 | tail -1)
  awk -v l="$label" -v e="$edges" -v t="${line% *}" -v k="${line#* }" \
    'BEGIN {printf "| %s | %.1f | %d | %.1f |\n", l, t, k, k * 1024 / e}'
}

echo "| run | wall (s) | peak (KB) | peak per edge (B) |"
echo "| --- | ---: | ---: | ---: |"
for bin in "${bins[@]}"; do
  run "$bin solve FILE" "$dir/b1-file.out" "$bin" solve "$file"
  run "cat FILE \\| $bin solve -" "$dir/b1-pipe.out" sh -c "cat '$file' | '$bin' solve -"
  cmp -s "$dir/b1-file.out" "$dir/b1-pipe.out" || { echo "error: $bin: the pipe's answers differ" >&2; exit 1; }
  if [ -s "$dir/b1-first.out" ]; then
    cmp -s "$dir/b1-first.out" "$dir/b1-file.out" || { echo "error: $bin: answers differ from ${bins[0]}'s" >&2; exit 1; }
  else
    mv "$dir/b1-file.out" "$dir/b1-first.out"
  fi
done
echo "answers: the same bytes in every run"
rm -f "$dir/b1-first.out" "$dir/b1-file.out" "$dir/b1-pipe.out"
