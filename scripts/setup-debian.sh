#!/usr/bin/env bash
# Installs exactvmaf's build and test dependencies on Debian 12 (bookworm).
# Everything comes from Debian's own packages. CUDA is optional: when nvcc is
# installed (/usr/local/cuda/bin/nvcc or on PATH) the CUDA backend is built too.
# dpkg-dev and file: cpack's .deb (dpkg-shlibdeps) and its test; dpkg-dev,
# make and nasm: the FFmpeg client test (scripts/ffmpeg-client.sh). libav*-dev and
# libswscale-dev: compressed input in the CLI (src/av/, docs/input.md).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  g++ cmake ninja-build pkg-config ccache \
  libmpfr-dev libgmp-dev nlohmann-json3-dev libcli11-dev libfmt-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  clang libclang-rt-14-dev \
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev \
  dpkg-dev file make nasm >/dev/null
echo "setup-debian: dependencies installed"
