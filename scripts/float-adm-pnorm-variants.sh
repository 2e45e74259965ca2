#!/usr/bin/env bash
# Reproduces the inlined float_adm p-norm fault (docs/fp64-free.md §11):
# builds fp32pair_cuda_test again from a CUDA build (Ninja) with
# float_adm_cuda.cu compiled with EXACTVMAF_FLOAT_ADM_INLINE_SF64_POW (the
# Sf64 powf inlined into row_terms_kernel, which returned other values than
# the host on the H100 and H200), once as is ("inline") and once with ptxas
# at -O0 ("inline_ptxas_O0", to tell a ptxas optimisation from the source),
# and packs both for the GPU machine:
#
#   scripts/float-adm-pnorm-variants.sh BUILD_DIR [OUT_DIR]   (default .devrun)
#
# OUT_DIR/variants.tar.xz holds fp32pair_cuda_test_inline and
# fp32pair_cuda_test_inline_ptxas_O0; on the GPU machine
# tests/backends/device_float_adm_pnorm.sh runs them beside the default build.
set -euo pipefail
build="$(cd "${1:?usage: scripts/float-adm-pnorm-variants.sh BUILD_DIR [OUT_DIR]}" && pwd)"
out="$(mkdir -p "${2:-.devrun}" && cd "${2:-.devrun}" && pwd)"
obj=src/CMakeFiles/exactvmaf_objs.dir/features/float_adm/float_adm_cuda.cu.o
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cd "$build"
compile="$(ninja -t commands exactvmaf | grep -F -- "-o $obj" | grep -F -- "float_adm_cuda.cu -o" | head -n 1)"
# The link step alone (the rule also runs gtest's test discovery after a cd).
link="$(ninja -t commands tests/backends/fp32pair_cuda_test | tail -n 1 | sed 's/ && /\n/g' |
        grep -F -- ' -o tests/backends/fp32pair_cuda_test ' | head -n 1)"
[ -n "$compile" ] && [ -n "$link" ] || { echo "no float_adm_cuda.cu or fp32pair_cuda_test in $build" >&2; exit 1; }
declare -A flags=([inline]="-DEXACTVMAF_FLOAT_ADM_INLINE_SF64_POW"
                  [inline_ptxas_O0]="-DEXACTVMAF_FLOAT_ADM_INLINE_SF64_POW -Xptxas -O0")
for v in "${!flags[@]}"; do
  mkdir -p "$tmp/$v"
  c="${compile/ -MD / ${flags[$v]} -MD }"
  c="${c/-MF $obj.d/-MF $tmp/$v/dep.d}"
  eval "${c% -o $obj} -o $tmp/$v/float_adm_cuda.cu.o"
  cp src/libexactvmaf.a "$tmp/$v/libexactvmaf.a"
  (cd "$tmp/$v" && ar r libexactvmaf.a float_adm_cuda.cu.o)
  l="${link/src\/libexactvmaf.a/$tmp/$v/libexactvmaf.a}"
  (eval "${l/-o tests\/backends\/fp32pair_cuda_test /-o $tmp/fp32pair_cuda_test_$v }")
  strip "$tmp/fp32pair_cuda_test_$v"
done
tar -C "$tmp" -cJf "$out/variants.tar.xz" fp32pair_cuda_test_inline fp32pair_cuda_test_inline_ptxas_O0
ls -la "$out/variants.tar.xz"
