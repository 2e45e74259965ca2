#include "cr_pow.hpp"

#include "mpfr_slow.hpp"

namespace exactvmaf::rmath {

double cr_pow(double x, double y) {
  double r;
  return cr_pow_fast(x, y, &r) ? r : mpfr_eval_d(MpfrFn::kPow, x, y);
}

float cr_powf(float x, float y) {
  float r;
  return cr_powf_fast(x, y, &r) ? r : mpfr_eval_f(MpfrFn::kPow, x, y);
}

}  // namespace exactvmaf::rmath
