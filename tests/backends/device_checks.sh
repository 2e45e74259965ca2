#!/usr/bin/env bash
# The CUDA backend's checks on a GPU machine, from a bundle made here with
#   scripts/device-bundle.sh BUILD_DIR .devrun
# Runs the backend, motion, core and CLI tests, exactvmaf-parity on every
# fixture pair, and (with "bench") motion throughput at 1920x1080 and
# 3840x2160 on generated frames; one log per step and summary.txt in LOG_DIR.
#
#   tests/backends/device_checks.sh [BUNDLE=.devrun] [LOG_DIR=device-logs] [bench]
#
# The test binaries read the fixtures and run the CLI from the paths they
# were built with (EXACTVMAF_SOURCE_DIR, EXACTVMAF_CLI); set BUILT_SOURCE_DIR
# and BUILT_CLI to those when they differ from the defaults below. Missing
# paths are made as symbolic links to this checkout and the bundle.
set -uo pipefail
src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$(cd "${1:-.devrun}" && pwd)"
logs="${2:-device-logs}"
mode="${3:-}"
mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"
export LD_LIBRARY_PATH="$bundle/lib:${LD_LIBRARY_PATH:-}"
built_src="${BUILT_SOURCE_DIR:-/work/main}"
built_cli="${BUILT_CLI:-/work/build-cudahelper/tools/exactvmaf}"
if [ ! -e "$built_src" ]; then mkdir -p "$(dirname "$built_src")" && ln -s "$src_dir" "$built_src"; fi
if [ ! -e "$built_cli" ]; then mkdir -p "$(dirname "$built_cli")" && ln -s "$bundle/exactvmaf" "$built_cli"; fi

summary="$logs/summary.txt"
: > "$summary"
nvidia-smi > "$logs/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >> "$summary"
status=0

for t in cuda_backend_test feature_motion_test core_test cli_test; do
  [ -x "$bundle/$t" ] || { echo "$t: not in the bundle" | tee -a "$summary"; continue; }
  "$bundle/$t" > "$logs/$t.log" 2>&1
  rc=$?
  echo "$t: exit $rc; $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$t.log" | tr '\n' ' ')$(grep -E '^\[  SKIPPED \] [A-Za-z]' "$logs/$t.log" | sort -u | wc -l) skipped" \
    | tee -a "$summary"
  grep -E '^\[  FAILED  \] [A-Za-z]|no CUDA device' "$logs/$t.log" | sort -u | head -20 | sed 's/^/  /' | tee -a "$summary"
  [ $rc -eq 0 ] || status=1
done

# exactvmaf-parity on every fixture pair: cuda at 1 and 4 threads and without
# graphs against the cpu, two option sets.
python3 - "$src_dir/tests/fixtures/manifest.json" > "$logs/pairs.txt" <<'EOF'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
for p in m["pairs"]:
    raw = "" if p["container"] == "y4m" else f'-w {p["width"]} -h {p["height"]} -p {p["pixel_format"]} -b {p["bitdepth"]}'
    print(p["name"], os.path.join(d, p["ref"]), os.path.join(d, p["dist"]), raw)
EOF
: > "$logs/parity.log"
parity_fail=0
while read -r name ref dist raw; do
  for f in motion=debug=true motion=motion_five_frame_window=true:motion_moving_average=true:debug=true; do
    echo "== $name --feature $f" >> "$logs/parity.log"
    # shellcheck disable=SC2086
    "$bundle/exactvmaf-parity" -r "$ref" -d "$dist" $raw --feature "$f" --threads 4 --no_graphs >> "$logs/parity.log" 2>&1 \
      || parity_fail=$((parity_fail + 1))
  done
done < "$logs/pairs.txt"
echo "parity: $(grep -c 'PARITY: identical' "$logs/parity.log") identical, $parity_fail not" | tee -a "$summary"
[ $parity_fail -eq 0 ] || status=1

# Generated frames (random samples: the worst case for the blur's zero-row
# shortcut on the cpu; the same work on the gpu). Page cache after the first pass.
work="${BENCH_DIR:-/tmp/exactvmaf-bench}"
mkdir -p "$work"
make_input() {  # w h frames -> path
  local f="$work/r_${1}x${2}.yuv"
  [ -s "$f" ] || head -c $(($1 * $2 * 3 / 2 * $3)) /dev/urandom > "$f"
  echo "$f"
}

# Two processes on one GPU at once, each against the cpu's output.
f1080="$(make_input 1920 1080 300)"
args=(-r "$f1080" -d "$f1080" -w 1920 -h 1080 -p 420 -b 8 --frame_cnt 200 --json --precision max -q)
"$bundle/exactvmaf" "${args[@]}" --feature motion=debug=true --backend cpu -o "$work/two_cpu_a.json"
"$bundle/exactvmaf" "${args[@]}" --feature motion=motion_five_frame_window=true --backend cpu -o "$work/two_cpu_b.json"
"$bundle/exactvmaf" "${args[@]}" --feature motion=debug=true --backend cuda --threads 4 -o "$work/two_cuda_a.json" &
pa=$!
"$bundle/exactvmaf" "${args[@]}" --feature motion=motion_five_frame_window=true --backend cuda --threads 3 \
  -o "$work/two_cuda_b.json" &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
same() { diff <(grep -v '"fps"' "$1") <(grep -v '"fps"' "$2") > /dev/null; }
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && same "$work/two_cpu_a.json" "$work/two_cuda_a.json" \
   && same "$work/two_cpu_b.json" "$work/two_cuda_b.json"; then
  echo "two processes at once: both outputs equal the cpu's" | tee -a "$summary"
else
  echo "two processes at once: FAIL (exit $ra, $rb or outputs differ)" | tee -a "$summary"
  status=1
fi

if [ "$mode" = bench ]; then
  bench() {  # w h frames
    local w=$1 h=$2 n=$3 f
    f="$(make_input "$w" "$h" "$n")"
    cat "$f" > /dev/null
    for run in "cpu 0 motion" "cpu 1 motion" "cuda 1 motion" "cuda 2 motion" "cuda 4 motion" "cuda 8 motion" \
               "cuda 16 motion" "cuda 1 motion=motion_force_zero=true" "cuda 8 motion=motion_force_zero=true"; do
      set -- $run
      line=$("$bundle/exactvmaf" -r "$f" -d "$f" -w "$w" -h "$h" -p 420 -b 8 --feature "$3" --backend "$1" \
               --threads "$2" -o /dev/null --json 2>&1 | grep -E 'fps|error')
      echo "${w}x${h} $n frames --feature $3 --backend $1 --threads $2: $line" | tee -a "$summary"
    done
    # Graphs against direct launches (exactvmaf-parity prints each run's fps).
    "$bundle/exactvmaf-parity" -r "$f" -d "$f" -w "$w" -h "$h" -p 420 -b 8 --feature motion --no_graphs -q \
      --threads 8 2>&1 | grep -E 'fps|PARITY' | sed "s/^/${w}x${h} parity: /" | tee -a "$summary"
  }
  bench 1920 1080 300
  bench 3840 2160 120
fi
echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$summary"
exit $status
