#!/usr/bin/env bash
# The index against the text input it was made from, on the 10M-node / 100M-edge file and its
# million queries (BENCHMARKS.md, "The index"): `index` against `values -o`, and `query`,
# `values`, `stats` of the index against the same of the file, in interleaved pairs
# (scripts/pairs.sh: medians). Outputs are compared byte for byte (stats but its times).
#
# Usage: scripts/index.sh [RUNS]     (default 5; files generated once under target/bench,
#                                      about 1.4 GB with the index)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bin=$(realpath target/release/grundy)
dir=target/bench
mkdir -p "$dir"
m10=$dir/m10.txt q=$dir/m10-queries.txt idx=$dir/m10.grundy
[ -s "$m10" ] || "$bin" generate -n 10000000 --edges 100000000 -q 1000000 --seed 3 -o "$m10"
[ -s "$q" ] || "$bin" generate -n 10000000 --edges 100000000 -q 1000000 --seed 3 --queries-only -o "$q"
"$bin" index "$m10" -o "$idx"
echo "index: $(stat -L -c %s "$idx") bytes for 10,000,000 nodes and 100,000,000 edges"

pair() { # label, command A (the index), command B (the text file)
  echo "## $1"
  scripts/pairs.sh -n "$runs" "$2" "$3"
}
pair "index FILE vs values FILE -o out.csv" "$bin index $m10 -o /tmp/ix.grundy" "$bin values $m10 -o /tmp/ix.csv"
pair "query INDEX vs query FILE" "$bin query $idx $q -o /tmp/qa.csv" "$bin query $m10 $q -o /tmp/qb.csv"
cmp /tmp/qa.csv /tmp/qb.csv && echo "same bytes"
pair "query INDEX vs query FILE, --columns result" "$bin query $idx $q --columns result -o /tmp/qa.csv" "$bin query $m10 $q --columns result -o /tmp/qb.csv"
cmp /tmp/qa.csv /tmp/qb.csv && echo "same bytes"
pair "query INDEX --trust vs query INDEX" "$bin query $idx $q --trust -o /tmp/qa.csv" "$bin query $idx $q -o /tmp/qb.csv"
pair "values INDEX vs values FILE" "$bin values $idx -o /tmp/va.csv" "$bin values $m10 -o /tmp/vb.csv"
cmp /tmp/va.csv /tmp/vb.csv && echo "same bytes"
pair "stats INDEX vs stats FILE" "$bin stats $idx" "$bin stats $m10"
rm -f /tmp/ix.grundy /tmp/ix.csv /tmp/qa.csv /tmp/qb.csv /tmp/va.csv /tmp/vb.csv
