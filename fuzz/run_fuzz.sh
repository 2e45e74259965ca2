#!/bin/sh
# Builds the libFuzzer targets with clang in BUILD_DIR and runs each for
# SECONDS (default 60) from its seed corpus:
#   fuzz_y4m_header  y4m streams            seeds: fuzz/corpus/y4m
#   fuzz_model_json  libvmaf model files    seeds: models/ (every shipped model)
#   fuzz_options     --feature / -m args    seeds: fuzz/corpus/options
#   fuzz_libvmaf_api libvmaf C API calls    seeds: fuzz/corpus/libvmaf_api
# New corpus entries go to BUILD_DIR/fuzz-corpus/NAME, crashes to
# BUILD_DIR/fuzz-artifacts/. Exits non-zero when a fuzzer finds a bug.
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
cmake --build "$build_dir" --target fuzz_targets -j "$jobs"

artifacts="$build_dir/fuzz-artifacts/"
mkdir -p "$artifacts"
# fuzz NAME MAX_LEN SEED_DIR... : the first corpus dir receives new inputs;
# the seeds are only read.
fuzz() {
  name=$1
  max_len=$2
  shift 2
  corpus="$build_dir/fuzz-corpus/$name"
  mkdir -p "$corpus"
  echo "== $name for ${seconds}s"
  "$build_dir/fuzz/$name" "$corpus" "$@" \
    -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts" -print_final_stats=1
}
fuzz fuzz_y4m_header 8192 "$repo/fuzz/corpus/y4m"
fuzz fuzz_model_json 65536 "$repo/models" "$repo/models/vmaf_v1.0.16" "$repo/models/vmaf_v1.0.16_hfr"
fuzz fuzz_options 512 "$repo/fuzz/corpus/options"
fuzz fuzz_libvmaf_api 1024 "$repo/fuzz/corpus/libvmaf_api"
