#!/usr/bin/env bash
# Whole-command A/B on the CPU: ROUNDS interleaved rounds of two exactvmaf
# CLIs (BASE, NEW) and upstream libvmaf's CLI at each of its SIMD masks,
# vmaf_v0.6.1 on a raw 8-bit 4:2:0 pair; prints the sorted wall and CPU
# (user + sys) seconds of each and the ratios of the minima.
#
#   [ROUNDS=5] [FRAMES=60] [SIMD=avx2] [UPMASKS="0 48"] \
#     bench/cpu_ab.sh REF DIST WIDTH HEIGHT THREADS BASE NEW UPSTREAM
#
# SIMD: our --simd level. UPMASKS: upstream --cpumask values; in libvmaf
# f85a853 bit 16 turns AVX-512 off and bit 32 AVX512ICL, so 0 runs upstream
# with AVX-512 where the CPU has it and 48 with AVX2 at most.
set -uo pipefail
[ $# -eq 8 ] || { sed -n '2,13p' "$0"; exit 2; }
ref=$1 dist=$2 w=$3 h=$4 threads=$5 base=$6 new=$7 upstream=$8
rounds="${ROUNDS:-5}"
simd="${SIMD:-avx2}"
masks="${UPMASKS:-0 48}"
args=(-r "$ref" -d "$dist" -w "$w" -h "$h" -p 420 -b 8 --threads "$threads" -q -o /dev/null --frame_cnt "${FRAMES:-60}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timed() {  # key command... -> appends "wall cpu" to $tmp/key
  local key=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$tmp/one" "$@" > /dev/null 2>&1 || echo "failed: $*" >&2
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$tmp/one" >> "$tmp/$key"
}
keys="base new"
for m in $masks; do keys="$keys up$m"; done
for _ in $(seq "$rounds"); do
  timed base "$base" "${args[@]}" --simd "$simd"
  timed new "$new" "${args[@]}" --simd "$simd"
  for m in $masks; do timed "up$m" "$upstream" "${args[@]}" -m version=vmaf_v0.6.1 --cpumask "$m"; done
done
column_sorted() { awk -v c="$2" '{ print $c }' "$tmp/$1" | sort -g | tr '\n' ' '; }
minimum() { awk -v c="$2" '{ print $c }' "$tmp/$1" | sort -g | head -1; }
echo "$(basename "$ref") $w x $h, ${FRAMES:-60} frames, $threads threads, $rounds rounds, ours --simd $simd (load $(cut -d' ' -f1-3 /proc/loadavg))"
for k in $keys; do printf "%-6s wall %s| cpu %s\n" "$k" "$(column_sorted "$k" 1)" "$(column_sorted "$k" 2)"; done
for m in $masks; do
  for col in 1 2; do
    awk -v u="$(minimum "up$m" $col)" -v b="$(minimum base $col)" -v n="$(minimum new $col)" -v m="$m" \
      -v what="$([ $col = 1 ] && echo wall || echo cpu)" \
      'BEGIN { printf "%s: upstream (cpumask %s) / base %.2f, / new %.2f\n", what, m, u / b, u / n }'
  done
done
