#!/usr/bin/env bash
# A/B of two grundy binaries on the same generated files, runs interleaved (A, B, A, B, ...)
# so both see the same moments of a shared, noisy machine. For each command: the median time
# of each binary, the ratio B/A, and whether their outputs are byte-identical.
#
# Usage: scripts/ab.sh OLD_BINARY NEW_BINARY [RUNS]     (default 7 runs each)
#
# Files are generated under target/ab with NEW_BINARY (never committed). Stdout of every run
# goes to a file, compared by checksum between A and B.
set -euo pipefail
cd "$(dirname "$0")/.."
a=$(realpath "$1")
b=$(realpath "$2")
runs=${3:-7}
dir=target/ab
mkdir -p "$dir"

gen() { # name, generate arguments
  [ -s "$dir/$1" ] || "$b" generate "${@:2}" -o "$dir/$1"
}
gen m1.txt -n 1000000 --edges 10000000 -q 1000000 --seed 1
gen chain.txt -n 1000000 --shape chain -q 1000000 --seed 2
gen m1-queries.txt -n 1000000 --edges 10000000 --seed 1 --queries-only -q 1000000
[ -s "$dir/cutting.txt" ] || seq 2 200 | awk '{print $1, 202 - $1}' > "$dir/cutting.txt"
[ -s "$dir/sums.txt" ] || "$b" game cutting --export "$dir/cutting.txt" -o "$dir/sums.txt"
[ -s "$dir/crosses.txt" ] || echo 100000 > "$dir/crosses.txt"

# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# seconds of one run: binary, output file, arguments
seconds() {
  local bin=$1 out=$2 t0 t1
  shift 2
  t0=$(date +%s.%N); "$bin" "$@" > "$out"; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}

commands=(
  "solve m1, 2 threads|solve $dir/m1.txt"
  "solve m1, 1 thread|--threads 1 solve $dir/m1.txt"
  "solve chain, 2 threads|solve $dir/chain.txt"
  "solve m1 --report|solve $dir/m1.txt --report /dev/stdout"
  "values m1|values $dir/m1.txt"
  "query m1|query $dir/m1.txt $dir/m1-queries.txt"
  "stats m1 (B also answers the queries)|stats $dir/m1.txt --json"
  "solve --format sums (cutting 200)|solve --format sums $dir/sums.txt"
  "game crosses 100000|game crosses $dir/crosses.txt"
)

echo "| command | A (s) | B (s) | B / A | same output |"
echo "| --- | ---: | ---: | ---: | --- |"
for entry in "${commands[@]}"; do
  name=${entry%%|*}
  read -r -a args <<< "${entry#*|}"
  ta=() tb=()
  for _ in $(seq "$runs"); do
    ta+=("$(seconds "$a" "$dir/out-a" "${args[@]}")")
    tb+=("$(seconds "$b" "$dir/out-b" "${args[@]}")")
  done
  ma=$(printf '%s\n' "${ta[@]}" | median)
  mb=$(printf '%s\n' "${tb[@]}" | median)
  if cmp -s "$dir/out-a" "$dir/out-b"; then same=yes; else same=no; fi
  awk -v n="$name" -v a="$ma" -v b="$mb" -v s="$same" \
    'BEGIN {printf "| %s | %.3f | %.3f | %.2f | %s |\n", n, a, b, b / a, s}'
done
