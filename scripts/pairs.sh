#!/usr/bin/env bash
# Two commands timed in turn (A, B, A, B, ...), so that both meet the same moments of a shared,
# noisy machine; the way BENCHMARKS.md's "interleaved pairs" are measured. GNU time
# (/usr/bin/time) measures each run: wall and CPU (user + system) seconds and the peak resident
# set. One run of each goes first and is not counted. Prints the median (min-max) of each
# figure, and of the ratio A/B taken pair by pair (so a drift of the machine's speed during the
# call moves both sides of a ratio alike). Each command is run by `sh -c`, its standard output
# thrown away unless it redirects it itself; a command that fails stops the script.
#
# Usage: scripts/pairs.sh [-n PAIRS] 'COMMAND A' 'COMMAND B'      (default 5 pairs)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
pairs=5
if [ "${1:-}" = -n ]; then
  pairs=$2
  shift 2
fi
if [ $# -ne 2 ] || ! [ "$pairs" -ge 1 ] 2>/dev/null; then
  echo "usage: scripts/pairs.sh [-n PAIRS] 'COMMAND A' 'COMMAND B'" >&2
  exit 2
fi
a=$1 b=$2
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

run() { # command, file to append "wall cpu peak_mib" to
  if ! /usr/bin/time -f "%e %U %S %M" -o "$log/time" sh -c "$1" > /dev/null; then
    echo "error: \`$1\` failed: $(head -1 "$log/time")" >&2
    exit 1
  fi
  awk '{printf "%.3f %.3f %.1f\n", $1, $2 + $3, $4 / 1024}' "$log/time" >> "$2"
}

spread() { # column, file: "median (min-max)"
  local col=$1 file=$2
  cut -d' ' -f"$col" "$file" | sort -g | awk -v m="$(cut -d' ' -f"$col" "$file" | median)" '
    NR == 1 {lo = $1} {hi = $1} END {printf "%s (%s-%s)", m, lo, hi}'
}

run "$a" "$log/warm"
run "$b" "$log/warm"
for _ in $(seq "$pairs"); do
  run "$a" "$log/a"
  run "$b" "$log/b"
done
paste -d' ' "$log/a" "$log/b" |
  awk 'function r(x, y) { return y > 0 ? sprintf("%.4f", x / y) : "nan" }
    {print r($1, $4), r($2, $5), r($3, $6)}' > "$log/ratio"

echo "$pairs pairs; medians (min-max)"
echo "A: wall $(spread 1 "$log/a") s, cpu $(spread 2 "$log/a") s, peak $(spread 3 "$log/a") MiB"
echo "B: wall $(spread 1 "$log/b") s, cpu $(spread 2 "$log/b") s, peak $(spread 3 "$log/b") MiB"
echo "A/B: wall $(spread 1 "$log/ratio"), cpu $(spread 2 "$log/ratio"), peak $(spread 3 "$log/ratio")"
