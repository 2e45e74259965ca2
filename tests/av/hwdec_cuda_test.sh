#!/usr/bin/env bash
# --hwdec cuda against the CPU's decoders (docs/input.md, docs/parity.md): the
# lossy fixtures decoded by NVDEC into device memory and scored by the cuda
# backend give the same report, bit for bit, as the same files decoded on the
# CPU and scored by the cpu backend; every frame went to the pipeline in
# device memory (counted and asserted), and no frame went back to the host
# unless a host step read it (float_moment's may, so its count is asserted).
# Exits 77 (skipped) without a usable CUDA device or an NVDEC-capable build.
#
#   tests/av/hwdec_cuda_test.sh EXACTVMAF_CLI FIXTURES_DIR
set -uo pipefail
cli="$1"
fx="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

probe="$("$cli" -r "$fx/c01_176x144_8b_420_ref.y4m" -d "$fx/av/lossy_176x144_8b.h264.mp4" -n --feature psnr \
  --backend cuda --hwdec cuda -q -o /dev/null 2>&1)"
case "$probe" in
  *"no usable CUDA device"*|*"built without CUDA"*|*"no CUDA device"*)
    echo "SKIPPED: no CUDA device or no NVDEC-capable build: $probe"; exit 77 ;;
esac

fail=0
masked() { grep -v '"fps"' "$1"; }
# run NAME REF DIST FRAMES DOWNLOADS FEATURE_ARGS...: cuda+hwdec against cpu.
run() {
  local name="$1" ref="$2" dist="$3" frames="$4" downloads="$5"
  shift 5
  "$cli" -r "$ref" -d "$dist" "$@" --json --precision max --backend cpu -q -o "$tmp/$name.cpu.json" \
    2> "$tmp/$name.cpu.err" || { echo "FAIL $name: cpu run: $(cat "$tmp/$name.cpu.err")"; fail=1; return; }
  "$cli" -r "$ref" -d "$dist" "$@" --json --precision max --backend cuda --hwdec cuda -o "$tmp/$name.gpu.json" \
    2> "$tmp/$name.gpu.err" || { echo "FAIL $name: cuda run: $(cat "$tmp/$name.gpu.err")"; fail=1; return; }
  if ! diff <(masked "$tmp/$name.cpu.json") <(masked "$tmp/$name.gpu.json") > "$tmp/$name.diff"; then
    echo "FAIL $name: reports differ; first difference:"; head -4 "$tmp/$name.diff"; fail=1; return
  fi
  if ! grep -q "nvdec on GPU [0-9]* (.*), $frames frames in device memory" "$tmp/$name.gpu.err"; then
    echo "FAIL $name: not $frames frames from NVDEC in device memory:"; cat "$tmp/$name.gpu.err"; fail=1; return
  fi
  local got
  got="$(sed -n 's/.*copied to the host for host steps: \([0-9]*\).*/\1/p' "$tmp/$name.gpu.err")"
  if [ "${got:-0}" != "$downloads" ]; then
    echo "FAIL $name: ${got:-0} frames copied back to the host, expected $downloads"; fail=1; return
  fi
  echo "ok   $name: $frames frames decoded on the GPU, same report as the CPU, $downloads copied back"
}

ref8="$fx/c01_176x144_8b_420_ref.y4m"
ref10="$fx/c03_176x144_10b_420_ref.y4m"
for clip in lossy_176x144_8b.h264.mp4 lossy_176x144_8b.hevc.mkv lossy_176x144_8b.vp9.webm; do
  run "$clip.vmaf" "$ref8" "$fx/av/$clip" 10 0
  run "$clip.chroma" "$ref8" "$fx/av/$clip" 10 0 -n --feature psnr --feature ciede --feature float_ssim
done
# 10-bit HEVC: P010 surfaces, samples moved from the high bits.
run hevc10.vmaf "$ref10" "$fx/av/lossy_176x144_10b.hevc.mp4" 4 0
run hevc10.chroma "$ref10" "$fx/av/lossy_176x144_10b.hevc.mp4" 4 0 -n --feature psnr --feature ciede
# A host step that reads every frame's samples (float_moment's CUDA worker
# does not say it never does): copied back, same bits.
run h264.moment "$ref8" "$fx/av/lossy_176x144_8b.h264.mp4" 10 10 -n --feature float_moment --feature motion
# --scale WxH on the GPU (the R scaler there) against the host's R scaler.
# scaled NAME TEXT ARGS...: as run, and the GPU run's summary says TEXT and
# that NVDEC's frames were resized on the GPU.
scaled() {
  local name="$1" text="$2"
  shift 2
  run "$name" "$@"
  if ! grep -qF "$text" "$tmp/$name.gpu.err" || ! grep -qF "surfaces, resized there)" "$tmp/$name.gpu.err"; then
    echo "FAIL $name: not scaled on the GPU ($text):"; cat "$tmp/$name.gpu.err"; fail=1
  fi
}
scaled hevc.scale "176x144 -> 352x288 bicubic (R scaler)" \
  "$ref8" "$fx/av/lossy_176x144_8b.hevc.mkv" 10 0 --scale 352x288 --scale_both -n --feature psnr --feature vif --feature motion
scaled h264.scale_both "176x144 -> 240x196 lanczos (R scaler)" \
  "$fx/av/lossy_176x144_8b.h264.mp4" "$fx/av/lossy_176x144_8b.vp9.webm" 10 0 --scale 240x-1:lanczos --scale_both
scaled hevc10.scale "176x144 -> 100x80 bilinear (R scaler)" \
  "$ref10" "$fx/av/lossy_176x144_10b.hevc.mp4" 4 0 --scale 100x80:bilinear --scale_both -n --feature psnr --feature float_ssim
# A resize the R scaler refuses (over 170 taps): the input is decoded on the
# CPU instead (said so) and libswscale scales it, as without --hwdec.
"$cli" -r "$ref8" -d "$fx/av/lossy_176x144_8b.hevc.mkv" --scale 4x4 --scale_both -n --feature psnr --json \
  --precision max --backend cpu -q -o "$tmp/tiny.cpu.json" 2> "$tmp/tiny.cpu.err"
"$cli" -r "$ref8" -d "$fx/av/lossy_176x144_8b.hevc.mkv" --scale 4x4 --scale_both -n --feature psnr --json \
  --precision max --backend cuda -o "$tmp/tiny.gpu.json" 2> "$tmp/tiny.gpu.err"
if ! diff <(masked "$tmp/tiny.cpu.json") <(masked "$tmp/tiny.gpu.json") > /dev/null ||
   ! grep -q "hwdec: rscale: .*; decoded on the CPU" "$tmp/tiny.gpu.err"; then
  echo "FAIL tiny.scale: not the CPU's report, or the fallback not said:"; cat "$tmp/tiny.gpu.err"; fail=1
else
  echo "ok   tiny.scale: the R scaler's refusal sends the input to the CPU's decoder, same report"
fi
# Both inputs compressed, the reference in a codec NVDEC lacks (ffv1: decoded on the CPU, said so).
run ffv1_ref "$fx/av/c01_176x144_8b_420_ref.ffv1.mkv" "$fx/av/c01_176x144_8b_420_dist.x264.mp4" 10 0
if ! grep -q "hwdec: NVDEC is used for h264, hevc and vp9 only, not ffv1; decoded on the CPU" "$tmp/ffv1_ref.gpu.err"; then
  echo "FAIL ffv1_ref: the CPU decoding of the ffv1 reference is not reported"; cat "$tmp/ffv1_ref.gpu.err"; fail=1
fi
exit $fail
