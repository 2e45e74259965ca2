#!/usr/bin/env bash
# Installs a built tree into a temporary prefix and builds a consumer program
# against it three ways: pkg-config (shared), pkg-config --static, and
# find_package(exactvmaf). Each must score the fixture pair with the built-in
# default model and print the same pooled VMAF as the installed CLI.
#   tests/install/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail  # no early-exiting reader in a pipeline (grep -q, head): SIGPIPE would fail it
build="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
ref="$src/tests/fixtures/c01_176x144_8b_420_ref.y4m"
dist="$src/tests/fixtures/c01_176x144_8b_420_dist.y4m"
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }
libdir="$(dirname "$(find "$prefix" -name exactvmaf.pc -print -quit)")/.."
[ -f "$libdir/pkgconfig/exactvmaf.pc" ] || fail "no exactvmaf.pc installed"
for f in bin/exactvmaf include/exactvmaf/exactvmaf.hpp share/exactvmaf/models/vmaf_v0.6.1.json \
         share/exactvmaf/models/LICENSE share/exactvmaf/models/vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
ls "$libdir"/libexactvmaf.so.0 "$libdir"/libexactvmaf.a "$libdir"/cmake/exactvmaf/exactvmafConfig.cmake > /dev/null

# Nothing installed may need the CUDA runtime library.
for elf in "$prefix/bin/exactvmaf" "$libdir"/libexactvmaf.so.0; do
  if readelf -d "$elf" | grep 'NEEDED.*libcudart' > /dev/null; then fail "$elf needs libcudart.so"; fi
done

# libexactvmaf.so exports the public API (include/exactvmaf/) and nothing of
# the internal namespaces (exactvmaf::cuda::, exactvmaf::adm::, ...: lower
# case after exactvmaf::, where public classes are capitalised).
exports="$(nm -D --defined-only "$libdir/libexactvmaf.so.0" | c++filt | sed -n 's/^[0-9a-f]* T //p')"
for api in 'exactvmaf::run(' 'exactvmaf::load_models(' 'exactvmaf::parse_feature_request(' \
           'exactvmaf::write_report(' 'exactvmaf::open_video(' 'exactvmaf::ScoreTable::pooled(' 'exactvmaf::cuda_status('; do
  grep -F "$api" <<<"$exports" > /dev/null || fail "libexactvmaf.so does not export $api"
done
internal="$(grep -E '^exactvmaf::[a-z_0-9]+::' <<<"$exports" || true)"
[ -z "$internal" ] || fail "libexactvmaf.so exports internals: $(head -3 <<<"$internal" | tr '\n' ' ')"
outside="$(grep -v '^exactvmaf::' <<<"$exports" || true)"
[ -z "$outside" ] || fail "libexactvmaf.so exports functions outside exactvmaf::: $(head -3 <<<"$outside" | tr '\n' ' ')"
echo "install_test: libexactvmaf.so exports $(wc -l <<<"$exports") functions, all public API"

# The pooled VMAF mean as the installed CLI prints it at full precision.
expected="$(env -u EXACTVMAF_MODEL_DIR "$prefix/bin/exactvmaf" -r "$ref" -d "$dist" --json --precision max -q |
  tr -d '\n ' | sed -n 's/.*"pooled_metrics":.*"vmaf":{"min":[^,]*,"max":[^,]*,"mean":\([^,]*\),.*/\1/p')"
[ -n "$expected" ] || fail "the installed CLI printed no pooled vmaf"

check() {  # check LABEL BINARY
  local got
  got="$(env -u EXACTVMAF_MODEL_DIR LD_LIBRARY_PATH="$libdir" "$2" "$ref" "$dist")" || fail "$1: the consumer failed"
  [ "$got" = "$expected" ] || fail "$1: consumer printed $got, the CLI $expected"
  echo "install_test: $1: vmaf mean $got (equal to the installed CLI)"
}

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cxx="${CXX:-c++}"
# shellcheck disable=SC2046
$cxx -std=c++20 -o "$work/consumer_pc" "$src/tests/install/consumer/consumer.cpp" $(pkg-config --cflags --libs exactvmaf)
check "pkg-config" "$work/consumer_pc"
# Static: the archive itself, then what pkg-config --static says it needs.
# shellcheck disable=SC2046
$cxx -std=c++20 -o "$work/consumer_static" "$src/tests/install/consumer/consumer.cpp" $(pkg-config --cflags exactvmaf) \
  "$libdir/libexactvmaf.a" $(pkg-config --static --libs exactvmaf | sed -E 's/(^| )-lexactvmaf( |$)/ /')
if readelf -d "$work/consumer_static" | grep 'NEEDED.*libexactvmaf' > /dev/null; then fail "the static consumer needs libexactvmaf.so"; fi
check "pkg-config --static" "$work/consumer_static"

cmake -S "$src/tests/install/consumer" -B "$work/consumer_cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/cmake.log" || { cat "$work/cmake.log"; fail "find_package(exactvmaf) failed"; }
cmake --build "$work/consumer_cmake" > "$work/build.log" || { cat "$work/build.log"; fail "the CMake consumer did not build"; }
check "find_package" "$work/consumer_cmake/consumer"
echo "install_test: install tree $(du -sh "$prefix" | cut -f1)"
