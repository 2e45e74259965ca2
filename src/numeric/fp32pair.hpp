// The fp32-pair device arithmetic (docs/fp64-free.md): R's fp64 islands with
// fp32 operations only. A value is an unevaluated sum hi + lo of two floats
// (about 48 bits) and a bound `err` on its distance to the double R holds at
// that point of the island, so the bound covers R's own roundings (2^-53 per
// operation) as well as the pair's. A decision point (a store to float, a
// truncation to an integer, a comparison) is decided when every value within
// `err` gives the same result; otherwise the policy is `undecided` and the
// caller replays the whole island exactly in Sf64 (numeric/sf64.hpp).
//
// Error-free transformations: two_sum (Knuth) and two_prod. two_prod is an
// explicit fmaf on the device and a double product on the host; both give the
// exact product's error term rounded once, so the two give the same bits. An fmaf written
// here is part of an exact transformation, not a contraction of a*b+c: the
// rest of the code is compiled with contraction off (docs/numerics.md).
//
// Bounds (u = 2^-24; derivations in docs/fp64-free.md): pair + pair and
// float * pair carry their dropped roundings exactly (error-free two_sums
// in Joldes, Muller, Popescu's Algorithm 6, ACM TOMS 44(2), 2017), so an
// exact result keeps err = 0; pair * pair <= 8u^2 (Dekker's product without
// the lo*lo term), pair / pair <= 16u^2 (one correction step from the exact
// residual); the constants below are 9u^2 and 32u^2, with R's 2^-53 in them. Error terms are computed in
// float and scaled by kSlack = 1 + 2^-18, which covers their own roundings.
// Values outside [2^-100, 2^100] in magnitude (where the pair's low part or
// the exact product's error term would be subnormal) get an infinite bound:
// undecided.
#pragma once
#include <cstdint>

#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/sf64.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace pair_detail {

inline constexpr float kSlack = 1.0f + 0x1p-18f;
inline constexpr float kMulRel = 0x1.2p-45f;  // 9u^2 >= 8u^2 + 2^-53 + higher-order terms
inline constexpr float kDivRel = 0x1p-43f;  // 32u^2, twice the 16u^2 + 2^-53
inline constexpr float kMin = 0x1p-100f, kMax = 0x1p100f;
inline constexpr float kInfErr = 0x1p127f;  // "no bound": every decision fails

EXACTVMAF_HD_INLINE float abs_f32(float x) { return x < 0.0f ? -x : x; }

EXACTVMAF_HD_INLINE float floor_f32(float x) {
#if EXACTVMAF_DEVICE_CODE
  return floorf(x);
#else
  return __builtin_floorf(x);
#endif
}
EXACTVMAF_HD_INLINE float ceil_f32(float x) {
#if EXACTVMAF_DEVICE_CODE
  return ceilf(x);
#else
  return __builtin_ceilf(x);
#endif
}

// Round to the nearest integer, ties to even (|x| < 2^23 or already integral).
EXACTVMAF_HD_INLINE float rint_f32(float x) {
#if EXACTVMAF_DEVICE_CODE
  return rintf(x);
#else
  return __builtin_rintf(x);
#endif
}

struct Two {
  float hi, lo;
};

// hi + lo == a + b exactly, hi = RN(a + b).
EXACTVMAF_HD_INLINE Two two_sum(float a, float b) {
  const float s = a + b;
  const float bb = s - a;
  const float e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// Same, for |a| >= |b| (or a == 0).
EXACTVMAF_HD_INLINE Two fast_two_sum(float a, float b) {
  const float s = a + b;
  return {s, b - (s - a)};
}

// hi + lo == a * b exactly (no overflow; the error term not below 2^-149).
EXACTVMAF_HD_INLINE Two two_prod(float a, float b) {
  const float p = a * b;
#if EXACTVMAF_DEVICE_CODE
  return {p, __fmaf_rn(a, b, -p)};
#else
  // The host has a double: the product of two floats is exact in it, and
  // its error term rounded to float is what the device's fmaf returns (also
  // where that term is subnormal).
  const double exact = static_cast<double>(a) * static_cast<double>(b);
  return {p, static_cast<float>(exact - static_cast<double>(p))};
#endif
}

// Bound arithmetic: a product of two nonzero bound terms never underflows to
// 0 (floored at 2^-140), and a nonzero bound gets an absolute 2^-145 on top of
// its relative slack (subnormal terms are rounded to 2^-149).
EXACTVMAF_HD_INLINE float bound_mul(float x, float y) {
  const float p = x * y;
  return (p < 0x1p-140f && x != 0.0f && y != 0.0f) ? 0x1p-140f : p;
}
EXACTVMAF_HD_INLINE float bound_div(float x, float y) {
  const float q = x / y;
  return (q < 0x1p-140f && x != 0.0f) ? 0x1p-140f : q;
}
EXACTVMAF_HD_INLINE float bound_finish(float terms) { return terms == 0.0f ? 0.0f : terms * kSlack + 0x1p-145f; }

EXACTVMAF_HD_INLINE bool in_range(float hi) {
  const float a = abs_f32(hi);
  return hi == 0.0f || (a >= kMin && a <= kMax);
}

// 2^e as a float, built from its bits (host and device).
EXACTVMAF_HD_INLINE float pow2_f32(int e) {  // -126 <= e <= 127
  return sf64_detail::float_of_bits(static_cast<std::uint32_t>(e + 127) << 23);
}

}  // namespace pair_detail

struct PairF64 {
  float hi = 0.0f, lo = 0.0f, err = 0.0f;

  PairF64() = default;
  EXACTVMAF_HD_INLINE PairF64(float h, float l, float e) : hi(h), lo(l), err(e) {}
  EXACTVMAF_HD_INLINE explicit PairF64(float x) : hi(x) {}
  EXACTVMAF_HD_INLINE explicit PairF64(std::int64_t v) { *this = of_i64(v); }
  EXACTVMAF_HD_INLINE explicit PairF64(std::int32_t v) { *this = of_i64(v); }
  EXACTVMAF_HD_INLINE explicit PairF64(std::uint32_t v) { *this = of_i64(std::int64_t{v}); }
  // A double (a literal, or a parameter's bits): split with integer
  // operations, so no fp64 instruction touches it.
  EXACTVMAF_HD_INLINE explicit PairF64(double x) { *this = of_f64_bits(sf64_detail::double_bits(x)); }

  EXACTVMAF_HD_INLINE static PairF64 of_i64(std::int64_t v) {
    using pair_detail::kInfErr;
    if (v >= (std::int64_t{1} << 62) || v <= -(std::int64_t{1} << 62))
      return {static_cast<float>(v), 0.0f, kInfErr};
    const float h = static_cast<float>(v);
    const std::int64_t rem = v - static_cast<std::int64_t>(h);
    const float l = static_cast<float>(rem);
    const std::int64_t rem2 = rem - static_cast<std::int64_t>(l);
    const float e = rem2 == 0 ? 0.0f : pair_detail::bound_finish(pair_detail::abs_f32(static_cast<float>(rem2)));
    return {h, l, e};
  }

  EXACTVMAF_HD_INLINE static PairF64 of_f64_bits(std::uint64_t u) {
    using namespace pair_detail;
    const bool neg = (u >> 63) != 0;
    const int field = static_cast<int>((u >> 52) & 0x7ff);
    const std::uint64_t frac = u & sf64_detail::kFrac;
    if (field == 0 && frac == 0) return {neg ? -0.0f : 0.0f, 0.0f, 0.0f};
    const int e = field - 1075;  // value = m * 2^e
    if (field == 0x7ff || e < -112 || e > 48) {
      const float h = sf64_detail::float_of_bits(sf64_detail::to_f32_bits(u));
      return {h, 0.0f, kInfErr};
    }
    const std::uint64_t m = frac | sf64_detail::kHidden;
    const float h = static_cast<float>(m >> 29) * pow2_f32(e + 29);  // 24 bits: exact
    const std::uint32_t rem = static_cast<std::uint32_t>(m & 0x1fffffffu);
    const float lr = static_cast<float>(rem);  // rounded to 24 bits
    const std::int64_t rem2 = std::int64_t{rem} - static_cast<std::int64_t>(lr);
    const float scale = pow2_f32(e);
    const Two t = fast_two_sum(h, lr * scale);
    const float err = rem2 == 0 ? 0.0f : bound_finish(abs_f32(static_cast<float>(rem2)) * scale);
    return neg ? PairF64{-t.hi, -t.lo, err} : PairF64{t.hi, t.lo, err};
  }
};

namespace pair_detail {

EXACTVMAF_HD_INLINE PairF64 finish(Two z, float err) {
  if (!in_range(z.hi)) err = kInfErr;
  return {z.hi, z.lo, err};
}

// The sum of two pairs with the two roundings of Joldes et al.'s Algorithm 6
// made error-free: the exact sum is z.hi + z.lo + dropped, where |dropped| <=
// *dropped_bound (0 when the pair sum is exact).
EXACTVMAF_HD_INLINE Two add_pairs(float ah, float al, float bh, float bl, float* dropped_bound) {
  const Two s = two_sum(ah, bh);
  const Two t = two_sum(al, bl);
  const Two c = two_sum(s.lo, t.hi);
  const Two v = fast_two_sum(s.hi, c.hi);
  const Two w = two_sum(t.lo, v.lo);
  *dropped_bound = abs_f32(c.lo) + abs_f32(w.lo);
  return fast_two_sum(v.hi, w.hi);
}

EXACTVMAF_HD_INLINE int ctz32(std::uint32_t x) {
#if EXACTVMAF_DEVICE_CODE
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

// Does binary64 hold hi + lo exactly: from hi's leading bit to lo's lowest
// set bit at most 53 bits? (Normal floats; otherwise "no", which is safe.)
EXACTVMAF_HD_INLINE bool fits_f64(Two z) {
  if (z.lo == 0.0f) return true;
  const std::uint32_t h = sf64_detail::float_bits(z.hi), l = sf64_detail::float_bits(z.lo);
  const int eh = static_cast<int>((h >> 23) & 0xff), el = static_cast<int>((l >> 23) & 0xff);
  if (eh == 0 || el == 0) return false;
  const int lowest = el + ctz32((l & 0x7fffffu) | 0x800000u);  // biased exponent of lo's lowest bit, + 23
  return eh - (lowest - 23) <= 52;
}

// The bound after an operation whose pair result z is off the exact result of
// the pair operands by at most `pair_err`: the operands' propagated error,
// the pair's, and R's rounding of its own result to double (none when R's
// operands are exact, i.e. prop == 0, and so is the pair and fits_f64).
EXACTVMAF_HD_INLINE PairF64 finish_exact_aware(Two z, float prop, float pair_err) {
  const float r_round = (prop == 0.0f && pair_err == 0.0f && fits_f64(z)) ? 0.0f : bound_mul(0x1p-53f, abs_f32(z.hi));
  return finish(z, bound_finish(prop + pair_err + r_round));
}

}  // namespace pair_detail

EXACTVMAF_HD_INLINE PairF64 operator+(PairF64 a, PairF64 b) {
  using namespace pair_detail;
  float dropped;
  const Two z = add_pairs(a.hi, a.lo, b.hi, b.lo, &dropped);
  return finish_exact_aware(z, a.err + b.err, dropped);
}

EXACTVMAF_HD_INLINE PairF64 operator-(PairF64 a, PairF64 b) { return a + PairF64{-b.hi, -b.lo, b.err}; }

EXACTVMAF_HD_INLINE PairF64 operator*(PairF64 a, PairF64 b) {
  using namespace pair_detail;
  const float prop = bound_mul(abs_f32(a.hi), b.err) + bound_mul(abs_f32(b.hi), a.err) + bound_mul(a.err, b.err);
  const Two p = two_prod(a.hi, b.hi);
  if (a.lo == 0.0f || b.lo == 0.0f) {
    // A float times a pair: (ah + al) * bh, or ah * (bh + bl), exactly the
    // sum of two exact products.
    const Two q = a.lo == 0.0f ? two_prod(a.hi, b.lo) : two_prod(a.lo, b.hi);
    float dropped;
    const Two z = add_pairs(p.hi, p.lo, q.hi, q.lo, &dropped);
    return finish_exact_aware(z, prop, dropped);
  }
  const float cross = a.hi * b.lo + a.lo * b.hi;
  const Two z = fast_two_sum(p.hi, p.lo + cross);
  return finish(z, bound_finish(prop + bound_mul(kMulRel, abs_f32(z.hi))));
}
EXACTVMAF_HD_INLINE PairF64 operator/(PairF64 a, PairF64 b) {
  using namespace pair_detail;
  if (!(b.err < 0.5f * abs_f32(b.hi)) || !in_range(b.hi) || b.hi == 0.0f) return {a.hi / b.hi, 0.0f, kInfErr};
  const float q1 = a.hi / b.hi;
  // The residual a - q1 * b: q1 * b.hi exactly, a.hi minus its high part is
  // exact (Sterbenz), the rest is rounded.
  const Two p = two_prod(q1, b.hi);
  const float r = (((a.hi - p.hi) - p.lo) + a.lo) - q1 * b.lo;
  const float q2 = r / b.hi;
  const Two z = fast_two_sum(q1, q2);
  if (a.err == 0.0f && b.err == 0.0f && a.lo == 0.0f && b.lo == 0.0f && abs_f32(b.hi) >= 0x1p-50f) {
    // Exact float operands whose quotient a pair holds exactly: R's double
    // quotient is exact too when it fits binary64, so the bound is 0 (a tie
    // of the later float store is then decided). The residual a - q1 * b is
    // a.hi - p.hi (exact, Sterbenz) minus p.lo; exact when two_sum drops
    // nothing; q2 is exact when q2 * b.hi gives it back with no error (no
    // product below 2^-100, so no error term underflows).
    const Two rr = two_sum(a.hi - p.hi, -p.lo);
    const float q2e = rr.hi / b.hi;
    const Two back = two_prod(q2e, b.hi);
    if (rr.lo == 0.0f && back.hi == rr.hi && back.lo == 0.0f && (q2e == 0.0f || abs_f32(q2e) >= 0x1p-50f) &&
        in_range(q1)) {
      const Two ze = fast_two_sum(q1, q2e);
      if (fits_f64(ze)) return {ze.hi, ze.lo, 0.0f};
    }
  }
  const float den = abs_f32(b.hi) * (1.0f - 0x1p-22f) - b.err;
  const float prop = bound_div(a.err + bound_mul(abs_f32(z.hi), b.err), den);
  return finish(z, bound_finish(prop + bound_mul(kDivRel, abs_f32(z.hi))));
}

// A double operand is a constant of the code (split into a pair with integer
// operations, its representation error in err), so generic code reads the
// same for double, Sf64 and pairs.
#define EXACTVMAF_PAIR_MIXED(op)                                                                   \
  EXACTVMAF_HD_INLINE PairF64 operator op(PairF64 a, double b) { return a op PairF64(b); }          \
  EXACTVMAF_HD_INLINE PairF64 operator op(double a, PairF64 b) { return PairF64(a) op b; }
EXACTVMAF_PAIR_MIXED(+)
EXACTVMAF_PAIR_MIXED(-)
EXACTVMAF_PAIR_MIXED(*)
EXACTVMAF_PAIR_MIXED(/)
#undef EXACTVMAF_PAIR_MIXED

namespace pair_detail {

// The unbiased exponent of a normal float (floor(log2 |x|)).
EXACTVMAF_HD_INLINE int exponent_f32(float x) {
  return static_cast<int>((sf64_detail::float_bits(x) >> 23) & 0xffu) - 127;
}

// x * 2^k for a float, exact while the result is a normal float (two steps
// where 2^k itself is not one).
EXACTVMAF_HD_INLINE float scale_f32(float x, int k) {
  while (k > 127) {
    x *= 0x1p127f;
    k -= 127;
  }
  while (k < -126) {
    x *= 0x1p-126f;
    k += 126;
  }
  return x * pow2_f32(k);
}

}  // namespace pair_detail

// x * 2^k: hi, lo and err scaled. Exact where they stay normal; a low part or
// bound that falls below the normal range adds 2^-148 (more than it can lose)
// to the bound, and a result outside [2^-100, 2^100] gets no bound.
EXACTVMAF_HD_INLINE PairF64 scale_pair(PairF64 x, int k) {
  using namespace pair_detail;
  const float hi = scale_f32(x.hi, k), lo = scale_f32(x.lo, k);
  float err = x.err == 0.0f ? 0.0f : scale_f32(x.err, k);
  if ((lo != 0.0f && abs_f32(lo) < 0x1p-126f) || (x.err != 0.0f && err < 0x1p-126f)) err += 0x1p-148f;
  if (x.err >= kInfErr || !in_range(hi)) err = kInfErr;
  return {hi, lo, err};
}

// The f64 policy on pairs (numeric/f64_policy.hpp). A decision it cannot make
// sets `undecided` and returns an arbitrary value; the island is then
// replayed in Sf64 (Fp32PairArith::island).
struct Fp32PairF64 {
  using f64 = PairF64;
  bool undecided = false;

  EXACTVMAF_HD_INLINE float to_f32(PairF64 x) {
    using namespace pair_detail;
    const Two s = two_sum(x.hi, x.lo);  // s.hi = RN(v), s.lo = v - s.hi exactly
    if (x.err == 0.0f) return s.hi;
    const float a = abs_f32(s.hi);
    if (!(a >= 0x1p-100f && a < 0x1p127f)) {
      undecided = true;
      return s.hi;
    }
    // The rounding boundaries around s.hi: half an ulp of its binade away
    // from zero, and toward zero too unless s.hi is a power of two (then a
    // quarter). v = s.hi + s.lo lies on the side s.lo points to; the bound
    // must stay inside both.
    const std::uint32_t bits = sf64_detail::float_bits(a);
    const float half_away = sf64_detail::float_of_bits((bits & 0x7f800000u) - (24u << 23));
    const float half_toward = (bits & 0x7fffffu) == 0 ? 0.5f * half_away : half_away;
    const bool lo_away = (s.lo > 0.0f) == (s.hi > 0.0f) && s.lo != 0.0f;
    const float lo_side = lo_away ? half_away : half_toward, other_side = lo_away ? half_toward : half_away;
    // lo_side - |s.lo| is exact (Sterbenz) once |s.lo| >= lo_side / 2, and
    // within 2^-24 of itself below: the (1 - 2^-22) covers it. (Testing
    // (|s.lo| + err) * kSlack instead would lose every value within 2^-18
    // of a boundary: a' = 1.5 a near a midpoint, with G just below 1.)
    if (!(x.err * kSlack < (lo_side - abs_f32(s.lo)) * (1.0f - 0x1p-22f) && x.err * kSlack < other_side))
      undecided = true;
    return s.hi;
  }

  // The integer nearest to every value within x's bound (|x| < 2^24): n =
  // rint(hi), d = (hi - n) + lo (hi - n exact: Sterbenz, or n = 0; one
  // rounding of d), moved to the next integer when lo carries x past a
  // half-integer hi; decided when |d| with its rounding and the bound stays
  // below 1/2 (so never on a tie).
  EXACTVMAF_HD_INLINE bool nearest_integer(PairF64 x, float* n_out) {
    using namespace pair_detail;
    float n = rint_f32(x.hi);
    float d = (x.hi - n) + x.lo;
    if (d > 0.5f) {  // d - 1 exact (Sterbenz)
      n += 1.0f;
      d -= 1.0f;
    } else if (d < -0.5f) {
      n -= 1.0f;
      d += 1.0f;
    }
    if (!(abs_f32(x.hi) < 0x1p24f) || !((abs_f32(d) * (1.0f + 0x1p-22f) + x.err) * kSlack < 0.5f)) {
      undecided = true;
      return false;
    }
    *n_out = n;
    return true;
  }

  // RN32(x * 2^e) for any e (x in the pair range): where the result is a
  // normal float from 2^-125 up, it is to_f32(x) * 2^e (rounding commutes
  // with the scaling there); below, floats are the multiples of 2^-149, so
  // z = x * 2^(e+149) (below 2^24) is rounded to an integer n: decided when
  // the distance d of z to n, with its one rounding (2^-24 |d|) and the
  // bound, stays below 1/2. n * 2^-149 has the bits n (subnormal, or the
  // two lowest normal binades). A value far below 2^-150 (z < 1/4 with its
  // bound) is a zero of x's sign; the caller states where that sign cannot
  // matter (a pair does not carry R's sign of zero).
  EXACTVMAF_HD_INLINE float to_f32_scaled(PairF64 x, int e) {
    using namespace pair_detail;
    if (x.hi == 0.0f && x.lo == 0.0f && x.err == 0.0f) return x.hi;
    if (!(x.err < kInfErr) || x.hi == 0.0f || !(x.err < abs_f32(x.hi))) {
      undecided = true;
      return 0.0f;
    }
    const int ex = exponent_f32(x.hi) + e;
    if (ex > 126) {
      undecided = true;
      return 0.0f;
    }
    if (ex >= -125) return scale_f32(to_f32(x), e);
    const bool neg = x.hi < 0.0f;
    if (ex <= -154) return neg ? -0.0f : 0.0f;  // |x 2^e| < 2^-152 (err below |x|)
    const PairF64 z = scale_pair(x, e + 149);  // |z| < 2^24; may lose lo bits (in its err)
    float n = 0.0f;
    if (!nearest_integer(z, &n)) return 0.0f;
    const float out = sf64_detail::float_of_bits(static_cast<std::uint32_t>(abs_f32(n)));
    return neg ? -out : out;
  }

  // x's value as n + d_low with n an integer and 0 <= d_low < 1, d_high = 1 -
  // d_low (each computed exactly or to a relative 2^-22, which kSlack
  // covers); false (and undecided) when the bound is 1/4 or more or |x| is
  // 2^62 or more.
  EXACTVMAF_HD_INLINE bool split_floor(PairF64 x, std::int64_t* n_out, float* d_low_out, float* d_high_out) {
    using namespace pair_detail;
    if (!(x.err < 0.25f) || !(abs_f32(x.hi) < 0x1p62f)) {
      undecided = true;
      return false;
    }
    std::int64_t n;
    float d_low, d_high;
    const float fh = floor_f32(x.hi);
    if (fh == x.hi) {
      const float fl = floor_f32(x.lo);
      n = static_cast<std::int64_t>(x.hi) + static_cast<std::int64_t>(fl);
      if (x.lo >= 0.0f) {
        d_low = x.lo - fl;
        d_high = 1.0f - d_low;
      } else {
        d_high = ceil_f32(x.lo) - x.lo;
        d_low = d_high == 0.0f ? 0.0f : 1.0f - d_high;
        if (d_high == 0.0f) d_high = 1.0f;
      }
    } else {
      n = static_cast<std::int64_t>(fh);
      d_low = (x.hi - fh) + x.lo;
      d_high = ((fh + 1.0f) - x.hi) - x.lo;
    }
    *n_out = n;
    *d_low_out = d_low;
    *d_high_out = d_high;
    return true;
  }

  EXACTVMAF_HD_INLINE std::int64_t trunc_i64(PairF64 x) {
    using namespace pair_detail;
    std::int64_t n;
    float d_low, d_high;
    if (!split_floor(x, &n, &d_low, &d_high)) return INT64_MIN;
    if (x.err == 0.0f) return (n >= 0 || d_low == 0.0f) ? n : n + 1;
    const float e = x.err * kSlack;
    if (e < d_low && e < d_high) return n >= 0 ? n : n + 1;
    if ((abs_f32(x.hi) + abs_f32(x.lo) + x.err) * kSlack < 1.0f) return 0;
    undecided = true;
    return n;
  }

  // The truncations of every value within the bound: trunc is monotone, so
  // they lie between trunc(v - e) and trunc(v + e). floor(v - e) is n, or n -
  // 1 once e reaches d_low; floor(v + e) is n, or n + 1 once e reaches d_high
  // (e < 1/4); trunc(w) is floor(w) for w >= 0 and at most floor(w) + 1 below.
  // A bound of 1/4 or more (a large value): v = whole + frac with whole =
  // floor(hi) (exact) and frac = (hi - whole) + lo (hi - whole exact, one
  // rounding); the floors of frac -+ e, with a margin of a relative 2^-21 of
  // |frac| + e for frac's and the two ends' roundings, are added to whole.
  EXACTVMAF_HD_INLINE I64Range trunc_i64_range(PairF64 x) {
    using namespace pair_detail;
    if (!(x.err < 0.25f)) {
      if (!(abs_f32(x.hi) < 0x1p60f && x.err < 0x1p60f)) {
        undecided = true;
        return {INT64_MIN, INT64_MIN};
      }
      const float whole = floor_f32(x.hi);
      const float frac = (x.hi - whole) + x.lo;
      const float reach = (abs_f32(frac) + x.err) * 0x1p-21f + x.err * kSlack;
      if (!(abs_f32(frac) + reach < 0x1p61f)) {  // also NaN
        undecided = true;
        return {INT64_MIN, INT64_MIN};
      }
      const std::int64_t base = static_cast<std::int64_t>(whole);
      const std::int64_t lo = base + static_cast<std::int64_t>(floor_f32(frac - reach));
      const std::int64_t hi = base + static_cast<std::int64_t>(floor_f32(frac + reach));
      return {lo, hi + (hi < 0 ? 1 : 0)};
    }
    std::int64_t n;
    float d_low, d_high;
    if (!split_floor(x, &n, &d_low, &d_high)) return {INT64_MIN, INT64_MIN};
    if (x.err == 0.0f) {
      const std::int64_t t = (n >= 0 || d_low == 0.0f) ? n : n + 1;
      return {t, t};
    }
    const float e = x.err * kSlack;
    const std::int64_t floor_lo = e < d_low ? n : n - 1;
    const std::int64_t floor_hi = e < d_high ? n : n + 1;
    return {floor_lo, floor_hi + (n < 0 ? 1 : 0)};
  }

  // The same for int32: x86 gives INT32_MIN for a value out of range, so a
  // range that leaves int32 includes INT32_MIN and keeps its part inside.
  EXACTVMAF_HD_INLINE I64Range trunc_i32_range(PairF64 x) {
    const I64Range r = trunc_i64_range(x);
    const bool leaves = r.lo < INT32_MIN || r.hi > INT32_MAX;
    return {leaves ? std::int64_t{INT32_MIN} : r.lo, r.hi < INT32_MIN ? INT32_MIN : (r.hi > INT32_MAX ? INT32_MAX : r.hi)};
  }

  EXACTVMAF_HD_INLINE void cannot_decide() { undecided = true; }

  EXACTVMAF_HD_INLINE std::int32_t trunc_i32(PairF64 x) {
    const std::int64_t t = trunc_i64(x);
    if (t < INT32_MIN || t > INT32_MAX) return INT32_MIN;
    return static_cast<std::int32_t>(t);
  }

  // The sign of a - b: decided when the pair difference is farther from 0
  // than the bound, or when both are exact.
  // Returns -1, 0 or 1, or 2 for NaN and for undecided (which it flags).
  EXACTVMAF_HD_INLINE int compare(PairF64 a, PairF64 b) {
    using namespace pair_detail;
    float dropped;
    const Two d = add_pairs(a.hi, a.lo, -b.hi, -b.lo, &dropped);
    const float e = bound_finish(a.err + b.err + dropped);
    if (e == 0.0f) return d.hi < 0.0f ? -1 : (d.hi > 0.0f ? 1 : (d.hi == 0.0f ? 0 : 2));
    if (e < abs_f32(d.hi)) return d.hi < 0.0f ? -1 : 1;
    undecided = true;
    return 2;
  }
  EXACTVMAF_HD_INLINE bool lt(PairF64 a, PairF64 b) { return compare(a, b) == -1; }
  EXACTVMAF_HD_INLINE bool ge(PairF64 a, PairF64 b) {
    const int c = compare(a, b);
    return c == 0 || c == 1;
  }
};

// The device arithmetic without fp64, as the outer policy a kernel passes to
// a feature's _math.hpp: each island runs on pairs, and the few whose pairs
// cannot decide are replayed in Sf64. `replays` counts those (per thread; the
// workers and tests sum and bound it).
struct Fp32PairArith {
  static constexpr bool native_fp64 = false;  // no fp64 instruction anywhere in the kernel
  std::uint32_t islands = 0, replays = 0, exact = 0;  // island(), its replays, exact_island()
  template <class Island>
  EXACTVMAF_HD_INLINE auto island(Island&& fn) {
    ++islands;
    Fp32PairF64 p;
    auto r = fn(p);
    if (!p.undecided) return r;
    ++replays;
    Sf64Policy s;
    return fn(s);
  }
  // An island whose R result sits on a rounding boundary too often for pairs
  // (a product with the gain limit that R rounds to an integer, a ratio that
  // is 1 - 2^-40 on identical pictures): Sf64 directly, no attempt on pairs.
  template <class Island>
  EXACTVMAF_HD_INLINE auto exact_island(Island&& fn) {
    ++exact;
    Sf64Policy s;
    return fn(s);
  }
};

}  // namespace exactvmaf::rmath
