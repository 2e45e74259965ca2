#include "mpfr_slow.hpp"

#include <mpfr.h>

namespace exactvmaf::rmath {
namespace {

// MPFR keeps per-thread constant caches (pi, log 2). Any thread that takes
// the slow path frees its caches when it ends, so pipeline threads leak none.
struct ThreadCacheRelease {
  ~ThreadCacheRelease() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
};

int apply(MpfrFn fn, mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b) {
  switch (fn) {
    case MpfrFn::kLog: return mpfr_log(r, a, MPFR_RNDN);
    case MpfrFn::kLog2: return mpfr_log2(r, a, MPFR_RNDN);
    case MpfrFn::kLog10: return mpfr_log10(r, a, MPFR_RNDN);
    case MpfrFn::kExp: return mpfr_exp(r, a, MPFR_RNDN);
    case MpfrFn::kExp2: return mpfr_exp2(r, a, MPFR_RNDN);
    case MpfrFn::kPow: return mpfr_pow(r, a, b, MPFR_RNDN);
    case MpfrFn::kSin: return mpfr_sin(r, a, MPFR_RNDN);
    case MpfrFn::kCos: return mpfr_cos(r, a, MPFR_RNDN);
    case MpfrFn::kTan: return mpfr_tan(r, a, MPFR_RNDN);
    case MpfrFn::kAtan: return mpfr_atan(r, a, MPFR_RNDN);
    case MpfrFn::kAtan2: return mpfr_atan2(r, a, b, MPFR_RNDN);
    case MpfrFn::kTanh: return mpfr_tanh(r, a, MPFR_RNDN);
    case MpfrFn::kCbrt: return mpfr_cbrt(r, a, MPFR_RNDN);
    case MpfrFn::kSqrt: return mpfr_sqrt(r, a, MPFR_RNDN);
  }
  mpfr_set_nan(r);
  return 0;
}

// Runs fn at precision `prec` inside the exponent range [emin, emax] of the
// target format (MPFR convention: value = 0.1xxx * 2^e), so that overflow
// and subnormal rounding match IEEE 754 after mpfr_subnormalize. The
// caller's exponent range (thread-local in MPFR) is restored.
template <typename Get>
auto eval(MpfrFn fn, double x, double y, mpfr_prec_t prec, mpfr_exp_t emin, mpfr_exp_t emax,
          Get get) {
  thread_local ThreadCacheRelease release_caches_at_thread_exit;
  (void)release_caches_at_thread_exit;
  const mpfr_exp_t old_emin = mpfr_get_emin();
  const mpfr_exp_t old_emax = mpfr_get_emax();
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_t a, b, r;
  mpfr_init2(a, 53);
  mpfr_init2(b, 53);
  mpfr_init2(r, prec);
  mpfr_set_d(a, x, MPFR_RNDN);  // exact: 53 bits and in range
  mpfr_set_d(b, y, MPFR_RNDN);
  int inex = apply(fn, r, a, b);
  inex = mpfr_check_range(r, inex, MPFR_RNDN);
  mpfr_subnormalize(r, inex, MPFR_RNDN);
  const auto out = get(r);
  mpfr_clear(a);
  mpfr_clear(b);
  mpfr_clear(r);
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  return out;
}

}  // namespace

double mpfr_eval_d(MpfrFn fn, double x, double y) {
  // binary64: 53 bits, smallest subnormal 2^-1074 = 0.1b * 2^-1073, max < 2^1024.
  return eval(fn, x, y, 53, -1073, 1024, [](mpfr_srcptr r) { return mpfr_get_d(r, MPFR_RNDN); });
}

float mpfr_eval_f(MpfrFn fn, float x, float y) {
  // binary32: 24 bits, smallest subnormal 2^-149 = 0.1b * 2^-148, max < 2^128.
  // The float arguments are exact as doubles; the range is set after they are
  // read, so a subnormal float argument is representable.
  return eval(fn, static_cast<double>(x), static_cast<double>(y), 24, -148, 128,
              [](mpfr_srcptr r) { return mpfr_get_flt(r, MPFR_RNDN); });
}

}  // namespace exactvmaf::rmath
