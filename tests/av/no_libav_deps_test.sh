#!/usr/bin/env bash
# FFmpeg's libraries stay out of the libraries (docs/input.md): an FFmpeg that
# loads our libvmaf.so.3 must not load a second libavcodec, and
# libexactvmaf.so users must not get one. Fails when libexactvmaf.so or
# libvmaf.so.3 needs a libav*/libsw* library (readelf NEEDED) or imports an
# FFmpeg symbol (nm -D --undefined-only: av_*, avcodec_*, avformat_*, sws_*,
# swscale_*). With a CLI and the fixtures folder given, also checks the CLI
# of a build with compressed input: it needs no FFmpeg library at start-up
# (src/av/av_library.hpp loads them on first use), a run on y4m inputs loads
# none, and a run on compressed inputs loads libavcodec (LD_DEBUG=files), so
# the check can see a load.
#   no_libav_deps_test.sh LIBEXACTVMAF_SO LIBVMAF_SO [CLI FIXTURES_DIR]
set -u
status=0
libs='^lib(avcodec|avformat|avutil|avfilter|avdevice|swscale|swresample|postproc)\.so'
syms='^(av_|avcodec_|avformat_|avio_|sws_|swscale_)'
for lib in "$1" "$2"; do
  needed="$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')" || { echo "readelf failed on $lib"; status=1; continue; }
  bad="$(grep -E "$libs" <<<"$needed" | tr '\n' ' ')"
  imports="$(nm -D --undefined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$syms" | sort -u | tr '\n' ' ')"
  if [ -n "$bad" ] || [ -n "$imports" ]; then
    echo "$lib depends on FFmpeg: NEEDED ${bad:-none}; imports ${imports:-none}"
    status=1
  else
    echo "$lib: $(wc -l <<<"$needed") NEEDED libraries, none of FFmpeg's; no FFmpeg symbol imported"
  fi
done
if [ $# -ge 4 ]; then
  cli=$3 fixtures=$4
  bad="$(readelf -d "$cli" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -E "$libs" | tr '\n' ' ')"
  if [ -n "$bad" ]; then
    echo "$cli needs FFmpeg at start-up: NEEDED $bad"
    status=1
  fi
  # The FFmpeg libraries the dynamic loader opens during a run of the CLI with these inputs.
  loads() {
    LD_DEBUG=files "$cli" -r "$1" -d "$2" -n --feature psnr -q -o /dev/null 2>&1 >/dev/null |
      sed -n 's/.*file=\([^ ]*\).*/\1/p' | grep -E "$libs" | sort -u | tr '\n' ' '
  }
  raw="$(loads "$fixtures/c01_176x144_8b_420_ref.y4m" "$fixtures/c01_176x144_8b_420_dist.y4m")"
  av="$fixtures/av"
  compressed="$(loads "$av/c01_176x144_8b_420_ref.ffv1.mkv" "$av/c01_176x144_8b_420_dist.x264.mp4")"
  if [ -n "$raw" ]; then
    echo "$cli loads FFmpeg for y4m inputs: $raw"
    status=1
  else
    echo "$cli: no FFmpeg library loaded for y4m inputs"
  fi
  if grep -q 'libavcodec\.so' <<<"$compressed"; then
    echo "$cli loads FFmpeg for compressed inputs: $compressed"
  else
    echo "$cli loads no libavcodec for compressed inputs, but this build has compressed input: is the check blind?"
    status=1
  fi
fi
exit $status
