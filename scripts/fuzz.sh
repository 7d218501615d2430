#!/usr/bin/env bash
# Fuzzes `solve` (chess and sums formats, chess with --loopy) and `query` with libFuzzer, on both code paths,
# checking they agree (fuzz/fuzz_targets/solve.rs).
#
# Usage: scripts/fuzz.sh [SECONDS] [JOBS]      (default 60 seconds, 1 job)
#
# Uses nightly with AddressSanitizer when a nightly toolchain is installed, else stable with
# no sanitizer. Seeds the corpus with the bundled inputs; crashes land in fuzz/artifacts/solve.
# Findings become regression tests in tests/regression.rs.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-60}
jobs=${2:-1}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  toolchain=(+nightly) sanitizer=()
else
  toolchain=() sanitizer=(--sanitizer none)
fi
mkdir -p corpus/solve
cp ../data/*.txt ../tests/data/*.txt corpus/solve/ 2>/dev/null || true
parallel=()
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")  # logs then go to fuzz-N.log
cargo "${toolchain[@]}" fuzz run solve "${sanitizer[@]}" -- "${parallel[@]}" \
  -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
  -max_len=4096 -print_final_stats=1
