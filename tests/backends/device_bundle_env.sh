# Sourced by the device scripts (tests/backends/device_float_checks.sh,
# bench/device_float_bench.sh), from the repository root on the GPU machine:
# unpacks .devrun/bundle.tar.xz (scripts/device-bundle.sh ... --pack) and
# sets U (the bundle's binaries), their libraries and models, the paths the
# test binaries were built with (/work/main, /work/build-cuda/tools), and L
# and S (the device tool's $OUT and its summary.txt, begun with the GPU's name).
root=$(pwd)
mkdir -p "$root/.devrun/u" && tar -C "$root/.devrun/u" -xJf "$root/.devrun/bundle.tar.xz"
U=$root/.devrun/u
export LD_LIBRARY_PATH=$U/lib:${LD_LIBRARY_PATH:-}
export EXACTVMAF_MODEL_DIR=$U/models
mkdir -p /work && { [ -e /work/main ] || ln -s "$root" /work/main; }
mkdir -p /work/build-cuda/tools
for tool in exactvmaf exactvmaf-parity; do
  [ -x "$U/$tool" ] && ln -sf "$U/$tool" "/work/build-cuda/tools/$tool"
done
L=$OUT
S=$L/summary.txt
: > "$S"
nvidia-smi -L | tee -a "$S"
