#!/usr/bin/env bash
# Octal games at record scale (issue 31): Officers (0.6) to N on one thread and on two (rate,
# peak memory, tables compared byte for byte), a run killed (SIGKILL) and started again from
# its checkpoint against one never stopped, the longest published periods proved from
# scratch, and (OCTAL_BILLION=1) 0.6 to 10^9 for its peak memory.
#
# Usage: scripts/octal-record.sh [N] [KILLED_N]    (defaults 2x10^7 and 10^8)
#        BASE=path/to/grundy scripts/octal-record.sh   (also compares 0.6's table to N with
#                                                       that binary's, the engine before)
#        OCTAL_BILLION=1 scripts/octal-record.sh       (also 0.6 to 10^9 on 2 threads: about
#                                                       half an hour)
# Writes the section "## Octal games at record scale" of BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000000}
killed_n=${2:-100000000}
bin=target/release/grundy
dir=target/bench/octal-record
out=BENCHMARKS.md
mkdir -p "$dir"
cargo build --release --quiet
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# "seconds peak-MB" of one run of "$@" (its stdout kept in $dir/stdout).
measure() {
  /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >"$dir/stdout"
  awk '{printf "%s %.1f\n", $1, $2 / 1024}' "$dir/time"
}

section=$dir/section.md
{
  echo "## Octal games at record scale (issue 31)"
  echo
  echo "Produced by \`scripts/octal-record.sh $n $killed_n\` on $(date -u +%Y-%m-%d), $(nproc) cores;"
  echo "one run of each (minutes long), so ratios within this run are what to compare."
  echo
  echo "Officers (0.6) to N = $n, \`grundy --threads T octal 0.6 -n $n -o TABLE\`:"
  echo
  echo "| threads | seconds | heaps/s | peak MB | table |"
  echo "| ---: | ---: | ---: | ---: | --- |"
} > "$section"
read -r s1 m1 < <(measure $bin --threads 1 octal 0.6 -n "$n" -o "$dir/t1.csv")
read -r s2 m2 < <(measure $bin --threads 2 octal 0.6 -n "$n" -o "$dir/t2.csv")
same=$(cmp -s "$dir/t1.csv" "$dir/t2.csv" && echo "same bytes as 1 thread" || echo DIFFERS)
if [ -n "${BASE:-}" ]; then
  $BASE --threads 2 octal 0.6 -n "$n" -o "$dir/base.csv" >/dev/null
  same="$same; $(cmp -s "$dir/t1.csv" "$dir/base.csv" && echo "same as $BASE" || echo "DIFFERS from $BASE")"
fi
rate() { awk -v n="$n" -v s="$1" 'BEGIN {printf "%.0f", (n + 1) / s}'; }
{
  echo "| 1 | $s1 | $(rate "$s1") | $m1 | |"
  echo "| 2 | $s2 | $(rate "$s2") | $m2 | $same |"
  echo
  echo "Two threads over one: $(awk -v a="$s1" -v b="$s2" 'BEGIN {printf "%.2f", a / b}')x."
  echo
} >> "$section"

# Killed and started again: 0.6 to KILLED_N with a checkpoint every 10 s, SIGKILL at about
# half the time of an uninterrupted run, then the same command again.
read -r sw mw < <(measure $bin octal 0.6 -n "$killed_n" -o "$dir/whole.csv")
rm -f "$dir/ck" "$dir/ck.values"* "$dir/again.csv"
$bin octal 0.6 -n "$killed_n" -o "$dir/again.csv" --checkpoint "$dir/ck" --checkpoint-every 10 \
  >/dev/null 2>&1 &
pid=$!
sleep "$(awk -v s="$sw" 'BEGIN {printf "%d", s / 2}')"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
read -r sa ma < <(measure $bin octal 0.6 -n "$killed_n" -o "$dir/again.csv" --checkpoint "$dir/ck" \
  --checkpoint-every 10)
killed=$(cmp -s "$dir/whole.csv" "$dir/again.csv" && echo "the same bytes" || echo "DIFFERENT bytes")
{
  echo "Killed and started again: \`grundy octal 0.6 -n $killed_n -o T --checkpoint ck"
  echo "--checkpoint-every 10\` (2 threads) killed with SIGKILL after $(awk -v s="$sw" 'BEGIN {printf "%d", s / 2}') s, then run"
  echo "again: $sa s and $ma MB peak for the rest, against $sw s and $mw MB for one run never"
  echo "stopped; the two tables are $killed."
  echo
  echo "The longest published periods, proved from scratch (2 threads):"
  echo
  echo "| code | N asked | period | preperiod | proved with G(0..n) | seconds | peak MB |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
} >> "$section"
for run in "0.1777 450000000" "0.16 1000000" "0.156 100000" "0.354 100000000"; do
  read -r code big <<< "$run"
  read -r s m < <(measure $bin octal "$code" -n "$big" --json)
  fields=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["period"], j["preperiod"], j["n"])' "$dir/stdout")
  read -r period pre at <<< "$fields"
  echo "| $code | $big | $period | $pre | $at | $s | $m |" >> "$section"
done
if [ -n "${OCTAL_BILLION:-}" ]; then
  read -r sb mb < <(measure $bin octal 0.6 -n 1000000000)
  {
    echo
    echo "0.6 to 10^9 (2 threads, no table written): $sb s, peak $mb MB."
  } >> "$section"
fi
replace_section "Octal games at record scale" "$section" "$out"
cat "$section"
