#include "cr_exp.hpp"

#include "mpfr_slow.hpp"

namespace exactvmaf::rmath {

double cr_exp(double x) {
  double r;
  return cr_exp_fast(x, &r) ? r : mpfr_eval_d(MpfrFn::kExp, x);
}

}  // namespace exactvmaf::rmath
