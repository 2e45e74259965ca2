#!/usr/bin/env bash
# The float features' throughput in one device call (docs/benchmarks.md,
# 2026-12-05): exactvmaf_bench rows on CUDA with --device_fp64 on and off,
# preloaded and from files, 1080p and 4K, beside the H2D ceiling and a
# vmaf_v0.6.1 baseline in the same run; the whole CLI on the CPU at 16
# threads against upstream's (.devrun-up/vmaf: stock f85a853 built here with
# meson -Denable_float=true -Ddefault_library=static, carried); and
# cuda_backend_test. Run from the repository root on the GPU machine, with
# .devrun/bundle.tar.xz from scripts/device-bundle.sh ... --pack (a CLI
# built with -DEXACTVMAF_LIBAV=OFF keeps the bundle small); results in $OUT.
set -uo pipefail
source tests/backends/device_bundle_env.sh
(timeout 300 $U/cuda_backend_test > $L/cuda_backend.log 2>&1; echo "cuda_backend_test: rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $L/cuda_backend.log | tr '\n' ' ')" >> $L/cb.txt; grep -E '^\[  FAILED  \] [A-Za-z]' $L/cuda_backend.log | sort -u | head >> $L/cb.txt) &
cb=$!
F='(float_vif|float_motion|float_ansnr|float_moment|float_ssim|float_ms_ssim|psnr_hvs|vmaf_float_v0.6.1)'
t0=$(date +%s)
$U/exactvmaf_bench --benchmark_filter="^(h2d/.*|vmaf_v0.6.1/cuda/3840x2160/threads:8/memory|$F/cuda/(1920x1080|3840x2160)/threads:8/(memory|file))/" \
  --benchmark_out=$L/bench_on.json --benchmark_out_format=json > $L/bench_on.txt 2>&1
echo "bench on: rc=$? $(( $(date +%s) - t0 ))s" | tee -a $S
t0=$(date +%s)
$U/exactvmaf_bench --benchmark_filter="^((float_vif|float_motion|float_ansnr|float_moment|float_ssim|psnr_hvs|vmaf_float_v0.6.1)/cuda-fp64off/(1920x1080|3840x2160)|float_ms_ssim/cuda-fp64off/1920x1080)/threads:8/memory/" \
  --benchmark_out=$L/bench_off.json --benchmark_out_format=json > $L/bench_off.txt 2>&1
echo "bench off: rc=$? $(( $(date +%s) - t0 ))s" | tee -a $S
wait $cb; cat $L/cb.txt | tee -a $S
# CPU, 16 threads, whole command, best of 2 after a warm-up: ours against
# upstream (stock f85a853, -Denable_float=true, carried) on the bench's
# 1080p pair (240 frames, page cache)
best() {  # frames command... -> best fps
  local n=$1 b=0 t0 t1; shift
  "$@" > /dev/null 2>&1 || { echo error; return; }
  for _ in 1 2; do t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N); b=$(awk -v n=$n -v a=$t0 -v z=$t1 -v b=$b 'BEGIN {f = n / (z - a); print (f > b ? f : b)}'); done
  printf "%.1f" "$b"
}
if [ -x .devrun-up/vmaf ]; then
  t0=$(date +%s)
  d=/tmp/exactvmaf-bench
  raw=(-r $d/ref_1920x1080_8b_420_240f.yuv -d $d/dist_1920x1080_8b_420_240f.yuv -w 1920 -h 1080 -p 420 -b 8 -q -o /dev/null --threads 16)
  echo "| feature | exactvmaf cpu 16 threads fps | upstream fps | ratio |" >> $S
  for f in float_vif float_motion float_ansnr float_moment float_ssim float_ms_ssim psnr_hvs model; do
    if [ $f = model ]; then what=(-m path=$U/models/vmaf_float_v0.6.1.json); upw=(-m path=$U/models/vmaf_float_v0.6.1.json); f=vmaf_float_v0.6.1
    else what=(-n --feature $f); upw=(--no_prediction --feature $f); fi
    o=$(best 240 $U/exactvmaf "${raw[@]}" "${what[@]}"); u=$(best 240 .devrun-up/vmaf "${raw[@]}" "${upw[@]}")
    echo "| $f | $o | $u | $(awk -v a=$o -v b=$u 'BEGIN {printf "%.2f", a / b}') |" | tee -a $S
  done
  echo "cpu compare: $(( $(date +%s) - t0 ))s" | tee -a $S
fi
grep -E "fps=" $L/bench_on.txt $L/bench_off.txt | sed -E 's/ +/ /g' | awk '{print $1, $NF, $(NF-1)}' | head -80 >> $S
cd $L && tar czf logs.tgz *.log *.txt *.json 2>/dev/null; rm -f *.log *.json bench_on.txt bench_off.txt cb.txt
