#!/usr/bin/env bash
# The quick test tier, as CI runs it (README, "Run the tests"):
#  1. release build (CUDA too when nvcc is present), ctest -L quick;
#  2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#  3. the y4m, model-file and option-parser fuzzers for a bounded time each
#     (clang, libFuzzer).
# Any skipped test that is not a GPU skip fails the run.
# Usage: scripts/run-tests.sh [build-root]   (default: ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="${1:-build}"
JOBS="$(nproc)"
FUZZ_SECONDS="${EXACTVMAF_FUZZ_SECONDS:-60}"

T0=$(date +%s)
# Each step's heading says how long the run has taken so far.
step() { printf '\n=== %s (at %d s) ===\n' "$*" "$(($(date +%s) - T0))"; }
PASSED=0
FAILED=0
SKIPPED=0
# The tests ctest reported skipped (its log $2) whose output in TEST_DIR's
# Testing/Temporary/LastTest.log does not say a GPU is missing ("no CUDA
# device", "no CUDA driver"): "NAME: last line of its output" per test.
non_gpu_skips() {
  local names
  names="$(mktemp)"
  sed -nE 's/^[[:space:]]*[0-9]+ - (.*) \(Skipped\)$/\1/p' "$2" | sed -E 's/  # GetParam.*//' > "$names"
  # The names travel in a file: thousands of GPU-skipped tests are more than
  # one command-line argument may hold (awk -v failed with E2BIG).
  if [ -s "$names" ]; then
    awk '
      FNR == NR { want[$0] = 1; next }
      /^[0-9]+\/[0-9]+ Testing: / { name = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", name); gpu = 0; last = "" }
      /no CUDA device|no CUDA driver/ { gpu = 1 }
      /^<end of output>$/ { if ((name in want) && !gpu) print name ": " last; delete want[name] }
      { if ($0 != "<end of output>") last = $0 }' "$names" "$1/Testing/Temporary/LastTest.log"
  fi
  rm -f "$names"
}

# Runs ctest on TEST_DIR, keeps its output, adds its counts to the totals,
# and fails on any skip that is not a GPU skip (a missing model file, fixture
# or tool must fail, not hide).
run_ctest() {
  local dir="$1"
  shift
  local log
  log="$(mktemp)"
  local rc=0
  ctest --test-dir "$dir" "$@" 2>&1 | tee "$log" || rc=$?
  local line total failed skipped
  line="$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -1 || true)"
  skipped="$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log" || true)"
  local bad_skips
  bad_skips="$(non_gpu_skips "$dir" "$log")"
  rm -f "$log"
  if [ -z "$line" ]; then echo "run-tests: ctest printed no summary" >&2; return 1; fi
  failed="$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")"
  total="$(sed -E 's/.* tests failed out of ([0-9]+).*/\1/' <<<"$line")"
  PASSED=$((PASSED + total - failed - skipped))
  FAILED=$((FAILED + failed))
  SKIPPED=$((SKIPPED + skipped))
  if [ -n "$bad_skips" ]; then
    echo "run-tests: tests skipped for a reason other than a missing GPU:" >&2
    echo "$bad_skips" | sed 's/^/  /' >&2
    return 1
  fi
  return "$rc"
}

step "release build"
cmake -S . -B "$ROOT/release" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$ROOT/release" -j "$JOBS"
step "quick tests"
run_ctest "$ROOT/release" -L quick --output-on-failure -j "$JOBS"

step "sanitizer build (address,undefined)"
# -O1 -g1 (line tables): what the sanitizers' stack traces need, at half the
# compile time of -O2 -g on CI's two cores.
cmake -S . -B "$ROOT/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXACTVMAF_CUDA=OFF \
      -DEXACTVMAF_BENCH=OFF -DEXACTVMAF_SANITIZE=address,undefined \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
cmake --build "$ROOT/asan" -j "$JOBS"
step "quick tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest "$ROOT/asan" -L quick -LE nosan --output-on-failure -j "$JOBS"

step "fuzz the y4m, model-file and option parsers for ${FUZZ_SECONDS}s each"
fuzz/run_fuzz.sh "$ROOT/fuzz" "$FUZZ_SECONDS"

step "all quick tiers passed"
echo "tests: ${PASSED} passed, ${FAILED} failed, ${SKIPPED} skipped"
