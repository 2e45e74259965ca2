// Host entry points of cr_trig: the fast path, then MPFR (mpfr_slow.hpp)
// for the arguments it leaves undecided. NaN results are the quiet NaN
// 0x7ff8... on both paths.
#include "numeric/cr_trig.hpp"

#include "numeric/mpfr_slow.hpp"

namespace exactvmaf::rmath {
namespace {
double canonical(double v) { return v != v ? trig_detail::quiet_nan() : v; }
}  // namespace

double cr_sin(double x) {
  double r;
  if (cr_sin_fast(x, &r)) return r;
  return canonical(mpfr_eval_d(MpfrFn::kSin, x));
}

double cr_cos(double x) {
  double r;
  if (cr_cos_fast(x, &r)) return r;
  return canonical(mpfr_eval_d(MpfrFn::kCos, x));
}

double cr_atan2(double y, double x) {
  double r;
  if (cr_atan2_fast(y, x, &r)) return r;
  return canonical(mpfr_eval_d(MpfrFn::kAtan2, y, x));
}

}  // namespace exactvmaf::rmath
