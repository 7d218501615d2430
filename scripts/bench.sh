#!/usr/bin/env bash
# End-to-end benchmarks of `grundy solve` on generated files; writes BENCHMARKS.md.
#
# Usage: scripts/bench.sh [RUNS]      (default 5 runs per measurement; medians are reported)
#
# Speed is reported as MB/s and as a ratio to the time of simply reading the file
# (`cat FILE > /dev/null`, page cache warm), measured in the same run, because this machine is
# shared and noisy: absolute times move between runs, ratios much less. Peak memory is GNU
# time's maximum resident set size. Big files are generated under target/bench, never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bin=target/release/grundy
dir=target/bench
out=BENCHMARKS.md
mkdir -p "$dir"
cargo build --release --quiet
cores=$(nproc)

# name | generate arguments
files=(
  "m1|-n 1000000 --edges 10000000 -q 1000000 --seed 1"
  "chain|-n 1000000 --shape chain -q 1000000 --seed 2"
  "m10|-n 10000000 --edges 100000000 -q 1000000 --seed 3"
)

# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# seconds of one run of "$@" (stdout discarded)
seconds() {
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}

{
  echo "# Benchmarks"
  echo
  echo "Produced by \`scripts/bench.sh $runs\` on $(date -u +%Y-%m-%d), $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))."
  echo "Times are medians of $runs runs; *read* is \`cat FILE > /dev/null\` (page cache warm);"
  echo "*x read* is the solve time over the read time, measured in the same run; peak memory is"
  echo "the maximum resident set size (GNU time), against the bound *file + 12 B/edge + 36 B/node*."
  echo
  echo "| file | size | nodes | edges | threads | solve (s) | MB/s | x read | speed-up | peak MB | bound MB |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$out.tmp"

for entry in "${files[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  file=$dir/$name.txt
  # shellcheck disable=SC2086
  [ -s "$file" ] || $bin generate $args -o "$file"
  bytes=$(stat -L -c %s "$file")
  read -r nodes edges < <(awk 'NR==1 {n=$1; next} NR<=n+1 {e+=$1} NR>n+1 {exit} END {print n, e}' "$file")
  bound=$(( (bytes + 12 * edges + 36 * nodes) / 1000000 ))
  cat "$file" >/dev/null
  read_s=$(for _ in $(seq "$runs"); do seconds cat "$file"; done | median)
  one=""
  for threads in 1 "$cores"; do
    solve_s=$(for _ in $(seq "$runs"); do seconds $bin solve --threads "$threads" "$file"; done | median)
    peak_kb=$( { /usr/bin/time -f %M $bin solve --threads "$threads" "$file" >/dev/null; } 2>&1 | tail -1)
    [ -n "$one" ] || one=$solve_s
    awk -v n="$name" -v b="$bytes" -v N="$nodes" -v E="$edges" -v t="$threads" -v s="$solve_s" \
      -v r="$read_s" -v o="$one" -v p="$peak_kb" -v B="$bound" 'BEGIN {
        printf "| %s | %d MB | %d | %d | %d | %.3f | %.0f | %.1f | %.2f | %d | %d |\n",
          n, b / 1e6, N, E, t, s, b / 1e6 / s, s / r, o / s, p / 1000, B }' >> "$out.tmp"
    echo "$name threads=$threads solve=${solve_s}s read=${read_s}s peak=${peak_kb}kB" >&2
  done
done
# Against the peer (issue 13): a single-threaded C solver (scripts/peer.c), warm (runs back to
# back), interleaved with grundy's runs so that both see the same machine; outputs compared.
cc -O2 -march=native -o "$dir/peer" scripts/peer.c
peak() { { /usr/bin/time -f %M "$@" >/dev/null; } 2>&1 | tail -1; }
{
  echo
  echo "## Against the C peer (issue 13)"
  echo
  echo "The peer is \`scripts/peer.c\` (\`cc -O2 -march=native\`): one thread, the file mapped whole, a"
  echo "tight integer scanner, targets parsed straight into a CSR, an iterative depth-first search,"
  echo "a 64-bit mask for the mex. Warm runs (back to back, page cache warm), the peer's and"
  echo "grundy's interleaved; medians of $runs, with the range; ratios are grundy over peer."
  echo
  echo "| file | peer (s) | grundy 1 thread (s) | grundy $cores threads (s) | x peer | speed-up 1 to $cores | peak MB peer / grundy | x peer | same |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
} >> "$out.tmp"
spread() { sort -g | awk '{a[NR]=$1} END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f (%.2f-%.2f)", m, a[1], a[NR]}'; }
for name in m1 m10 chain; do
  file=$dir/$name.txt
  "$dir/peer" "$file" > "$dir/peer.out"
  $bin solve "$file" | cmp -s - "$dir/peer.out" && same=yes || same=no
  : > "$dir/t.peer"; : > "$dir/t.one"; : > "$dir/t.all"
  for _ in $(seq "$runs"); do
    seconds "$dir/peer" "$file" >> "$dir/t.peer"
    seconds $bin solve --threads 1 "$file" >> "$dir/t.one"
    seconds $bin solve --threads "$cores" "$file" >> "$dir/t.all"
  done
  p=$(spread < "$dir/t.peer"); o=$(spread < "$dir/t.one"); a=$(spread < "$dir/t.all")
  pk=$(peak "$dir/peer" "$file"); gk=$(peak $bin solve --threads "$cores" "$file")
  awk -v n="$name" -v p="$p" -v o="$o" -v a="$a" -v pk="$pk" -v gk="$gk" -v s="$same" 'BEGIN {
    split(p, P, " "); split(o, O, " "); split(a, A, " ")
    printf "| %s | %s | %s | %s | %.2f | %.2f | %d / %d | %.2f | %s |\n",
      n, p, o, a, A[1] / P[1], O[1] / A[1], pk / 1000, gk / 1000, gk / pk, s }' >> "$out.tmp"
  echo "$name: peer $p, grundy 1 thread $o, $cores threads $a" >&2
done
# Cold runs: the same, each after an idle pause (this machine hands idle memory back to its
# host, and the first touch of fresh memory then costs more); COLD_IDLE seconds, default 30.
idle=${COLD_IDLE:-30}
{
  echo
  echo "Cold runs (each after ${idle} s idle, page cache warm), medians of $runs with the range:"
  echo
  echo "| file | peer (s) | grundy $cores threads (s) | x peer |"
  echo "| --- | ---: | ---: | ---: |"
} >> "$out.tmp"
for name in m1 m10 chain; do
  file=$dir/$name.txt
  : > "$dir/t.peer"; : > "$dir/t.all"
  for _ in $(seq "$runs"); do
    sleep "$idle"; seconds "$dir/peer" "$file" >> "$dir/t.peer"
    sleep "$idle"; seconds $bin solve --threads "$cores" "$file" >> "$dir/t.all"
  done
  p=$(spread < "$dir/t.peer"); a=$(spread < "$dir/t.all")
  awk -v n="$name" -v p="$p" -v a="$a" 'BEGIN {
    split(p, P, " "); split(a, A, " "); printf "| %s | %s | %s | %.2f |\n", n, p, a, A[1] / P[1] }' >> "$out.tmp"
  echo "$name cold: peer $p, grundy $a" >&2
done
# Stages against their floors (scripts/floors.c: each stage's unavoidable memory traffic on one
# thread); grundy's stage times are those `grundy stats` prints; medians of the runs.
cc -O3 -march=native -o "$dir/floors" scripts/floors.c
{
  echo
  echo "### Stages against their floors"
  echo
  echo "A stage's floor (\`scripts/floors.c\`) is its unavoidable memory traffic issued by one thread"
  echo "with no bookkeeping: every byte looked at once to parse, two random increments per edge to"
  echo "build the reverse graph, one random byte decrement per edge to peel, one random read per"
  echo "edge to evaluate, the query bytes and one read per position to answer. Lists are walked in"
  echo "id order, so the per-node random access of a level-by-level walk is left out: the floors are"
  echo "optimistic. *order and values* is the reverse build, the peel and the evaluation (grundy"
  echo "takes the mex while peeling when no node has more than 55 moves, as here; \`stats\` then shows"
  echo "evaluate 0). Medians of $runs; grundy's times are the ones \`grundy stats\` prints."
  echo
  echo "| file | stage | floor, 1 thread (s) | grundy 1 thread (s) | x floor | grundy $cores threads (s) | x floor |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
} >> "$out.tmp"
# the stage times of "$@" as "parse order evaluate queries"
stages() { "$@" 2>&1 | awk '/time \(s\)/ {gsub(/,/, ""); print $4, $6, $8, $10; exit}'; }
# the column-wise medians of lines of numbers on stdin
medians() { awk '{for (i = 1; i <= NF; i++) c[i] = c[i] " " $i; n = NF} END {for (i = 1; i <= n; i++) print c[i]}' |
  while read -r col; do tr ' ' '\n' <<< "$col" | median; done | xargs; }
for name in m1 m10 chain; do
  file=$dir/$name.txt
  f=$(for _ in $(seq "$runs"); do "$dir/floors" "$file" 2>/dev/null; done | medians)
  o=$(for _ in $(seq "$runs"); do stages $bin stats --threads 1 "$file"; done | medians)
  a=$(for _ in $(seq "$runs"); do stages $bin stats --threads "$cores" "$file"; done | medians)
  awk -v n="$name" -v f="$f" -v o="$o" -v a="$a" 'BEGIN {
    split(f, F, " "); split(o, O, " "); split(a, A, " ")
    # floors: parse reverse peel evaluate queries; grundy: parse order evaluate queries
    split("parse|order and values|queries", S, "|")
    fl[1] = F[1]; fl[2] = F[2] + F[3] + F[4]; fl[3] = F[5]
    g1[1] = O[1]; g1[2] = O[2] + O[3]; g1[3] = O[4]; g2[1] = A[1]; g2[2] = A[2] + A[3]; g2[3] = A[4]
    for (i = 1; i <= 3; i++)
      printf "| %s | %s | %.3f | %.3f | %.1f | %.3f | %.1f |\n", n, S[i], fl[i], g1[i], g1[i] / fl[i], g2[i], g2[i] / fl[i] }' >> "$out.tmp"
  echo "$name floors: $f; grundy 1 thread: $o; $cores threads: $a" >&2
done
# Against the 2-thread peer (issue 27): scripts/peer2.c on two OpenMP threads, warm (runs back to
# back), interleaved with grundy's runs on 2 threads so that both see the same machine; outputs compared.
cc -O2 -march=native -fopenmp -o "$dir/peer2" scripts/peer2.c
peer2=(env OMP_NUM_THREADS=2 "$dir/peer2")
{
  echo
  echo "## Against the 2-thread C peer (issue 27)"
  echo
  echo "The peer is \`scripts/peer2.c\` (\`cc -O2 -march=native -fopenmp\`, \`OMP_NUM_THREADS=2\`): the file"
  echo "mapped whole and cut at a newline near its middle, each half turned into tokens (AVX2) by its own"
  echo "thread in one token array that is the CSR, record starts found as it goes; a memoised depth-first"
  echo "search on both threads over one state byte per node claimed by compare-and-swap, a 64-bit mask for"
  echo "the mex, no reverse graph; queries split between the threads. Warm runs, the peer's and grundy's"
  echo "(\`--threads 2\`) interleaved; medians of $runs, with the range; ratios are grundy over peer."
  echo
  echo "| file | peer2, 2 threads (s) | grundy 2 threads (s) | x peer2 | peak MB peer2 / grundy | x peer2 | same |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
} >> "$out.tmp"
for name in m1 m10 chain; do
  file=$dir/$name.txt
  "${peer2[@]}" "$file" > "$dir/peer2.out"
  $bin solve --threads 2 "$file" | cmp -s - "$dir/peer2.out" && same=yes || same=no
  : > "$dir/t.peer2"; : > "$dir/t.two"
  for _ in $(seq "$runs"); do
    seconds "${peer2[@]}" "$file" >> "$dir/t.peer2"
    seconds $bin solve --threads 2 "$file" >> "$dir/t.two"
  done
  p=$(spread < "$dir/t.peer2"); a=$(spread < "$dir/t.two")
  pk=$(peak "${peer2[@]}" "$file"); gk=$(peak $bin solve --threads 2 "$file")
  awk -v n="$name" -v p="$p" -v a="$a" -v pk="$pk" -v gk="$gk" -v s="$same" 'BEGIN {
    split(p, P, " "); split(a, A, " ")
    printf "| %s | %s | %s | %.2f | %d / %d | %.2f | %s |\n", n, p, a, A[1] / P[1], pk / 1000, gk / 1000, gk / pk, s }' >> "$out.tmp"
  echo "$name: peer2 $p, grundy 2 threads $a, same $same" >&2
done
# Keep the sections other scripts write (stress, cluster, loopy) and the notes.
[ -f "$out" ] && awk '/^## / {keep = !/^## Against the (2-thread )?C peer/} keep {print}' "$out" | sed '1s/^/\n/' >> "$out.tmp"
mv "$out.tmp" "$out"
# The loopy section (its own script: a C baseline and three more files).
scripts/loopy.sh "$runs" >/dev/null
# The octal section (its own script: a C baseline; 10^6 runs once, minutes).
scripts/octal.sh "$runs" >/dev/null
cat "$out"
