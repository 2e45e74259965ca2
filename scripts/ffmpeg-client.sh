#!/usr/bin/env bash
# Builds a real libvmaf client: FFmpeg from Debian's own source package of
# this machine's ffmpeg (5.1.x on Debian 12), configured minimally
# (--disable-everything plus the libvmaf filter and what `ffmpeg -f null`
# needs) against the build tree's libvmaf.pc, so it links our libvmaf.so.3.
#
#   usage: scripts/ffmpeg-client.sh BUILD_DIR [FFMPEG_DIR]
#
# BUILD_DIR is an exactvmaf build (with libvmaf/pkgconfig/libvmaf.pc);
# FFMPEG_DIR (default BUILD_DIR/ffmpeg-client) receives the source and the
# build. Idempotent: an FFmpeg already built with the same configuration and
# headers is reused; a header change only re-runs make. Prints the path of the
# ffmpeg binary as its last line. Needs root (or sudo) only the first time,
# to add a deb-src entry and install dpkg-dev and nasm.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [FFMPEG_DIR]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
ffmpeg_dir=${2:-$build_dir/ffmpeg-client}
pc_dir=$build_dir/libvmaf/pkgconfig
jobs=${JOBS:-$(nproc)}
log() { echo "ffmpeg-client: $*" >&2; }
die() { log "error: $*"; exit 1; }


# The configuration: nothing but what the comparisons use.
configure_flags=(
  --disable-everything --disable-autodetect --disable-doc --disable-debug
  --disable-network --disable-ffplay --disable-ffprobe
  --enable-libvmaf
  --enable-filter=libvmaf,scale,format,setpts,settb
  --enable-demuxer=yuv4mpegpipe,rawvideo
  --enable-decoder=rawvideo
  --enable-protocol=file,pipe
  --enable-muxer=null
  --enable-encoder=wrapped_avframe
)
stamp_text="$(printf '%s\n' "${configure_flags[@]}" "$pc_dir")"

source "$(dirname "${BASH_SOURCE[0]}")/ffmpeg-source.sh"

have_source || fetch_source
[ -f "$pc_dir/libvmaf.pc" ] || die "$pc_dir/libvmaf.pc not found: build exactvmaf first (target libvmaf)"
src=$(ls -d "$ffmpeg_dir"/src/ffmpeg-*/ | head -n 1)
src=${src%/}
out=$ffmpeg_dir/build
mkdir -p "$out"

export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if [ ! -f "$out/config.h" ] || [ "$(cat "$out/.exactvmaf-configure" 2>/dev/null)" != "$stamp_text" ]; then
  log "configuring $(basename "$src") in $out"
  (cd "$out" && "$src/configure" "${configure_flags[@]}" >configure.log 2>&1) ||
    { tail -n 30 "$out/ffbuild/config.log" >&2 || true; die "FFmpeg configure failed ($out/configure.log)"; }
  printf '%s' "$stamp_text" >"$out/.exactvmaf-configure"
fi
log "building ffmpeg (make -j$jobs)"
make -C "$out" -j"$jobs" ffmpeg >"$out/make.log" 2>&1 || { tail -n 30 "$out/make.log" >&2; die "FFmpeg build failed ($out/make.log)"; }
[ -x "$out/ffmpeg" ] || die "no $out/ffmpeg after make"
echo "$out/ffmpeg"
