#!/usr/bin/env bash
# The CUDA backend's checks on a GPU machine, from a bundle made here with
#   scripts/device-bundle.sh BUILD_DIR .devrun
# Runs the CUDA tests (every *cuda*_test in the bundle), the feature, core,
# model and CLI tests, exactvmaf-parity on every fixture pair for the CUDA
# features' option sets (--device_fp64 on and off), two processes on the GPU
# at once, and (with "bench") throughput on generated frames; one log per step
# and summary.txt in LOG_DIR.
#
#   tests/backends/device_checks.sh [BUNDLE=.devrun] [LOG_DIR=device-logs] [bench]
#
# The test binaries read the fixtures and run the CLI from the paths they
# were built with (EXACTVMAF_SOURCE_DIR, EXACTVMAF_CLI); set BUILT_SOURCE_DIR
# and BUILT_CLI to those when they differ from the defaults below. Missing
# paths are made as symbolic links to this checkout and the bundle.
set -uo pipefail
src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$(cd "${1:-.devrun}" && pwd)"
# A packed bundle (scripts/device-bundle.sh ... --pack) is unpacked next to it.
if [ -f "$bundle/bundle.tar.xz" ] && [ ! -x "$bundle/exactvmaf" ]; then
  mkdir -p "$bundle/unpacked" && tar -C "$bundle/unpacked" -xJf "$bundle/bundle.tar.xz" && bundle="$bundle/unpacked"
fi
logs="${2:-device-logs}"
mode="${3:-}"
mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"
export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
# VMAF models are built in; the bundle also carries a copy of models/.
[ -d "$bundle/models" ] && export EXACTVMAF_MODEL_DIR="$bundle/models"
built_src="${BUILT_SOURCE_DIR:-/work/main}"
built_cli="${BUILT_CLI:-/work/build-cuda/tools/exactvmaf}"
if [ ! -e "$built_src" ]; then mkdir -p "$(dirname "$built_src")" && ln -s "$src_dir" "$built_src"; fi
if [ ! -e "$built_cli" ]; then mkdir -p "$(dirname "$built_cli")" && ln -s "$bundle/exactvmaf" "$built_cli"; fi
# cli_test also runs the parity tool from beside the CLI.
built_parity="$(dirname "$built_cli")/exactvmaf-parity"
if [ ! -e "$built_parity" ]; then ln -s "$bundle/exactvmaf-parity" "$built_parity"; fi

summary="$logs/summary.txt"
: > "$summary"
nvidia-smi > "$logs/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >> "$summary"
status=0

# PARITY_ONLY=1: only the exactvmaf-parity runs below (a short device call).
# TESTS_ONLY=1: only the test binaries and the SASS check (the parity runs
# then go in a second call: the whole script can outlast one device call).
# TEST_JOBS binaries at once (default 1; they share the GPU, each its own
# streams); their lines come in the list's order.
tests=$(cd "$bundle" && ls *cuda*_test 2>/dev/null)
if [ "${PARITY_ONLY:-0}" != 1 ]; then
  test_list=()
  for t in $tests feature_motion_test feature_vif_test feature_adm_test feature_float_adm_test feature_speed_test feature_ciede_test feature_cambi_test model_test core_test cli_test; do
    if [ -x "$bundle/$t" ]; then
      test_list+=("$t")
      while [ "$(jobs -rp | wc -l)" -ge "${TEST_JOBS:-1}" ]; do wait -n; done
      ( "$bundle/$t" > "$logs/$t.log" 2>&1; echo $? > "$logs/$t.rc" ) &
    else
      echo "$t: not in the bundle" | tee -a "$summary"
    fi
  done
  wait
  for t in "${test_list[@]}"; do
    rc=$(cat "$logs/$t.rc" 2>/dev/null || echo 99)
    echo "$t: exit $rc; $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$t.log" | tr '\n' ' ')$(grep -E '^\[  SKIPPED \] [A-Za-z]' "$logs/$t.log" | sort -u | wc -l) skipped" \
      | tee -a "$summary"
    grep -E '^\[  FAILED  \] [A-Za-z]|no CUDA device' "$logs/$t.log" | sort -u | head -20 | sed 's/^/  /' | tee -a "$summary"
    [ "$rc" = 0 ] || status=1
  done
fi

# No fp64 instruction in the fp32pair kernels' machine code (cuobjdump is in
# the GPU machine's CUDA toolkit, not in the developer machines' nvcc-only one).
sass_tool="$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)"
if [ "${PARITY_ONLY:-0}" = 1 ]; then
  :
elif [ -x "$sass_tool" ]; then
  PATH="$(dirname "$sass_tool"):$PATH" "$src_dir/tests/numeric/fp64_free_check.sh" sass "$bundle/exactvmaf" \
    > "$logs/fp64_free_sass.log" 2>&1
  rc=$?
  echo "fp32pair SASS: exit $rc; $(tail -1 "$logs/fp64_free_sass.log")" | tee -a "$summary"
  grep '^FAIL' "$logs/fp64_free_sass.log" | head -20 | sed 's/^/  /' | tee -a "$summary"
  [ $rc -eq 0 ] || status=1
else
  echo "fp32pair SASS: cuobjdump not found" | tee -a "$summary"
  status=1
fi

if [ "${TESTS_ONLY:-0}" = 1 ]; then
  echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL) (TESTS_ONLY)" | tee -a "$summary"
  exit $status
fi

# exactvmaf-parity on every fixture pair: cuda at 1 and 4 threads against
# the cpu, for each option set and model, once with the device's fp64 and once
# without (--device_fp64 on, off; PARITY_FP64 overrides); each must pass.
python3 - "$src_dir/tests/fixtures/manifest.json" > "$logs/pairs.txt" <<'EOF'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
for p in m["pairs"]:
    raw = "" if p["container"] == "y4m" else f'-w {p["width"]} -h {p["height"]} -p {p["pixel_format"]} -b {p["bitdepth"]}'
    print(p["name"], os.path.join(d, p["ref"]), os.path.join(d, p["dist"]), raw)
EOF
# exactvmaf-parity's exit: 0 identical, 1 different, 2 the input was refused
# (counted, not a failure), 3 an internal or CUDA error (a failure).
count_parity() {
  case $1 in
    0) ;;
    2) parity_skip=$((parity_skip + 1)) ;;
    3) parity_error=$((parity_error + 1)) ;;
    *) parity_fail=$((parity_fail + 1)) ;;
  esac
}
# The option sets: tests/golden/runs.json's parity_sets (PARITY_SETS overrides).
sets="${PARITY_SETS:-$(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["parity_sets"]))' \
  "$src_dir/tests/golden/runs.json")}"
[ -n "$sets" ] || { echo "device_checks: no parity sets in tests/golden/runs.json" | tee -a "$summary"; exit 1; }
# PARITY_JOBS runs at once (default 4; each process has its own streams):
# the logs are joined in the list's order afterwards.
parity_jobs="${PARITY_JOBS:-4}"
for fp64 in ${PARITY_FP64:-on off}; do
  plog="$logs/parity-fp64-$fp64.log"
  pdir="$logs/parity-fp64-$fp64"
  rm -rf "$pdir" && mkdir -p "$pdir"
  : > "$plog"
  parity_fail=0
  parity_skip=0
  parity_error=0
  jobs_list=()  # "title|args" per run, in order
  while read -r name ref dist raw; do
    for f in $sets; do
      jobs_list+=("$name --feature $f --device_fp64 $fp64|-r $ref -d $dist $raw --feature $f --threads 4 --device_fp64 $fp64")
    done
    # VMAF: the default model's features together in one graph, and the score
    # (models from $bundle/models, a copy of the repository's models/);
    # vmaf_float_v0.6.1: float_adm, float_vif and float_motion together;
    # VMAF v1.0.16: cambi, speed_chroma, adm and motion together (pairs below
    # cambi's 216-sample minimum are refused: exit 2, counted apart)
    jobs_list+=("$name -m version=vmaf_v0.6.1 --device_fp64 $fp64|-r $ref -d $dist $raw -m version=vmaf_v0.6.1 --model_dir $bundle/models --threads 3 --device_fp64 $fp64")
    jobs_list+=("$name -m version=vmaf_float_v0.6.1 --device_fp64 $fp64|-r $ref -d $dist $raw -m version=vmaf_float_v0.6.1 --model_dir $bundle/models --threads 3 --device_fp64 $fp64")
    jobs_list+=("$name -m version=vmaf_v1.0.16_3d0h --device_fp64 $fp64|-r $ref -d $dist $raw -m version=vmaf_v1.0.16_3d0h --model_dir $bundle/models --threads 4 --device_fp64 $fp64")
  done < "$logs/pairs.txt"
  for k in "${!jobs_list[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parity_jobs" ]; do wait -n; done
    # shellcheck disable=SC2086
    ( "$bundle/exactvmaf-parity" ${jobs_list[$k]#*|} > "$pdir/$k.log" 2>&1; echo $? > "$pdir/$k.rc" ) &
  done
  wait
  for k in "${!jobs_list[@]}"; do
    echo "== ${jobs_list[$k]%%|*}" >> "$plog"
    cat "$pdir/$k.log" >> "$plog"
    count_parity "$(cat "$pdir/$k.rc" 2>/dev/null || echo 3)"
  done
  rm -rf "$pdir"
  echo "parity, --device_fp64 $fp64: $(grep -c 'PARITY: identical' "$plog") identical, $parity_fail differ, $parity_error internal or CUDA errors (exit 3), $parity_skip refused (exit 2)" | tee -a "$summary"
  grep -B3 -E 'PARITY: (DIFFER|differ)|error' "$plog" | head -30 | sed 's/^/  /' | tee -a "$summary"
  [ $parity_fail -eq 0 ] && [ $parity_error -eq 0 ] || status=1
done

if [ "${PARITY_ONLY:-0}" = 1 ]; then
  echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL) (PARITY_ONLY)" | tee -a "$summary"
  exit $status
fi

# Generated frames (random samples: the worst case for the blur's zero-row
# shortcut on the cpu; the same work on the gpu). Page cache after the first pass.
work="${BENCH_DIR:-/tmp/exactvmaf-bench}"
mkdir -p "$work"
make_input() {  # w h frames -> path
  local f="$work/r_${1}x${2}.yuv"
  [ -s "$f" ] || head -c $(($1 * $2 * 3 / 2 * $3)) /dev/urandom > "$f"
  echo "$f"
}

# Two processes on one GPU at once, each against the cpu's output.
f1080="$(make_input 1920 1080 300)"
args=(-r "$f1080" -d "$f1080" -w 1920 -h 1080 -p 420 -b 8 --frame_cnt 200 --json --precision max -q)
fa=(--feature motion=debug=true --feature vif ${TWO_EXTRA:-})
fb=(--feature motion=motion_five_frame_window=true --feature vif=debug=true ${TWO_EXTRA:-})
"$bundle/exactvmaf" "${args[@]}" -n "${fa[@]}" --backend cpu -o "$work/two_cpu_a.json"
"$bundle/exactvmaf" "${args[@]}" -n "${fb[@]}" --backend cpu -o "$work/two_cpu_b.json"
"$bundle/exactvmaf" "${args[@]}" -n "${fa[@]}" --backend cuda --threads 4 -o "$work/two_cuda_a.json" &
pa=$!
"$bundle/exactvmaf" "${args[@]}" -n "${fb[@]}" --backend cuda --threads 3 -o "$work/two_cuda_b.json" &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
same() { diff <(grep -v '"fps"' "$1") <(grep -v '"fps"' "$2") > /dev/null; }
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && same "$work/two_cpu_a.json" "$work/two_cuda_a.json" \
   && same "$work/two_cpu_b.json" "$work/two_cuda_b.json"; then
  echo "two processes at once: both outputs equal the cpu's" | tee -a "$summary"
else
  echo "two processes at once: FAIL (exit $ra, $rb or outputs differ)" | tee -a "$summary"
  status=1
fi

# The libvmaf C API under FFmpeg (and, with bench, its fps beside the CLI's).
# shellcheck source=../libvmaf/device_ffmpeg_checks.sh
source "$src_dir/tests/libvmaf/device_ffmpeg_checks.sh"

if [ "$mode" = bench ] && [ -x "$bundle/exactvmaf_bench" ]; then
  # fps per feature x backend x size x threads x source, the pinned H2D
  # ceiling (h2d/...), in one run so the ratios compare like with like.
  # cambi (defaults and the v1.0.16 options) and the v1.0.16 models: 1080p and 4K rows only.
  # cuda with and without fp64 (cuda-fp64off) side by side.
  filter="${BENCH_FILTER:-(h2d/|(null|motion|vif|adm|vmaf_v0.6.1|cambi[^/@]*|vmaf_v1\.0\.16_3d0h(_2160)?)/(cpu/[^/]*/threads:16|cuda(-fp64off)?/[^/]*/threads:(4|8|16))/|(vmaf_v0.6.1|vmaf_v1\.0\.16_3d0h(_2160)?)/cpu/[^/]*/threads:1/).*(1920x1080|3840x2160)}"
  "$bundle/exactvmaf_bench" --benchmark_filter="$filter" --benchmark_out="$logs/bench.json" \
    --benchmark_out_format=json > "$logs/bench.txt" 2>&1
  echo "bench: exit $?; $(grep -c fps= "$logs/bench.txt") rows (bench.txt, bench.json)" | tee -a "$summary"
fi
echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$summary"
# One archive as well (the device tool returns at most 8 files).
tar -C "$logs" -czf "$logs/../device-logs.tgz" . 2>/dev/null
exit $status
