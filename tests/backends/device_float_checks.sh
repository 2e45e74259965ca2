#!/usr/bin/env bash
# The float features' GPU tier in one device call (docs/parity.md, 2026-12-05): the
# CUDA tests of float_vif, float_motion, float_ansnr, float_moment, float_ssim,
# float_ms_ssim and psnr_hvs side by side, the SASS check, and the parity sets
# of those features on every fixture pair with --device_fp64 on and off.
# Run from the repository root on the GPU machine, with .devrun/bundle.tar.xz
# from scripts/device-bundle.sh ... --pack; logs in $OUT (summary.txt, logs.tgz).
set -uo pipefail
source tests/backends/device_bundle_env.sh
run() {  # name binary args... (a binary the bundle lacks is left out)
  local n=$1; shift
  [ -x "$1" ] || return 0
  local t0=$(date +%s)
  timeout ${TMO:-400} "$@" > $L/$n.log 2>&1; local rc=$?
  echo "$n: rc=$rc $(( $(date +%s) - t0 ))s $(grep -E '^\[  (PASSED|FAILED) ' $L/$n.log | tr '\n' ' ')" | tee -a $S
  grep -E '^\[  FAILED  \] [A-Za-z]' $L/$n.log | sort -u | head -8 | sed 's/^/  /' | tee -a $S
}
# PARITY_ONLY=1: the parity sets only (tests/backends/device_multi_gpu.sh);
# PARITY_GPU: exactvmaf-parity's --gpu (default 0; "0,0" spreads the cuda
# runs over two entries on one GPU).
if [ -z "${PARITY_ONLY:-}" ]; then
# the new and the blind-written workers, in parallel (16 cores, one GPU)
run float_vif_motion $U/float_vif_motion_cuda_test &
run ansnr_moment $U/ansnr_moment_cuda_test &
run ssim $U/ssim_cuda_test &
run psnr_hvs $U/psnr_hvs_cuda_test &
run fp32pair $U/fp32pair_cuda_test --gtest_filter='*float_vif*:DeviceFp64Choice*:CudaFp32Pair.*:CudaFp32PairGoldenSet*' &
wait
PATH=/usr/local/cuda/bin:$PATH tests/numeric/fp64_free_check.sh sass $U/exactvmaf-parity > $L/sass.log 2>&1; echo "sass: rc=$? $(tail -1 $L/sass.log)" | tee -a $S
grep '^FAIL' $L/sass.log | head | tee -a $S
fi
# parity sets of the float features and the float model, fp64 on and off
python3 - tests/fixtures/manifest.json > $L/pairs.txt <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1])); d = os.path.dirname(sys.argv[1])
for p in m["pairs"]:
    raw = "" if p["container"] == "y4m" else f'-w {p["width"]} -h {p["height"]} -p {p["pixel_format"]} -b {p["bitdepth"]}'
    print(p["name"], os.path.join(d, p["ref"]), os.path.join(d, p["dist"]), raw)
PY
# PARITY_ALL=1: every parity set of runs.json and the three models' feature sets
if [ -n "${PARITY_ALL:-}" ]; then
  sets=$(python3 -c 'import json; print(" ".join(json.load(open("tests/golden/runs.json"))["parity_sets"]))')
  models="-m_version=vmaf_v0.6.1 -m_version=vmaf_float_v0.6.1 -m_version=vmaf_v1.0.16_3d0h"
else
  sets=$(python3 -c 'import json; print(" ".join(s for s in json.load(open("tests/golden/runs.json"))["parity_sets"] if s.split("=")[0] in ("float_vif","float_motion","float_ansnr","float_moment","float_ssim","float_ms_ssim","psnr_hvs")))')
  models="-m_version=vmaf_float_v0.6.1"
fi
echo "sets: $sets" >> $S
# one job per pair x set x variant, 12 at a time; exit 0 identical, 1 differ, 2 refused, 3 error
: > $L/jobs.txt
n=0
for fp64 in on off; do
  while read -r name r d raw; do
    for f in $sets $models; do
      n=$((n+1)); echo "$n|$fp64|$name|$r|$d|$raw|$f" >> $L/jobs.txt
    done
  done < $L/pairs.txt
done
mkdir -p $L/par
job() {
  IFS='|' read -r n fp64 name r d raw f <<< "$1"
  if [[ $f == -m_* ]]; then a=(-m "${f#-m_}"); else a=(--feature "$f"); fi
  $U/exactvmaf-parity -r $r -d $d $raw "${a[@]}" --threads 4 --cpu_threads 2 --no_graphs --device_fp64 $fp64 --gpu "${PARITY_GPU:-0}" > $L/par/$n.log 2>&1
  echo "$? $fp64 $name $f" > $L/par/$n.rc
}
export -f job; export U L PARITY_GPU
t0=$(date +%s)
tr '\n' '\0' < $L/jobs.txt | timeout ${PARITY_SECONDS:-1800} xargs -0 -P 14 -I{} bash -c 'job "$@"' _ {}
for fp64 in on off; do
  cat $L/par/*.rc | awk -v v=$fp64 '$2==v {c[$1]++} END {printf "parity fp64=%s: %d identical, %d differ, %d refused, %d errors\n", v, c[0], c[1], c[2], c[3]}' | tee -a $S
done
echo "parity: $(ls $L/par/*.rc | wc -l) of $(wc -l < $L/jobs.txt) jobs finished in $(( $(date +%s) - t0 ))s" | tee -a $S
awk '$1==1 || $1==3' $L/par/*.rc | head -10 | tee -a $S
grep -h "recomputed on the host" $L/par/*.log | grep -v " 0 of " | sort | uniq -c | head -10 | tee -a $S
cat $L/par/*.log > $L/parity.log; rm -rf $L/par
cd $L && tar czf logs.tgz *.log && rm -f *.log pairs.txt
