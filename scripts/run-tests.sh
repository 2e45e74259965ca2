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
PASSED=0
FAILED=0
SKIPPED=0
# Runs ctest, keeps its output, and adds its counts to the totals.
run_ctest() {
  local log
  log="$(mktemp)"
  local rc=0
  ctest "$@" 2>&1 | tee "$log" || rc=$?
  local line total failed skipped
  line="$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -1 || true)"
  skipped="$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log" || true)"
  rm -f "$log"
  if [ -z "$line" ]; then echo "run-tests: ctest printed no summary" >&2; return 1; fi
  failed="$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")"
  total="$(sed -E 's/.* tests failed out of ([0-9]+).*/\1/' <<<"$line")"
  PASSED=$((PASSED + total - failed - skipped))
  FAILED=$((FAILED + failed))
  SKIPPED=$((SKIPPED + skipped))
  return "$rc"
}

step "release build"
cmake -S . -B "$ROOT/release" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$ROOT/release" -j "$JOBS"
step "quick tests"
run_ctest --test-dir "$ROOT/release" -L quick --output-on-failure -j "$JOBS"

step "sanitizer build (address,undefined)"
cmake -S . -B "$ROOT/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXACTVMAF_CUDA=OFF \
      -DEXACTVMAF_BENCH=OFF -DEXACTVMAF_SANITIZE=address,undefined
cmake --build "$ROOT/asan" -j "$JOBS"
step "quick tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest --test-dir "$ROOT/asan" -L quick -LE nosan --output-on-failure -j "$JOBS"

step "fuzz the y4m parser for ${FUZZ_SECONDS}s"
fuzz/run_fuzz.sh "$ROOT/fuzz" "$FUZZ_SECONDS"

step "all quick tiers passed"
echo "tests: ${PASSED} passed, ${FAILED} failed, ${SKIPPED} skipped"
