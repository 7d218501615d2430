#!/usr/bin/env bash
# What the page cache keeps of a file grundy has read cold, against what BASE (another grundy
# binary) leaves (BENCHMARKS.md, "An input's pages in 2 MiB pieces"): two copies of the 10M/100M
# index, each dropped from the page cache, then read cold once, one by this binary and one by
# BASE; then the warm queries on each copy, interleaved (scripts/pairs.sh), and the bytes
# compared.
# The cold runs' own times are printed too (one run each per round).
#
# Usage: BASE=path/to/grundy scripts/pagecache.sh [RUNS]   (after scripts/index.sh made its files)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
bin=$(realpath target/release/grundy)
base=$(realpath "${BASE:?BASE=path/to/another/grundy}")
dir=target/bench
idx=$dir/m10.grundy q=$dir/m10-queries.txt
[ -s "$idx" ] && [ -s "$q" ] || { echo "run scripts/index.sh first" >&2; exit 1; }
mine=$dir/pc-mine.grundy theirs=$dir/pc-base.grundy
# Copies written in small pieces, so that neither starts with 2 MiB pages of its own.
dd if="$idx" of="$mine" bs=64K status=none
dd if="$idx" of="$theirs" bs=64K status=none
sync
cold() { # binary, index: drops the index's pages, then one cold query; prints its seconds
  dd if="$2" iflag=nocache count=0 status=none
  local s e
  s=$(date +%s.%N); "$1" query "$2" "$q" -o /dev/null; e=$(date +%s.%N)
  echo "$e - $s" | bc
}
echo "cold query, this binary: $(cold "$bin" "$mine") s; BASE: $(cold "$base" "$theirs") s"
echo "## warm query INDEX -o /dev/null, each on the copy it read cold (A this binary, B BASE)"
scripts/pairs.sh -n "$runs" "$bin query $mine $q -o /dev/null" "$base query $theirs $q -o /dev/null"
"$bin" query "$mine" "$q" | cmp -s - <("$base" query "$theirs" "$q") && echo "same bytes"
rm -f "$mine" "$theirs"
