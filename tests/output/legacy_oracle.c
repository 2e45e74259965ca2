/* Independent statement of the legacy rule. The integer part comes from the
   CVTTSD2SI instruction itself (through its intrinsic, which is defined for
   every input) rather than from a C cast, so this side also shows what the
   upstream binary computes for NaN, inf and |x| >= 2^31. */
#include "legacy_oracle.h"

#include <math.h>
#include <stdio.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
static int truncate_like_upstream(double a) { return _mm_cvttsd_si32(_mm_set_sd(a)); }
#else
#include <limits.h>
static int truncate_like_upstream(double a) {
  if (a != a || a >= 2147483648.0 || a <= -2147483649.0) return INT_MIN;
  return (int)a;
}
#endif

int oracle_fraction_shifts(double x) {
  double a = x;
  if (a < 0) a = fabs(a); /* -0.0 is not < 0 and keeps its sign */
  double frac = a - (double)truncate_like_upstream(a);
  int shifts;
  for (shifts = 0; frac != 0 && frac < 1.0; ++shifts) frac = frac * 10.0;
  return shifts;
}

void oracle_legacy_token(double x, int json, char* buf, size_t size) {
  if (json && !isfinite(x)) {
    snprintf(buf, size, "null");
    return;
  }
  snprintf(buf, size, oracle_fraction_shifts(x) > 6 ? "%.16f" : "%.6f", x);
}
