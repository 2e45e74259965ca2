// Host-only slow path of R's correctly rounded functions: MPFR evaluation,
// correctly rounded to binary64/binary32 (round to nearest, ties to even),
// with IEEE subnormals and overflow emulated (emin/emax of the target format
// plus mpfr_subnormalize). Used for the calls a fast path leaves undecided
// and as the reference in tests.
#pragma once
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

enum class MpfrFn {
  kLog,    // log(x)
  kLog2,   // log2(x)
  kLog10,  // log10(x)
  kExp,    // exp(x)
  kExp2,   // exp2(x)
  kPow,    // pow(x, y)
  kSin,    // sin(x)
  kCos,    // cos(x)
  kTan,    // tan(x)
  kAtan,   // atan(x)
  kAtan2,  // atan2(x, y): x is the C function's first argument (the "y" coordinate)
  kTanh,   // tanh(x)
  kCbrt,   // cbrt(x)
  kSqrt,   // sqrt(x)
};

// fn(x[, y]) correctly rounded to double. y is ignored by one-argument functions.
double mpfr_eval_d(MpfrFn fn, double x, double y = 0.0);

// fn(x[, y]) correctly rounded to float (the arguments are exact in MPFR).
float mpfr_eval_f(MpfrFn fn, float x, float y = 0.0f);

}  // namespace exactvmaf::rmath
