#!/usr/bin/env bash
# `solve --loopy` against a plain single-threaded C implementation of the same labelling
# (scripts/loopy_baseline.c, built here with cc -O2), on 1M-node / 10M-edge / 1M-query files
# with 0.5 % back edges (seed 11, the issue's file; seed 9, where most of the graph reaches a
# cycle and 77 % of the answers are DRAWs); and `solve --loopy` against plain `solve` on the
# seed-11 graph made acyclic (no back edges). Medians of RUNS runs, ratios within this run;
# outputs compared byte for byte. Then the stage times of one run (`stats --loopy`, and
# `GRUNDY_TRACE=1` for the labelling stages m = 0, 1, ...).
#
# Writes the section "## Loopy games" of BENCHMARKS.md (scripts/bench.sh runs this script).
# Usage: scripts/loopy.sh [RUNS]      (default 3). Files under target/loopy (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=$(realpath target/release/grundy)
dir=target/loopy
out=BENCHMARKS.md
mkdir -p "$dir"
cargo build --release --quiet
cc -O2 -o "$dir/baseline" scripts/loopy_baseline.c
gen="-n 1000000 --edges 10000000 -q 1000000"
# shellcheck disable=SC2086
[ -s "$dir/cyclic.txt" ] || "$bin" generate $gen --seed 11 --back-edges 0.005 -o "$dir/cyclic.txt"
# shellcheck disable=SC2086
[ -s "$dir/cyclic9.txt" ] || "$bin" generate $gen --seed 9 --back-edges 0.005 -o "$dir/cyclic9.txt"
# shellcheck disable=SC2086
[ -s "$dir/acyclic.txt" ] || "$bin" generate $gen --seed 11 -o "$dir/acyclic.txt"

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
seconds() { # seconds of one run of "$@", stdout to $dir/last.out
  local t0 t1
  t0=$(date +%s.%N); "$@" > "$dir/last.out"; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}
time_of() { for _ in $(seq "$runs"); do seconds "$@"; done | median; }

same() { cmp -s "$dir/last.out" "$1" && echo yes || echo no; }
# One cyclic file: "baseline | 1 thread | same | 2 threads | same" in seconds.
cyclic() {
  local base one two s1 s2 answers="${1%.txt}.baseline"
  base=$(time_of "$dir/baseline" "$1"); cp "$dir/last.out" "$answers"
  one=$(time_of "$bin" solve --loopy --threads 1 "$1"); s1=$(same "$answers")
  two=$(time_of "$bin" solve --loopy "$1"); s2=$(same "$answers")
  echo "$base $one $s1 $two $s2"
}
read -r base one s1 two s2 < <(cyclic "$dir/cyclic.txt")
read -r base9 one9 s19 two9 s29 < <(cyclic "$dir/cyclic9.txt")
plain=$(time_of "$bin" solve "$dir/acyclic.txt"); cp "$dir/last.out" "$dir/plain.out"
loopy=$(time_of "$bin" solve --loopy "$dir/acyclic.txt"); s3=$(same "$dir/plain.out")
times=$("$bin" stats --loopy "$dir/cyclic.txt" | sed -n 's/^ *time (s) *//p')
stages=$(GRUNDY_TRACE=1 "$bin" solve --loopy "$dir/cyclic.txt" 2>&1 >/dev/null | sed -n 's/^trace: loopy //p')

{
  echo "## Loopy games (issue 12)"
  echo
  echo "Produced by \`scripts/loopy.sh $runs\` on $(date -u +%Y-%m-%d), $(nproc) cores: medians of $runs runs,"
  echo "ratios within the run. The cyclic files are"
  echo "\`generate $gen --back-edges 0.005\` with \`--seed 11\` (the issue's file) and"
  echo "\`--seed 9\` (most of the graph reaches a cycle); the acyclic one is seed 11 without back"
  echo "edges. The baseline is a plain single-threaded C implementation of the same labelling"
  echo "(\`scripts/loopy_baseline.c\`, \`cc -O2\`: one fread, CSR, stages with counters, no"
  echo "peeling); its answers and grundy's are compared byte for byte."
  echo
  echo "| run | seconds | ratio | same answers |"
  echo "| --- | ---: | ---: | --- |"
  awk -v b="$base" -v o="$one" -v t="$two" -v b9="$base9" -v o9="$one9" -v t9="$two9" \
    -v p="$plain" -v l="$loopy" -v s1="$s1" -v s2="$s2" -v s19="$s19" -v s29="$s29" -v s3="$s3" 'BEGIN {
    printf "| seed 11: C baseline (1 thread) | %.2f | 1.00 | |\n", b
    printf "| seed 11: solve --loopy --threads 1 | %.2f | %.2f x baseline | %s |\n", o, o / b, s1
    printf "| seed 11: solve --loopy (2 threads) | %.2f | %.2f x baseline | %s |\n", t, t / b, s2
    printf "| seed 9: C baseline (1 thread) | %.2f | 1.00 | |\n", b9
    printf "| seed 9: solve --loopy --threads 1 | %.2f | %.2f x baseline | %s |\n", o9, o9 / b9, s19
    printf "| seed 9: solve --loopy (2 threads) | %.2f | %.2f x baseline | %s |\n", t9, t9 / b9, s29
    printf "| acyclic: solve (2 threads) | %.2f | 1.00 | |\n", p
    printf "| acyclic: solve --loopy (2 threads) | %.2f | %.2f x solve | %s |\n", l, l / p, s3 }'
  echo
  echo "Seed 11 answers: $(awk '{c[$1]++} END {printf "%d WIN, %d LOSE, %d DRAW", c["WIN"], c["LOSE"], c["DRAW"]}' "$dir/cyclic.baseline")."
  echo "Stage times of one 2-thread run on seed 11 (\`stats --loopy\`; *order* is the search up to its"
  echo "first cycle and the peeling, *evaluate* the plain values of the peeled nodes and the labelling):"
  echo "$times."
  echo "The labelling stages (\`GRUNDY_TRACE=1\`, seconds since the stages began):"
  echo
  echo "$stages" | sed 's/^/    /'
} > "$dir/section.md"

# Replace the section in BENCHMARKS.md (or add it), keeping every other section.
replace_section 'Loopy games' "$dir/section.md" "$out"
cat "$dir/section.md"
