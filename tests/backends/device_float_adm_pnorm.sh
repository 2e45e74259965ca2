#!/usr/bin/env bash
# The float_adm p-norm on the GPU machine (docs/fp64-free.md §11): runs
# fp32pair_cuda_test's p-norm golden cases (p = 2 and 4.5 under
# --device_fp64 off) with the default build (the Sf64 powf out of line: must
# pass with 0 host frames) and with the variants of
# scripts/float-adm-pnorm-variants.sh (the same powf inlined, and inlined
# with ptxas at -O0), which show whether the inlined fault is still there.
# Run from the repository root with .devrun/bundle.tar.xz
# (scripts/device-bundle.sh ... --pack, ONLY=fp32pair_cuda_test) and
# .devrun/variants.tar.xz; logs in $OUT.
set -uo pipefail
source tests/backends/device_bundle_env.sh
mkdir -p .devrun/v && tar -C .devrun/v -xJf .devrun/variants.tar.xz
F='*float_adm_p_norm*'
for b in $U/fp32pair_cuda_test .devrun/v/fp32pair_cuda_test_inline .devrun/v/fp32pair_cuda_test_inline_ptxas_O0; do
  log=$L/$(basename "$b").log
  echo "== $(basename "$b") $F" | tee -a "$S"
  timeout 120 "$b" --gtest_filter="$F" > "$log" 2>&1
  echo "rc $?" | tee -a "$S"
  grep -E '^\[  (PASSED|FAILED) |^\[==|fp32pair \]' "$log" | head -n 8 | tee -a "$S"
  grep -m 2 -A6 'Failure' "$log" | head -n 16 | tee -a "$S"
done
