#!/usr/bin/env bash
# Builds and runs the CUDA device tests of R's math library (rmath-trig /
# rmath-log fast paths on the device, the exact-sum reduction, the
# contraction probe) and writes one log per binary plus a summary.
#
#   tests/numeric/run_device_tests.sh [BUILD_DIR] [LOG_DIR] [quick|long|all]
#
# Defaults: BUILD_DIR=build-device, LOG_DIR=device-logs, tier all. Exit
# status 0 only when every test passed (a test that SKIPs because no device
# is visible counts as a failure here: this script is for the GPU machine).
# Uses CMake with -DEXACTVMAF_CUDA=ON; if that configuration fails it falls
# back to compiling the .cu tests directly with nvcc against a CPU-only
# build of libexactvmaf (the same device flags as cmake/cuda.cmake).
set -euo pipefail

src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${1:-build-device}"
log_dir="${2:-device-logs}"
tier="${3:-all}"
mkdir -p "$log_dir"
log_dir="$(cd "$log_dir" && pwd)"
jobs="$(nproc 2>/dev/null || echo 4)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"

nvidia-smi > "$log_dir/nvidia-smi.txt" 2>&1 || true

case "$tier" in
  quick) names=(device_probe_contraction_test device_rmath_quick device_exact_sum_quick) ;;
  long) names=(device_rmath_long device_exact_sum_long) ;;
  all) names=(device_probe_contraction_test device_rmath_quick device_exact_sum_quick
              device_rmath_long device_exact_sum_long) ;;
  *) echo "unknown tier: $tier" >&2; exit 2 ;;
esac

declare -A bins
if cmake -S "$src_dir" -B "$build_dir" -G Ninja -DEXACTVMAF_CUDA=ON -DEXACTVMAF_BENCH=OFF \
     > "$log_dir/configure.log" 2>&1 \
   && cmake --build "$build_dir" -j "$jobs" --target "${names[@]}" > "$log_dir/build.log" 2>&1; then
  for n in "${names[@]}"; do bins[$n]="$build_dir/tests/numeric/$n"; done
else
  echo "CMake CUDA build failed (see $log_dir/configure.log, build.log); building with nvcc directly" \
    | tee "$log_dir/fallback.txt"
  cpu_dir="$build_dir-cpu"
  cmake -S "$src_dir" -B "$cpu_dir" -G Ninja -DEXACTVMAF_CUDA=OFF -DEXACTVMAF_BENCH=OFF \
    > "$log_dir/configure-cpu.log" 2>&1
  cmake --build "$cpu_dir" -j "$jobs" --target exactvmaf_static > "$log_dir/build-cpu.log" 2>&1
  out="$build_dir-nvcc"
  mkdir -p "$out"
  flags=(-std=c++20 -O2 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true
         "-Xcompiler=-ffp-contract=off,-fno-fast-math"
         -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
         -I"$src_dir/src" -I"$src_dir/include" -I"$src_dir/tests" -I"$src_dir/tests/numeric")
  libs=("$cpu_dir/src/libexactvmaf.a" -lgtest -lgtest_main -lmpfr -lgmp -lfmt -lpthread)
  for n in "${names[@]}"; do
    case "$n" in
      device_probe_contraction_test) srcf=device_probe_contraction_test.cu; def=() ;;
      device_rmath_quick) srcf=device_rmath_test.cu; def=(-DEXACTVMAF_DEVICE_TEST_N=10000) ;;
      device_rmath_long) srcf=device_rmath_test.cu; def=(-DEXACTVMAF_DEVICE_TEST_N=10000000) ;;
      device_exact_sum_quick) srcf=device_exact_sum_test.cu; def=(-DEXACTVMAF_DEVICE_TEST_N=10000) ;;
      device_exact_sum_long) srcf=device_exact_sum_test.cu; def=(-DEXACTVMAF_DEVICE_TEST_N=10000000) ;;
    esac
    "$nvcc" "${flags[@]}" "${def[@]}" "$src_dir/tests/numeric/$srcf" "${libs[@]}" -o "$out/$n" \
      >> "$log_dir/build-nvcc.log" 2>&1
    bins[$n]="$out/$n"
  done
fi

status=0
: > "$log_dir/summary.txt"
for n in "${names[@]}"; do
  set +e
  "${bins[$n]}" --gtest_output="xml:$log_dir/$n.xml" > "$log_dir/$n.log" 2>&1
  rc=$?
  set -e
  skipped=$(grep -c '^\[  SKIPPED \] [A-Za-z]' "$log_dir/$n.log" || true)
  echo "$n: exit $rc, skipped $skipped" | tee -a "$log_dir/summary.txt"
  grep -E 'mismatches|FAILED|SKIPPED|no CUDA device' "$log_dir/$n.log" | sed 's/^/  /' \
    | tee -a "$log_dir/summary.txt" || true
  if [ "$rc" -ne 0 ] || [ "$skipped" -ne 0 ]; then status=1; fi
done
echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$log_dir/summary.txt"
exit $status
