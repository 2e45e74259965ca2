#!/usr/bin/env bash
# FFmpeg's libraries stay out of the libraries (docs/input.md): an FFmpeg that
# loads our libvmaf.so.3 must not load a second libavcodec, and
# libexactvmaf.so users must not get one. Fails when libexactvmaf.so or
# libvmaf.so.3 needs a libav*/libsw* library (readelf NEEDED) or imports an
# FFmpeg symbol (nm -D --undefined-only: av_*, avcodec_*, avformat_*, sws_*,
# swscale_*). With a CLI given, also checks the other way: the CLI of a build
# with compressed input does need libavcodec (the test can see a link).
#   no_libav_deps_test.sh LIBEXACTVMAF_SO LIBVMAF_SO [CLI]
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
if [ $# -ge 3 ]; then
  if readelf -d "$3" | grep -E 'NEEDED.*\[libavcodec\.so' > /dev/null; then
    echo "$3 needs libavcodec (compressed input is in the CLI)"
  else
    echo "$3 does not need libavcodec, but this build has compressed input: is the check blind?"
    status=1
  fi
fi
exit $status
