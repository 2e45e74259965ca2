#!/usr/bin/env bash
# A small static FFmpeg for the GPU machine (issue 17): Debian's ffmpeg
# source, configured with only what the decode benchmarks and NVDEC need
# (h264, hevc, vp9, ffv1 decoders; the nvdec hwaccels through Debian's
# libffmpeg-nvenc-dev headers, which load libcuda and libnvcuvid at run time;
# matroska/mov/ivf in, null/y4m/raw/matroska out; libswscale), so that the
# ffmpeg program and a CLI linked against these libraries fit the device
# tool's carry limit, where Debian's libav* closure (~49 MB packed) does not.
#
#   usage: scripts/ffmpeg-nvdec.sh OUT_DIR
#
# OUT_DIR receives the source (OUT_DIR/src), the build and the installed
# prefix (OUT_DIR/prefix: bin/ffmpeg, static lib*.a with -fPIC, and
# lib/pkgconfig). Idempotent. Prints the pkgconfig folder as its last line;
# an exactvmaf CLI against it:
#   PKG_CONFIG_PATH=OUT_DIR/prefix/lib/pkgconfig cmake -S . -B build/nvdec -G Ninja \
#     -DEXACTVMAF_LIBAV=ON -DPKG_CONFIG_ARGN=--static -DEXACTVMAF_TESTS=OFF
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1"
ffmpeg_dir=$(cd "$1" && pwd)
jobs=${JOBS:-$(nproc)}
log() { echo "ffmpeg-nvdec: $*" >&2; }
die() { log "error: $*"; exit 1; }

configure_flags=(
  --prefix="$ffmpeg_dir/prefix"
  --disable-everything --disable-autodetect --disable-doc --disable-debug
  --disable-network --disable-ffplay --disable-ffprobe
  --enable-static --disable-shared --enable-pic --enable-pthreads
  --enable-ffnvcodec --enable-nvdec --enable-hwaccel=h264_nvdec,hevc_nvdec,vp9_nvdec
  --enable-decoder=h264,hevc,vp9,ffv1,rawvideo --enable-parser=h264,hevc,vp9
  --enable-demuxer=matroska,mov,ivf,yuv4mpegpipe,rawvideo
  --enable-bsf=h264_mp4toannexb,hevc_mp4toannexb,vp9_superframe_split
  --enable-protocol=file,pipe --enable-muxer=null,yuv4mpegpipe,rawvideo,matroska
  --enable-encoder=wrapped_avframe,rawvideo --enable-filter=null,format,scale,hwdownload,fps
  --enable-swscale
)
stamp_text="$(printf '%s\n' "${configure_flags[@]}")"

source "$(dirname "${BASH_SOURCE[0]}")/ffmpeg-source.sh"

if ! pkg-config --exists ffnvcodec; then
  log "installing libffmpeg-nvenc-dev (the nvdec headers)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libffmpeg-nvenc-dev >/dev/null
fi
have_source || fetch_source
src=$(ls -d "$ffmpeg_dir"/src/ffmpeg-*/ | head -n 1)
src=${src%/}
out=$ffmpeg_dir/build
mkdir -p "$out"
if [ ! -f "$out/config.h" ] || [ "$(cat "$out/.exactvmaf-configure" 2>/dev/null)" != "$stamp_text" ]; then
  log "configuring $(basename "$src") in $out"
  (cd "$out" && "$src/configure" "${configure_flags[@]}" >configure.log 2>&1) ||
    { tail -n 30 "$out/ffbuild/config.log" >&2 || true; die "FFmpeg configure failed ($out/configure.log)"; }
  grep -q 'nvdec' "$out/config.h" && grep -q '^#define CONFIG_HEVC_NVDEC_HWACCEL 1' "$out/config_components.h" ||
    die "configure left the hevc nvdec hwaccel off ($out/configure.log)"
  printf '%s' "$stamp_text" >"$out/.exactvmaf-configure"
fi
log "building and installing (make -j$jobs)"
make -C "$out" -j"$jobs" install >"$out/make.log" 2>&1 || { tail -n 30 "$out/make.log" >&2; die "FFmpeg build failed ($out/make.log)"; }
[ -x "$ffmpeg_dir/prefix/bin/ffmpeg" ] || die "no $ffmpeg_dir/prefix/bin/ffmpeg after make install"
echo "$ffmpeg_dir/prefix/lib/pkgconfig"
