#!/usr/bin/env bash
# Proof that the fp32pair kernels have no fp64 (docs/fp64-free.md):
#   fp64_free_check.sh ptx FILE.ptx...   every .entry and .func body that is not an fp64
#       twin (a name with NativeF64 or FastMath: the fp64 variant of a kernel
#       templated on the device arithmetic) contains no .f64 (register,
#       instruction or parameter): the fp32pair kernels and the kernels both
#       variants share;
#   fp64_free_check.sh sass FILE...      (cuobjdump --dump-sass of them) every
#       such Function contains no fp64 opcode (DADD, DMUL, DFMA,
#       DSETP, DSET, DMNMX, DMMA, MUFU.RCP64H / RSQ64H) and no .F64 operand
#       type (F2F.F64.F32, I2F.F64, F2I.S32.F64, ...); I2F.U64, F2I.U64 and
#       LDG.E.64 are integer or 64-bit moves, not fp64.
# Prints each kernel's count, fails if a kernel other than a twin has any, if
# there is no fp32pair kernel (Fp32PairArith, Sf64Math), or if the twins show
# none (the matcher would then be blind).
set -euo pipefail
mode=$1
shift
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if [ "$mode" = ptx ]; then
  awk '
    /^(\.visible |\.weak )?\.(entry|func) / {
      name = $0; sub(/.*\.(entry|func) +(\([^)]*\) +)?/, "", name); sub(/\(.*/, "", name); n = 0; inside = 1; next
    }
    inside && /^;/ { inside = 0; next }  # a .func prototype, its body follows later
    inside && /\.f64/ { n++ }
    inside && /^}/ { print name, n; inside = 0 }
  ' "$@" > "$report"
elif [ "$mode" = sass ]; then
  for f in "$@"; do
    cuobjdump --dump-sass "$f"
  done | awk '
    function flush() { if (name != "") print name, n }
    /Function : / { flush(); name = $0; sub(/.*Function : /, "", name); n = 0; next }
    name != "" && /\/\*[0-9a-f]+\*\// {
      if ($0 ~ /[ \t](DADD|DMUL|DFMA|DSETP|DSET|DMNMX|DMMA|DMAX|DMIN)[ .]/ || $0 ~ /MUFU\.(RCP64H|RSQ64H)/ || $0 ~ /\.F64/) n++
    }
    END { flush() }
  ' > "$report"
else
  echo "usage: fp64_free_check.sh ptx|sass FILE..." >&2
  exit 2
fi
pair_kernels=0 free_kernels=0 free_fp64=0 native_kernels=0 native_fp64=0
while read -r name n; do
  case "$name" in
    *NativeF64*|*FastMath*) native_kernels=$((native_kernels + 1)); native_fp64=$((native_fp64 + n)) ;;
    *) case "$name" in *Fp32PairArith*|*Sf64Math*) pair_kernels=$((pair_kernels + 1)) ;; esac
       free_kernels=$((free_kernels + 1)); free_fp64=$((free_fp64 + n))
       [ "$n" -eq 0 ] || echo "FAIL: $(echo "$name" | c++filt 2>/dev/null || echo "$name"): $n fp64 instructions" ;;
  esac
done < "$report"
echo "$mode: $free_kernels kernels without fp64 twins ($pair_kernels of them fp32pair) with $free_fp64 fp64 instructions; the $native_kernels fp64 twins: $native_fp64"
[ "$pair_kernels" -gt 0 ] || { echo "FAIL: no fp32pair kernel found"; exit 1; }
[ "$native_fp64" -gt 0 ] || { echo "FAIL: the fp64 kernels show no fp64 instruction: the matcher is blind"; exit 1; }
[ "$free_fp64" -eq 0 ]
