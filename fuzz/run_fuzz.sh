#!/bin/sh
# Builds the libFuzzer targets with clang in BUILD_DIR and runs the y4m
# fuzzer for SECONDS (default 60) from the seed corpus in fuzz/corpus/y4m.
# New corpus entries go to BUILD_DIR/fuzz-corpus/y4m, crashes to
# BUILD_DIR/fuzz-artifacts/. Exits non-zero when the fuzzer finds a bug.
#   usage: fuzz/run_fuzz.sh BUILD_DIR [SECONDS]
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
build_dir=$1
seconds=${2:-60}
repo=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-clang}
cxx=${CXX:-clang++}
jobs=${JOBS:-2}

cmake -S "$repo" -B "$build_dir" -G Ninja \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEXACTVMAF_FUZZ=ON -DEXACTVMAF_CUDA=OFF -DEXACTVMAF_TESTS=OFF -DEXACTVMAF_BENCH=OFF
cmake --build "$build_dir" --target fuzz_y4m_header -j "$jobs"

corpus="$build_dir/fuzz-corpus/y4m"
artifacts="$build_dir/fuzz-artifacts/"
mkdir -p "$corpus" "$artifacts"
# First corpus dir receives new inputs; the seeds are only read.
"$build_dir/fuzz/fuzz_y4m_header" "$corpus" "$repo/fuzz/corpus/y4m" \
  -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$artifacts" -print_final_stats=1
