#!/usr/bin/env bash
# Packs a CUDA build's binaries for the GPU machine, which has CUDA but not
# Debian's libraries: copies the CLI, the parity tool, the benchmark, every test binary and the
# shared libraries they need that are not part of glibc/libstdc++/CUDA.
#
#   [ONLY=REGEX] [WITH_LIBAV=1] scripts/device-bundle.sh BUILD_DIR [OUT_DIR] [--pack]     (default OUT_DIR: .devrun)
#
# The binaries are stripped. With --pack, OUT_DIR holds only bundle.tar.xz
# (the binaries are ~5 MB each, mostly device code, and the carried tree is
# limited to 64 MiB); tests/backends/device_checks.sh unpacks it. The VMAF
# models (MODELS_DIR, default the repository's models/) are copied in, for upstream runs (bench/device_compare.sh).
#
# On the GPU machine (OUT_DIR travels as an ignored, carried path):
#   cd .devrun && export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH && ./device_rmath_long
set -euo pipefail
usage="usage: scripts/device-bundle.sh BUILD_DIR [OUT_DIR] [--pack]"
build="${1:?$usage}"
case "${2:-}" in --*) echo "$usage" >&2; exit 2 ;; esac
out="${2:-.devrun}"
pack="${3:-}"
rm -rf "$out"
mkdir -p "$out/lib"
bins=()
[ -x "$build/tools/exactvmaf" ] && bins+=("$build/tools/exactvmaf")
[ -x "$build/tools/exactvmaf-parity" ] && bins+=("$build/tools/exactvmaf-parity")
[ -x "$build/bench/exactvmaf_bench" ] && bins+=("$build/bench/exactvmaf_bench")
[ -x "$build/ffmpeg-client/build/ffmpeg" ] && bins+=("$build/ffmpeg-client/build/ffmpeg")  # scripts/ffmpeg-client.sh
# ONLY=REGEX: just the test binaries whose names match (a smaller bundle when
# the carried tree would pass the 64 MiB limit).
while IFS= read -r -d '' f; do
  if [ -z "${ONLY:-}" ] || [[ "$(basename "$f")" =~ ${ONLY} ]]; then bins+=("$f"); fi
done < <(find "$build/tests" -maxdepth 2 -type f -executable -print0)
cp "${bins[@]}" "$out/"
# FFmpeg's libraries are loaded on first use (src/av/av_library.hpp), so ldd
# does not list them for the CLI. WITH_LIBAV=1 adds them and what they need
# (about 45 MB more, compressed): only compressed input on the GPU machine
# (tests/av/hwdec_cuda_test.sh) needs them.
libav=()
if [ "${WITH_LIBAV:-0}" = 1 ] && [ -x "$build/tools/exactvmaf" ]; then
  sonames="$(strings "$build/tools/exactvmaf" | grep -xE 'lib(avutil|swscale|avcodec|avformat)\.so\.[0-9]+' | sort -u)"
  for so in $sonames; do
    path="$(ldconfig -p | awk -v n="$so" '$1 == n {print $NF; exit}')"
    [ -n "$path" ] || { echo "device-bundle: $so not found (ldconfig -p)" >&2; exit 1; }
    libav+=("$path")
    cp -L "$path" "$out/lib/"
  done
fi
# Libraries from Debian packages (not libc, libstdc++, libgcc, CUDA).
for b in "${bins[@]}" "${libav[@]}"; do ldd "$b"; done | awk '/=> \// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcudart|libcuda)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
strip "$out"/* 2>/dev/null || true
# The VMAF models travel along (tests and -m read them there).
models="${MODELS_DIR:-$(dirname "$0")/../models}"
[ -d "$models" ] && mkdir -p "$out/models" && cp -r "$models"/. "$out/models/"
if [ "$pack" = --pack ]; then
  tmp="$(mktemp -d)"
  tar -C "$out" -cJf "$tmp/bundle.tar.xz" .
  rm -rf "$out" && mkdir -p "$out" && mv "$tmp/bundle.tar.xz" "$out/" && rmdir "$tmp"
fi
du -sh "$out"
