#!/usr/bin/env bash
# The libm check on the built binaries (docs/design.md §2): no undefined
# dynamic symbol of a libm elementary function that is not IEEE-exact (sqrt,
# fabs, floor, ceil, trunc, rint, fmod, frexp, ldexp, ... are allowed: they
# are exact everywhere). R's functions are the project's own; a call to the
# host's log or pow would make the bits depend on the host libm.
#   libm_symbols_test.sh BINARY...
set -u
forbidden='acos|acosh|asin|asinh|atan|atan2|atanh|cbrt|cos|cosh|erf|erfc|exp|exp2|exp10|expm1|hypot|lgamma|log|log10|log1p|log2|logb|pow|pow10|sin|sincos|sinh|tan|tanh|tgamma|j0|j1|jn|y0|y1|yn'
# A name, its f/l variants, and the _finite aliases of -ffast-math builds.
pattern="^(__)?(${forbidden})[fl]?(_finite)?(@.*)?\$"
status=0
for bin in "$@"; do
  if ! syms="$(nm -D --undefined-only "$bin" 2>&1)"; then
    echo "libm_symbols_test: nm failed on $bin: $syms"
    status=1
    continue
  fi
  bad="$(awk '{print $NF}' <<<"$syms" | grep -E "$pattern" | sort -u)"
  count="$(awk 'NF' <<<"$syms" | wc -l)"
  if [ -n "$bad" ]; then
    echo "$bin imports libm elementary functions (use exactvmaf::rmath): $(tr '\n' ' ' <<<"$bad")"
    status=1
  else
    echo "$bin: $count undefined dynamic symbols, no libm elementary function"
  fi
done
exit $status
