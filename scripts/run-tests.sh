#!/usr/bin/env bash
# The quick test tier, as CI runs it (README, "Run the tests"):
#  1. release build (CUDA too when nvcc is present), ctest -L quick;
#  2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. the y4m header fuzzer for a bounded time (clang, libFuzzer).
# Usage: scripts/run-tests.sh [build-root]   (default: ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="${1:-build}"
JOBS="$(nproc)"
FUZZ_SECONDS="${EXACTVMAF_FUZZ_SECONDS:-60}"

step() { printf '\n=== %s ===\n' "$*"; }

step "release build"
cmake -S . -B "$ROOT/release" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$ROOT/release" -j "$JOBS"
step "quick tests"
ctest --test-dir "$ROOT/release" -L quick --output-on-failure -j "$JOBS"

step "sanitizer build (address,undefined)"
cmake -S . -B "$ROOT/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXACTVMAF_CUDA=OFF \
      -DEXACTVMAF_BENCH=OFF -DEXACTVMAF_SANITIZE=address,undefined
cmake --build "$ROOT/asan" -j "$JOBS"
step "quick tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$ROOT/asan" -L quick -LE nosan --output-on-failure -j "$JOBS"

step "fuzz the y4m parser for ${FUZZ_SECONDS}s"
fuzz/run_fuzz.sh "$ROOT/fuzz" "$FUZZ_SECONDS"

step "all quick tiers passed"
