#!/usr/bin/env bash
# `solve --loopy` against a plain single-threaded C implementation of the same labelling
# (scripts/loopy_baseline.c, built here with cc -O2), on a 1M-node / 10M-edge / 1M-query file
# with 0.5 % back edges; and `solve --loopy` against plain `solve` on the same graph made
# acyclic (no back edges). Medians of RUNS runs, ratios within this run; outputs compared.
#
# Usage: scripts/loopy.sh [RUNS]      (default 3). Files under target/loopy (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=$(realpath target/release/grundy)
dir=target/loopy
mkdir -p "$dir"
cargo build --release --quiet
cc -O2 -o "$dir/baseline" scripts/loopy_baseline.c
gen="-n 1000000 --edges 10000000 -q 1000000 --seed 11"
# shellcheck disable=SC2086
[ -s "$dir/cyclic.txt" ] || "$bin" generate $gen --back-edges 0.005 -o "$dir/cyclic.txt"
# shellcheck disable=SC2086
[ -s "$dir/acyclic.txt" ] || "$bin" generate $gen -o "$dir/acyclic.txt"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
seconds() { # seconds of one run of "$@", stdout to $dir/last.out
  local t0 t1
  t0=$(date +%s.%N); "$@" > "$dir/last.out"; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}
time_of() { for _ in $(seq "$runs"); do seconds "$@"; done | median; }

base=$(time_of "$dir/baseline" "$dir/cyclic.txt"); cp "$dir/last.out" "$dir/baseline.out"
one=$(time_of "$bin" solve --loopy --threads 1 "$dir/cyclic.txt"); cmp -s "$dir/last.out" "$dir/baseline.out" && s1=yes || s1=no
two=$(time_of "$bin" solve --loopy "$dir/cyclic.txt"); cmp -s "$dir/last.out" "$dir/baseline.out" && s2=yes || s2=no
plain=$(time_of "$bin" solve "$dir/acyclic.txt"); cp "$dir/last.out" "$dir/plain.out"
loopy=$(time_of "$bin" solve --loopy "$dir/acyclic.txt"); cmp -s "$dir/last.out" "$dir/plain.out" && s3=yes || s3=no
stats=$(awk '{c[$1]++} END {printf "%d WIN, %d LOSE, %d DRAW", c["WIN"], c["LOSE"], c["DRAW"]}' "$dir/baseline.out")

echo "| run | seconds | ratio | same answers |"
echo "| --- | ---: | ---: | --- |"
awk -v b="$base" -v o="$one" -v t="$two" -v p="$plain" -v l="$loopy" -v s1="$s1" -v s2="$s2" -v s3="$s3" 'BEGIN {
  printf "| cyclic: C baseline (1 thread) | %.2f | 1.00 | |\n", b
  printf "| cyclic: solve --loopy --threads 1 | %.2f | %.2f x baseline | %s |\n", o, o / b, s1
  printf "| cyclic: solve --loopy (2 threads) | %.2f | %.2f x baseline | %s |\n", t, t / b, s2
  printf "| acyclic: solve (2 threads) | %.2f | 1.00 | |\n", p
  printf "| acyclic: solve --loopy (2 threads) | %.2f | %.2f x solve | %s |\n", l, l / p, s3 }'
echo
echo "Cyclic file answers: $stats."
