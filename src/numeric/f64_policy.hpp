// How a feature's fp64 islands evaluate binary64 (docs/design.md, "fp64
// islands and the device-arithmetic policy"). Every island of a _math.hpp
// (vif, adm, float_adm) and the per-sample function that calls it take the
// policy as their last argument,
//
//   template <class F = NativeF64>
//   EXACTVMAF_HD_INLINE std::int32_t residual_variance_i32(std::int32_t s2, double g, std::int32_t s12, F&& f = F{});
//
// and write the island with the policy's value type and decision points:
//   - values: `f64_of<F>` (the policy's f64), built from ints and
//     floats and combined with + - * / (each one IEEE binary64 operation,
//     rounded to nearest);
//   - decision points, where a value leaves binary64 or steers control:
//     f.trunc_i32 / f.trunc_i64 (x86's truncating conversions, below),
//     f.to_f32 (a store to float), f.lt / f.ge (comparisons, false on NaN);
//   - f.trunc_i32_range / f.trunc_i64_range: the same truncations as the
//     range of integers the policy can vouch for (one value for an exact
//     policy), for an island whose caller only needs to know that the result
//     lies in a range; where the range is too wide for it, the island calls
//     f.cannot_decide().
// NativeF64 is the hardware's double (host and CUDA with fp64). A policy
// without fp64 (fp32 pairs with a running error bound) supplies the same
// members, sets its own `undecided` flag where a decision point cannot be
// made from its bound, and is passed by the kernel as an lvalue; the island
// code and the callers that take F stay as they are.
#pragma once
#include <cstdint>
#include <type_traits>

#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

// C's (int32_t)/(int64_t) of a double as x86-64 executes them (cvttsd2si):
// truncation toward zero, and the "integer indefinite" value (the minimum)
// for NaN and out-of-range input. Upstream's C leaves those undefined; its
// x86 build does this, so R does.
EXACTVMAF_HD_INLINE std::int32_t x86_trunc_i32(double x) {
  if (!(x > -2147483649.0 && x < 2147483648.0)) return INT32_MIN;
  return static_cast<std::int32_t>(x);
}

EXACTVMAF_HD_INLINE std::int64_t x86_trunc_i64(double x) {
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<std::int64_t>(x);
}

template <class F>
using f64_of = typename std::remove_reference_t<F>::f64;

// A closed range of integers: where R's truncation of an island's value lies.
struct I64Range {
  std::int64_t lo, hi;
};

struct NativeF64 {
  using f64 = double;
  static constexpr bool native_fp64 = true;  // R's elementary functions may run their fp64 fast paths
  EXACTVMAF_HD_INLINE std::int32_t trunc_i32(double x) const { return x86_trunc_i32(x); }
  EXACTVMAF_HD_INLINE std::int64_t trunc_i64(double x) const { return x86_trunc_i64(x); }
  EXACTVMAF_HD_INLINE I64Range trunc_i32_range(double x) const { return {x86_trunc_i32(x), x86_trunc_i32(x)}; }
  EXACTVMAF_HD_INLINE I64Range trunc_i64_range(double x) const { return {x86_trunc_i64(x), x86_trunc_i64(x)}; }
  EXACTVMAF_HD_INLINE void cannot_decide() const {}  // never called: its ranges are single values
  EXACTVMAF_HD_INLINE float to_f32(double x) const { return static_cast<float>(x); }
  EXACTVMAF_HD_INLINE bool lt(double a, double b) const { return a < b; }
  EXACTVMAF_HD_INLINE bool ge(double a, double b) const { return a >= b; }
  // An island (a pure function of an f64 policy) evaluated on this policy;
  // Fp32PairArith (numeric/fp32pair.hpp) evaluates it on pairs instead.
  template <class Island>
  EXACTVMAF_HD_INLINE auto island(Island&& fn) const {
    return fn(*this);
  }
  template <class Island>
  EXACTVMAF_HD_INLINE auto exact_island(Island&& fn) const {
    return fn(*this);
  }
};

}  // namespace exactvmaf::rmath
