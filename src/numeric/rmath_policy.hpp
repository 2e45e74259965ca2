// R's elementary functions as a policy that per-sample code is written
// against, so one function body serves the host and the device:
//   HostMathPolicy: R's host functions, correctly rounded for every argument
//                   (fast path, then MPFR);
//   FastMathPolicy: the fast paths only (host and device); `undecided`
//                   becomes true when a call could not decide its rounding,
//                   and the sample must then be recomputed with the host
//                   policy;
//   Sf64FastMathPolicy: the same fast paths on Sf64 (binary64 in integer
//                   arithmetic, numeric/sf64.hpp) for code without fp64,
//                   where they exist (log2); the others are undecided.
// `real` is the type of R's doubles under the policy.
#pragma once

#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/hd.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

struct HostMathPolicy {
  using real = double;
  static double log2_f64(double x) { return cr_log2(x); }
  static double exp_f64(double x) { return cr_exp(x); }
  static double pow_f64(double x, double y) { return cr_pow(x, y); }
  static float powf_f32(float x, float y) { return cr_powf(x, y); }
  static double sin_f64(double x) { return cr_sin(x); }
  static double cos_f64(double x) { return cr_cos(x); }
  static double atan2_f64(double y, double x) { return cr_atan2(y, x); }
};

struct FastMathPolicy {
  using real = double;
  bool undecided = false;
  EXACTVMAF_HD_INLINE double log2_f64(double x) {
    double r = 0.0;
    if (!cr_log2_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double exp_f64(double x) {
    double r = 0.0;
    if (!cr_exp_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double pow_f64(double x, double y) {
    double r = 0.0;
    if (!cr_pow_fast(x, y, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE float powf_f32(float x, float y) {
    float r = 0.0f;
    if (!cr_powf_fast(x, y, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double sin_f64(double x) {
    double r = 0.0;
    if (!cr_sin_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double cos_f64(double x) {
    double r = 0.0;
    if (!cr_cos_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE double atan2_f64(double y, double x) {
    double r = 0.0;
    if (!cr_atan2_fast(y, x, &r)) undecided = true;
    return r;
  }
};

struct Sf64FastMathPolicy {
  using real = Sf64;
  bool undecided = false;
  EXACTVMAF_HD_INLINE Sf64 log2_f64(Sf64 x) {
    Sf64 r;
    if (!cr_log2_fast(x, &r)) undecided = true;
    return r;
  }
  EXACTVMAF_HD_INLINE Sf64 none() {
    undecided = true;
    return Sf64{};
  }
  EXACTVMAF_HD_INLINE Sf64 exp_f64(Sf64) { return none(); }
  EXACTVMAF_HD_INLINE Sf64 sin_f64(Sf64) { return none(); }
  EXACTVMAF_HD_INLINE Sf64 cos_f64(Sf64) { return none(); }
};

template <class M>
using real_of = typename M::real;

}  // namespace exactvmaf::rmath
