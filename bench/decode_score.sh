#!/usr/bin/env bash
# Decode + score against decode alone (issue 17 item 8, CPU decoding): for
# each pair of compressed files, the best of REPEAT wall times of
#   decode   ffmpeg decoding both inputs to nothing (the floor),
#   direct   exactvmaf -r REF -d DIST (libavcodec inside, both decoders on
#            their own reader threads),
#   pipe     ffmpeg -i REF -f yuv4mpegpipe - | exactvmaf -r - -d DIST,
#   raw      exactvmaf on the same frames as raw .yuv files (scoring alone),
# for a FEATURES list (default: vmaf_v0.6.1 and psnr alone, where decoding
# weighs most). Prints one markdown row per pair, feature and way.
#
#   EXACTVMAF=build/tools/exactvmaf THREADS=2 bench/decode_score.sh \
#     WxH:REF.mkv:DIST.mkv:REF.yuv:DIST.yuv ...
set -euo pipefail
E=${EXACTVMAF:-build/tools/exactvmaf}
FFMPEG=${FFMPEG:-ffmpeg}
T=${THREADS:-0}
REPEAT=${REPEAT:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
best() {  # best wall seconds of REPEAT runs of "$@"
  local b=""
  for _ in $(seq "$REPEAT"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null 2> "$tmp/err" || { echo "failed: $* ($(tail -n 1 "$tmp/err"))" >&2; exit 1; }
    t1=$(date +%s%N)
    local s=$(( (t1 - t0) / 1000000 ))
    if [ -z "$b" ] || [ "$s" -lt "$b" ]; then b=$s; fi
  done
  echo "$b"
}
pipe_run() { "$FFMPEG" -hide_banner -loglevel error -nostdin -threads "$T" -i "$1" -fps_mode passthrough \
               -f yuv4mpegpipe - | "$E" -r - -d "$2" --threads "$T" -q -o /dev/null "${@:3}"; }
echo "| size | frames | distorted | feature | way | wall s | fps | vs decode |"
echo "|---|---|---|---|---|---|---|---|"
for spec in "$@"; do
  IFS=: read -r size ref dist ref_yuv dist_yuv <<< "$spec"
  w=${size%x*}; h=${size#*x}
  frames=$("$E" -r "$ref" -d "$dist" -n --feature psnr --json -q -o "$tmp/n.json" 2>/dev/null &&
           python3 -c "import json,sys; print(len(json.load(open('$tmp/n.json'))['frames']))")
  codec=$({ "$FFMPEG" -hide_banner -i "$dist" 2>&1 || true; } | sed -nE 's/.*Video: ([a-z0-9]+).*/\1/p' | head -n 1)
  dec=$(best "$FFMPEG" -hide_banner -loglevel error -nostdin -threads "$T" -i "$ref" -i "$dist" \
          -map 0:v -f null - -map 1:v -f null -)
  row() { echo "| $size | $frames | $codec | $1 | $2 | $(awk -v m="$3" 'BEGIN {printf "%.2f", m / 1000}') |" \
               "$(awk -v f="$frames" -v m="$3" 'BEGIN {printf "%.1f", f * 1000 / m}') |" \
               "$(awk -v m="$3" -v d="$dec" 'BEGIN {printf "%.2f", m / d}') |"; }
  row "-" decode "$dec"
  for feature in ${FEATURES:-vmaf_v0.6.1 psnr}; do
    if [ "$feature" = psnr ]; then f=(-n --feature psnr); else f=(-m "version=$feature"); fi
    row "$feature" direct "$(best "$E" -r "$ref" -d "$dist" --threads "$T" -q -o /dev/null "${f[@]}")"
    row "$feature" pipe "$(best pipe_run "$ref" "$dist" "${f[@]}")"
    row "$feature" raw "$(best "$E" -r "$ref_yuv" -d "$dist_yuv" -w "$w" -h "$h" -p 420 -b 8 --threads "$T" -q \
                          -o /dev/null "${f[@]}")"
  done
done
