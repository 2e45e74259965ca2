#include "cr_log.hpp"

#include "mpfr_slow.hpp"

namespace exactvmaf::rmath {

double cr_log(double x) {
  double r;
  return cr_log_fast(x, &r) ? r : mpfr_eval_d(MpfrFn::kLog, x);
}

double cr_log2(double x) {
  double r;
  return cr_log2_fast(x, &r) ? r : mpfr_eval_d(MpfrFn::kLog2, x);
}

double cr_log10(double x) {
  double r;
  return cr_log10_fast(x, &r) ? r : mpfr_eval_d(MpfrFn::kLog10, x);
}

float cr_log2f(float x) {
  float r;
  return cr_log2f_fast(x, &r) ? r : mpfr_eval_f(MpfrFn::kLog2, x);
}

}  // namespace exactvmaf::rmath
