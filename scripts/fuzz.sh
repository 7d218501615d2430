#!/usr/bin/env bash
# Fuzzes `solve` (chess and sums formats, chess with --loopy) and `query` with libFuzzer, on both code paths,
# checking they agree (fuzz/fuzz_targets/solve.rs).
#
# Usage: scripts/fuzz.sh [SECONDS] [JOBS]      (default 60 seconds, 1 job)
#        scripts/fuzz.sh --smoke [SECONDS]     (CI: default 5 seconds)
#
# Uses nightly with AddressSanitizer when a nightly toolchain is installed, else stable with
# no sanitizer. Seeds the corpus with the bundled inputs; crashes land in fuzz/artifacts/solve.
# Findings become regression tests in tests/regression.rs.
#
# --smoke is CI's check that the target still builds and holds (.ci/run): no cargo-fuzz, no
# nightly. The fuzz crate (its own workspace) is built by plain `cargo build` into the main
# target folder, so it reuses the dependencies the test step built, and run SECONDS from the
# bundled seeds: libFuzzer's own main, without coverage instrumentation (that needs
# cargo-fuzz's flags, and a rebuild of every dependency with them), so its inputs are the
# seeds and random mutations of them, each through the target's checks. Where there is no
# C++ compiler for libFuzzer, the crate is only type-checked.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--smoke" ]; then
  seconds=${2:-5}
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
  if ! command -v c++ >/dev/null; then
    # libfuzzer-sys builds libFuzzer with c++ unless given one; a check links nothing.
    echo "fuzz: no C++ compiler: type-checking the fuzz target only"
    CUSTOM_LIBFUZZER_PATH=/nonexistent/libfuzzer.a \
      cargo check --locked --quiet --manifest-path fuzz/Cargo.toml
    exit 0
  fi
  cargo build --locked --quiet --manifest-path fuzz/Cargo.toml
  seeds=$(mktemp -d) corpus=$(mktemp -d) log=$(mktemp)
  trap 'rm -rf "$seeds" "$corpus" "$log"' EXIT
  cp data/*.txt tests/data/*.txt "$seeds"/
  # New inputs go to $corpus (the first folder), the seeds are read from the second; an
  # input that fails a check stops the run, which then exits non-zero.
  status=0
  "$CARGO_TARGET_DIR/debug/solve" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix="$corpus/" \
    "$corpus" "$seeds" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log"
    exit "$status"
  fi
  grep '^Done' "$log"
  exit 0
fi
cd fuzz
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
