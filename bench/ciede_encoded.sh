#!/usr/bin/env bash
# ciede on the CPU against upstream libvmaf on encoded 1080p content (issue
# 18 item 4): makes 1080p 8-bit 4:2:0 sources with FFmpeg's generators
# (grain, gradients, a zoomed still; no camera clip is at hand), encodes each
# with libx264 (crf 23) and libx265 (crf 28), decodes them back to raw (the
# distorted inputs; the source is the reference), then times both CLIs at one
# thread, interleaved, and checks that the per-frame values agree.
#
#   [FRAMES=30] [ROUNDS=3] [SIMD="avx512 avx2"] [CLIPS="..."] [NATURAL=FILE] \
#     bench/ciede_encoded.sh EXACTVMAF UPSTREAM_VMAF [WORK_DIR=/tmp/ciede-encoded]
#
# NATURAL: a raw 1080p 8-bit 4:2:0 file to encode too (the bench's natural
# reference, /tmp/exactvmaf-bench/ref_natural_1920x1080_8b_420_240f.yuv,
# which exactvmaf_bench writes for its "@natural" rows).
# Needs ffmpeg with libx264 and libx265 (Debian's `ffmpeg` package). Prints a
# Markdown table: minimum wall seconds of ROUNDS runs and upstream / ours.
set -euo pipefail
ours="$1"
upstream="$2"
work="${3:-/tmp/ciede-encoded}"
frames="${FRAMES:-30}"
rounds="${ROUNDS:-3}"
simds="${SIMD:-avx512 avx2}"
made=60  # frames made per source
mkdir -p "$work"
cd "$work"
ff="ffmpeg -hide_banner -loglevel error -y"
raw="-f rawvideo -pix_fmt yuv420p"
make_source() {  # name lavfi-graph
  [ -s "src_$1.yuv" ] || $ff -f lavfi -i "$2" -frames:v $made -vf format=yuv420p $raw "src_$1.yuv"
}
make_source mandel "mandelbrot=s=1920x1080:r=30:start_scale=0.3:end_scale=0.05:inner=mincol,gblur=sigma=1.2,noise=alls=4:allf=t"
make_source grainheavy "gradients=s=1920x1080:r=30:n=8:speed=0.03:seed=7:type=radial,noise=alls=6:allf=t"
make_source gradients "gradients=s=1920x1080:r=30:n=6:speed=0.05:type=linear:c0=#d04020:c1=#2060c0:c2=#f0d060:c3=#30a050:c4=#602080:c5=#e0e0e0,format=yuv420p,noise=alls=3:allf=t"
make_source life "life=s=480x270:r=30:mold=25:ratio=0.15:seed=3:life_color=#FFD080:death_color=#203858:mold_color=#A03020,scale=1920:1080:flags=bicubic,gblur=sigma=3,noise=alls=5:allf=t"
make_source testsrc2nb "testsrc2=s=1920x1080:r=30,noise=alls=20:allf=t,gblur=sigma=1.5"
if [ ! -s src_zoompan.yuv ]; then
  # The most camera-like: a textured 4K still, slowly zoomed and panned, with grain.
  $ff -f lavfi -i "mandelbrot=s=3840x2160:start_scale=1.2,format=gbrp" \
      -f lavfi -i "gradients=s=3840x2160:n=6:seed=11:type=spiral,format=gbrp" \
      -f lavfi -i "cellauto=s=960x540:rule=30:seed=5,scale=3840:2160:flags=bicubic,gblur=sigma=6,format=gbrp" \
      -filter_complex "[0][1]blend=all_mode=overlay[a];[a][2]blend=all_mode=softlight,gblur=sigma=1" -frames:v 1 still.png
  $ff -loop 1 -framerate 30 -i still.png -frames:v $made \
      -vf "zoompan=z='1+0.004*on':x='iw/2-(iw/zoom/2)+3*on':y='ih/2-(ih/zoom/2)+2*on':d=1:s=1920x1080:fps=30,noise=alls=4:allf=t,format=yuv420p" \
      $raw src_zoompan.yuv
fi
sources="mandel grainheavy gradients life testsrc2nb zoompan"
if [ -n "${NATURAL:-}" ]; then
  [ -s src_natural.yuv ] || head -c $((1920 * 1080 * 3 / 2 * made)) "$NATURAL" > src_natural.yuv
  sources="natural $sources"
fi
for s in $sources; do
  in="-f rawvideo -pix_fmt yuv420p -s 1920x1080 -r 30 -i src_$s.yuv"
  [ -s "dis_${s}_x264.yuv" ] || { $ff $in -c:v libx264 -preset medium -crf 23 "${s}_x264.mp4" && $ff -i "${s}_x264.mp4" $raw "dis_${s}_x264.yuv"; }
  [ -s "dis_${s}_x265.yuv" ] || { $ff $in -c:v libx265 -preset medium -crf 28 -x265-params log-level=error "${s}_x265.mp4" &&
                                  $ff -i "${s}_x265.mp4" $raw "dis_${s}_x265.yuv"; }
done

seconds() {  # command... -> wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
minimum() { tr ' ' '\n' | grep . | sort -g | head -1; }
per_frame() { grep -o '"ciede2000": [^,}]*' "$1" | head -n "$frames"; }
header="| clip | upstream s |"
rule="|---|---|"
for v in $simds; do header="$header ours $v s | upstream / ours $v |"; rule="$rule---|---|"; done
echo "$header values"
echo "$rule---|"
for clip in ${CLIPS:-$(for s in $sources; do echo "${s}_x264 ${s}_x265"; done)}; do
  args=(-r "src_${clip%_*}.yuv" -d "dis_$clip.yuv" -w 1920 -h 1080 -p 420 -b 8 --threads 1 --frame_cnt "$frames" -q --json)
  up_times=""
  declare -A our_times=()
  for _ in $(seq "$rounds"); do
    up_times="$up_times $(seconds "$upstream" "${args[@]}" --no_prediction --feature ciede -o up.json)"
    for v in $simds; do
      our_times[$v]="${our_times[$v]:-} $(seconds "$ours" "${args[@]}" --backend cpu --simd "$v" -n --feature ciede -o "ours_$v.json")"
    done
  done
  up=$(echo "$up_times" | minimum)
  line="| $clip | $up |"
  same="same"
  for v in $simds; do
    o=$(echo "${our_times[$v]}" | minimum)
    line="$line $o | $(awk -v a="$up" -v b="$o" 'BEGIN { printf "%.2f", a / b }') |"
    cmp -s <(per_frame up.json) <(per_frame "ours_$v.json") || same="DIFFER ($v)"
  done
  unset our_times
  echo "$line $same"
done
