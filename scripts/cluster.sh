#!/usr/bin/env bash
# The cluster against one process, on this machine: for each input, the median time of one
# process and of 2 processes (`--hosts`, started by hand so each one's peak memory is its own,
# measured by GNU time), the ratio, and whether the outputs are byte-identical.
#
# Usage: scripts/cluster.sh [RUNS] [--big]     (default 3 runs; --big adds the 10M/100M file,
#                                                about 1.2 GB, generated once under target/)
# Needs GNU time (/usr/bin/time). Files are generated under target/cluster (never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
big=${2:-}
bin=$(realpath target/release/grundy)
dir=target/cluster
mkdir -p "$dir"

gen() { # name, generate arguments
  [ -s "$dir/$1" ] || "$bin" generate "${@:2}" -o "$dir/$1"
}
gen m1.txt -n 1000000 --edges 10000000 -q 1000000 --seed 1
gen chain.txt -n 1000000 --shape chain -q 1000 --seed 2
[ -z "$big" ] || gen m10.txt -n 10000000 --edges 100000000 -q 1000000 --seed 3

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# One process: "seconds peak_kb" of a run; output in $dir/one.out.
one() {
  /usr/bin/time -f "%e %M" -o "$dir/one.time" "$bin" "$@" > "$dir/one.out"
  cat "$dir/one.time"
}

# Two processes: "seconds peak0_kb peak1_kb" (time of process 0); output in $dir/two.out.
# They share a secret (a fresh one per run of this script), as every cluster should.
GRUNDY_SECRET=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export GRUNDY_SECRET
two() {
  printf '127.0.0.1:%s\n127.0.0.1:%s\n' "$(port)" "$(port)" > "$dir/hosts"
  /usr/bin/time -f "%e %M" -o "$dir/p1.time" "$bin" "$@" --hosts "$dir/hosts" --process 1 > /dev/null &
  /usr/bin/time -f "%e %M" -o "$dir/p0.time" "$bin" "$@" --hosts "$dir/hosts" --process 0 > "$dir/two.out"
  wait
  echo "$(cat "$dir/p0.time") $(cut -d' ' -f2 "$dir/p1.time")"
}

commands=(
  "solve m1|solve $dir/m1.txt"
  "values m1|values $dir/m1.txt"
  "solve chain|solve $dir/chain.txt"
)
[ -z "$big" ] || commands+=("solve m10|solve $dir/m10.txt")

printf '%-12s %9s %9s %7s %10s %10s %10s %7s %7s %s\n' command one_s two_s ratio one_MB p0_MB p1_MB p0/one p1/one same
for entry in "${commands[@]}"; do
  name=${entry%%|*}
  read -ra args <<< "${entry#*|}"
  : > "$dir/one.runs"; : > "$dir/two.runs"
  for _ in $(seq "$runs"); do
    one "${args[@]}" >> "$dir/one.runs"
    two "${args[@]}" >> "$dir/two.runs"
  done
  same=no; cmp -s "$dir/one.out" "$dir/two.out" && same=yes
  t1=$(cut -d' ' -f1 "$dir/one.runs" | median); t2=$(cut -d' ' -f1 "$dir/two.runs" | median)
  m1=$(cut -d' ' -f2 "$dir/one.runs" | median); p0=$(cut -d' ' -f2 "$dir/two.runs" | median)
  p1=$(cut -d' ' -f3 "$dir/two.runs" | median)
  awk -v n="$name" -v t1="$t1" -v t2="$t2" -v m1="$m1" -v p0="$p0" -v p1="$p1" -v s="$same" 'BEGIN {
    printf "%-12s %9.2f %9.2f %7.2f %10.0f %10.0f %10.0f %7.2f %7.2f %s\n",
      n, t1, t2, t2 / t1, m1 / 1024, p0 / 1024, p1 / 1024, p0 / m1, p1 / m1, s }'
done
