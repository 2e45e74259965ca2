#!/usr/bin/env bash
# Whole-command throughput on the GPU machine: exactvmaf on cpu and cuda
# against upstream libvmaf's CLI (a stock build of f85a853, carried as
# UPSTREAM_VMAF) on the bench's generated raw 8-bit 4:2:0 pairs, frames from
# the page cache, best of REPEAT runs after a warm-up.
#
#   [WHAT=...] [CONTENT=natural] [SPECS=...] bench/device_compare.sh BUNDLE [UPSTREAM_VMAF] [REPEAT=3]
#
# WHAT: the arguments both CLIs get (default: -m path=MODELS/vmaf_v0.6.1.json;
# "{models}" is replaced by the bundle's models folder), e.g.
#   WHAT="-n --feature cambi" or WHAT="-m path={models}/vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json".
# CONTENT=natural: the bench's "@natural" pairs (smooth, banded pictures)
# instead of the noise-like ones. SPECS: "WxH:FRAMES ..." (the bench's sizes).
#
# BUNDLE is scripts/device-bundle.sh's folder with models/ (a copy of the
# repository's models/); the inputs are the ones exactvmaf_bench writes to
# $EXACTVMAF_BENCH_DIR (default /tmp/exactvmaf-bench).
set -uo pipefail
bundle="$(cd "${1:-.devrun}" && pwd)"
upstream="${2:-}"
repeat="${3:-3}"
export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
dir="${EXACTVMAF_BENCH_DIR:-/tmp/exactvmaf-bench}"
models="$bundle/models"
best() {  # frames command... -> best fps over $repeat runs (after one warm-up)
  local frames=$1 b=0 t0 t1 fps
  shift
  "$@" > /dev/null 2>&1 || { echo "error"; return; }
  for _ in $(seq "$repeat"); do
    t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
    b=$(awk -v n="$frames" -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { f = n / (z - a); print (f > b ? f : b) }')
  done
  printf "%.1f" "$b"
}
echo "| size | frames | threads | exactvmaf cpu fps | upstream cpu fps | ratio | exactvmaf cuda fps |"
echo "|---|---|---|---|---|---|---|"
default_what="-m path={models}/vmaf_v0.6.1.json"
what="${WHAT:-$default_what}"
what="${what//\{models\}/$models}"
read -r -a what_args <<< "$what"
content="${CONTENT:+${CONTENT}_}"
for spec in ${SPECS:-1920x1080:240 3840x2160:96}; do
  size=${spec%:*}; n=${spec#*:}; w=${size%x*}; h=${size#*x}
  ref="$dir/ref_${content}${size}_8b_420_${n}f.yuv"; dist="$dir/dist_${content}${size}_8b_420_${n}f.yuv"
  [ -s "$ref" ] || { echo "$ref missing (run exactvmaf_bench first)"; continue; }
  # Three copies back to back, so start-up (model, device context) is small
  # against the run; one thread scores the first quarter of a copy only.
  long_ref="$dir/long_ref_${content}${size}.yuv"; long_dist="$dir/long_dist_${content}${size}.yuv"
  [ -s "$long_ref" ] || for _ in 1 2 3; do cat "$ref"; done > "$long_ref"
  [ -s "$long_dist" ] || for _ in 1 2 3; do cat "$dist"; done > "$long_dist"
  all=$((3 * n))
  raw=(-r "$long_ref" -d "$long_dist" -w "$w" -h "$h" -p 420 -b 8 -q -o /dev/null "${what_args[@]}")
  for t in 1 16; do
    frames=$((t == 1 ? n / 4 : all))
    cnt=(--frame_cnt "$frames" --threads "$t")
    ours=$(best "$frames" "$bundle/exactvmaf" "${raw[@]}" "${cnt[@]}")
    up="-"; ratio="-"
    if [ -n "$upstream" ]; then
      up=$(best "$frames" "$upstream" "${raw[@]}" "${cnt[@]}")
      ratio=$(awk -v a="$ours" -v b="$up" 'BEGIN { printf "%.2f", a / b }')
    fi
    cuda=$(best "$all" "$bundle/exactvmaf" "${raw[@]}" --threads "$t" --backend cuda)
    echo "| $size | $frames | $t | $ours | $up | $ratio | $cuda (${t} threads, $all frames) |"
  done
  for t in 4 8; do
    echo "| $size | $all | $t | - | - | - | $(best "$all" "$bundle/exactvmaf" "${raw[@]}" --threads "$t" --backend cuda) |"
  done
done
