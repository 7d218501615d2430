#!/usr/bin/env bash
# Octal games (issue 14): `grundy octal 0.007` (Treblecross) against a plain single-threaded C
# baseline (scripts/octal_naive.c: every split of every heap) and against ogsolve (crates.io,
# its rare/common method `-m rc`, installed under target/bench; skipped when it cannot be),
# in the same run, outputs compared byte for byte; and the time grundy takes to prove published
# periods.
#
# Usage: scripts/octal.sh [RUNS] [N]   (default 3 runs at 10^5; N = 10^6 runs once: the
#                                       baseline takes minutes there)
#        OCTAL_BIG=1 scripts/octal.sh  (also 0.007 to 10^7 with grundy alone: long)
# Writes the section "## Octal games" of BENCHMARKS.md (scripts/bench.sh runs this script).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
big=${2:-1000000}
bin=target/release/grundy
dir=target/bench
out=BENCHMARKS.md
mkdir -p "$dir"
cargo build --release --quiet
cc -O2 -march=native -o "$dir/octal_naive" scripts/octal_naive.c
cores=$(nproc)
ogsolve=$dir/ogsolve/bin/ogsolve
[ -x "$ogsolve" ] || cargo install ogsolve --version 0.0.7 --root "$dir/ogsolve" --quiet 2>/dev/null ||
  echo "ogsolve could not be installed: its column stays empty" >&2

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
seconds() { # seconds of one run of "$@"
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}

# One row: 0.007 to N, RUNS runs of each, interleaved.
row() {
  local n=$1 k=$2
  "$dir/octal_naive" 0.007 "$n" > "$dir/octal.base"
  $bin octal 0.007 -n "$n" -o "$dir/octal.out" >/dev/null
  cmp -s "$dir/octal.base" "$dir/octal.out" && same=yes || same=no
  : > "$dir/o.base"; : > "$dir/o.one"; : > "$dir/o.all"; : > "$dir/o.ogs"
  for _ in $(seq "$k"); do
    seconds "$dir/octal_naive" 0.007 "$n" >> "$dir/o.base"
    [ -x "$ogsolve" ] && seconds "$ogsolve" 0.007 -n "$n" -m rc >> "$dir/o.ogs"
    seconds $bin --threads 1 octal 0.007 -n "$n" >> "$dir/o.one"
    seconds $bin --threads "$cores" octal 0.007 -n "$n" >> "$dir/o.all"
  done
  b=$(median < "$dir/o.base"); o=$(median < "$dir/o.one"); a=$(median < "$dir/o.all")
  r=$( [ -s "$dir/o.ogs" ] && median < "$dir/o.ogs" || true)
  mb=$( { /usr/bin/time -f %M $bin octal 0.007 -n "$n" >/dev/null; } 2>&1 | tail -1)
  awk -v n="$n" -v k="$k" -v b="$b" -v r="$r" -v o="$o" -v a="$a" -v s="$same" -v mb="$mb" 'BEGIN {
    og = r == "" ? "-" : sprintf("%.2f", r); xo = r == "" ? "-" : sprintf("%.3f", a / r)
    printf "| %d | %d | %.2f | %s | %.2f | %.2f | %.3f | %s | %.2f | %d | %s |\n",
      n, k, b, og, o, a, a / b, xo, o / a, mb / 1000, s }'
  echo "0.007 to $n: baseline $b s, ogsolve ${r:--} s, grundy 1 thread $o s, $cores threads $a s" >&2
  last=$a
}

{
  echo "## Octal games (issue 14)"
  echo
  echo "Produced by \`scripts/octal.sh $runs $big\` on $(date -u +%Y-%m-%d), $cores cores. 0.007 (Treblecross)"
  echo "from heap 0 to N: the baseline is \`scripts/octal_naive.c\` (\`cc -O2 -march=native\`, one thread,"
  echo "every split of every heap); ogsolve 0.0.7 (crates.io) with its rare/common method, \`-m rc\`,"
  echo "one thread; grundy's sparse method on 1 and $cores threads. Medians of the runs, interleaved;"
  echo "*x baseline* and *x ogsolve* are grundy on $cores threads over them; *same* compares grundy's"
  echo "table with the baseline's byte for byte; peak memory is grundy's."
  echo
  echo "| N | runs | baseline (s) | ogsolve (s) | grundy 1 thread (s) | grundy $cores threads (s) | x baseline | x ogsolve | speed-up | peak MB | same |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  row 100000 "$runs"
  row "$big" 1
  if [ -n "${OCTAL_BIG:-}" ]; then
    t=$(seconds $bin octal 0.007 -n 10000000)
    echo
    # The growth from N to 10^7 as a power of n, carried on to 2^28.
    awk -v t="$t" -v a="$last" -v n="$big" -v c="$cores" 'BEGIN {
      e = log(t / a) / log(10000000 / n); far = t * (268435456 / 10000000) ^ e
      printf "0.007 to 10^7 on %d threads: %.0f s (%.1f min). From %d to 10^7 the time grew as n^%.2f;\n", c, t, t / 60, n, e
      printf "carried on at that rate, 2^28 would take about %.0f hours.\n", far / 3600 }'
  fi
  echo
  echo "Published periods proved (\`grundy octal CODE\`, $cores threads, one run):"
  echo
  echo "| code | period | preperiod | heaps computed | seconds |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for code in .77 .137 .45 .156 .356 .644 .165 .16; do
    $bin octal "$code" -n 2000000 --json |
      python3 -c 'import json,sys; j=json.load(sys.stdin); print("| %s | %s | %s | %d | %.2f |" % (j["code"], j["period"], j["preperiod"], j["n"], j["seconds"]))'
  done
} > "$dir/octal.md"

# Replace the section in BENCHMARKS.md (or add it), keeping every other section.
replace_section 'Octal games' "$dir/octal.md" "$out"
cat "$dir/octal.md"
