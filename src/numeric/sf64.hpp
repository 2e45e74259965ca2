// sf64: IEEE binary64 in integer arithmetic (docs/fp64-free.md). Each
// operation returns the bits the hardware's double returns in round to
// nearest, ties to even, with gradual underflow (+, -, *, /, conversions,
// comparisons), so an fp64 island evaluated on Sf64 gives R's result on a
// device with no fp64 unit: no fp64 instruction is emitted (the integer
// operations only). It is the exact fallback of the fp32-pair policy, which
// decides almost every sample from pairs and replays the rest here.
// NaN results are the default quiet NaN (their payload never reaches an
// output: R's NaNs leave as the class NaN).
#pragma once
#include <cstdint>
#include <type_traits>

#include "numeric/dd.hpp"
#include "numeric/f64_policy.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace sf64_detail {

inline constexpr std::uint64_t kSign = 0x8000000000000000ull;
inline constexpr std::uint64_t kFrac = 0x000fffffffffffffull;
inline constexpr std::uint64_t kHidden = 0x0010000000000000ull;
inline constexpr std::uint64_t kInf = 0x7ff0000000000000ull;
inline constexpr std::uint64_t kQNaN = 0x7ff8000000000000ull;

EXACTVMAF_HD_INLINE int clz64(std::uint64_t x) {
#if EXACTVMAF_DEVICE_CODE
  return __clzll(static_cast<long long>(x));
#else
  return x ? __builtin_clzll(x) : 64;
#endif
}

EXACTVMAF_HD_INLINE bool is_nan(std::uint64_t u) { return (u & ~kSign) > kInf; }
EXACTVMAF_HD_INLINE bool is_inf(std::uint64_t u) { return (u & ~kSign) == kInf; }
EXACTVMAF_HD_INLINE bool is_zero(std::uint64_t u) { return (u & ~kSign) == 0; }

// A finite nonzero value as m * 2^e with m < 2^53 (subnormals: m < 2^52).
struct Unpacked {
  bool sign;
  int e;
  std::uint64_t m;
};
EXACTVMAF_HD_INLINE Unpacked unpack(std::uint64_t u) {
  const int field = static_cast<int>((u >> 52) & 0x7ff);
  const std::uint64_t frac = u & kFrac;
  if (field == 0) return {(u >> 63) != 0, -1074, frac};
  return {(u >> 63) != 0, field - 1075, frac | kHidden};
}

// Rounds (sig + t) * 2^ex, 0 <= t < 1 with t > 0 exactly when `sticky`, to
// the binary format with `prec` significand bits, smallest normal exponent
// emin and largest emax, ties to even; returns the sign-less bits (field
// width from prec) or the infinity on overflow. sig != 0.
EXACTVMAF_HD_INLINE std::uint64_t round_magnitude(int ex, std::uint64_t sig, bool sticky, int prec, int emin,
                                                  int emax) {
  const int lz = clz64(sig);
  sig <<= lz;
  ex -= lz;  // now sig's bit 63 has weight 2^(ex + 63)
  int top = ex + 63;
  const std::uint64_t inf = static_cast<std::uint64_t>(emax - emin + 2) << (prec - 1);
  if (top > emax) return inf;
  const int lsb = top >= emin ? top - (prec - 1) : emin - (prec - 1);  // weight of the kept LSB
  const int shift = lsb - ex;                                          // >= 64 - prec
  std::uint64_t kept, rem, half;
  if (shift >= 65) return 0;  // below half the smallest subnormal
  if (shift == 64) {
    kept = 0;
    rem = sig;
    half = kSign;
  } else {
    kept = sig >> shift;
    rem = sig & ((std::uint64_t{1} << shift) - 1);
    half = std::uint64_t{1} << (shift - 1);
  }
  // Up when above half, or at half with the sticky bit or an odd kept; without
  // a branch (for inexact results the direction is a coin toss, a branch
  // mispredicted half the time on the host).
  const std::uint64_t odd_or_sticky = (kept & 1) | static_cast<std::uint64_t>(sticky);
  kept += static_cast<std::uint64_t>(rem > half) | (static_cast<std::uint64_t>(rem == half) & odd_or_sticky);
  const std::uint64_t hidden = std::uint64_t{1} << (prec - 1);
  if (top < emin) return kept;  // subnormal, or the smallest normal after rounding up
  if (kept == (hidden << 1)) {
    kept = hidden;
    ++top;
    if (top > emax) return inf;
  }
  return (static_cast<std::uint64_t>(top - emin + 1) << (prec - 1)) | (kept - hidden);
}

EXACTVMAF_HD_INLINE std::uint64_t round_f64(bool sign, int ex, std::uint64_t sig, bool sticky) {
  return (sign ? kSign : 0) | round_magnitude(ex, sig, sticky, 53, -1022, 1023);
}

EXACTVMAF_HD_OUTLINE std::uint64_t add_bits(std::uint64_t a, std::uint64_t b) {
  if (is_nan(a) || is_nan(b)) return kQNaN;
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(a) && is_inf(b) && ((a ^ b) & kSign)) return kQNaN | kSign;  // inf - inf: x86's default NaN
    return is_inf(a) ? a : b;
  }
  if (is_zero(a) && is_zero(b)) return a & b;  // -0 only for -0 + -0
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  // |x| >= |y| (for finite values the bits order as the magnitudes), chosen
  // and combined with selects rather than branches: on a GPU, lanes that
  // took different branches would run one after the other.
  const bool swap = (a & ~kSign) < (b & ~kSign);
  const Unpacked x = unpack(swap ? b : a), y = unpack(swap ? a : b);
  // 10 guard bits keep every lost bit above the sticky one; y.m << 10 < 2^63,
  // so a shift by 63 leaves nothing, like any longer one.
  const int n = x.e - y.e < 63 ? x.e - y.e : 63;
  const std::uint64_t big = x.m << 10, ys = y.m << 10;
  const std::uint64_t small = ys >> n;
  const bool sticky = (ys & ((std::uint64_t{1} << n) - 1)) != 0;
  const int ex = x.e - 10;
  // A difference lies in (big - small - 1, big - small) when sticky.
  const std::uint64_t sum = x.sign == y.sign ? big + small : big - small - (sticky ? 1 : 0);
  if (sum == 0 && !sticky) return 0;  // x - x = +0
  return round_f64(x.sign, ex, sum, sticky);
}

// 64 x 64 -> 128 from 32-bit halves (no __int128 on the device).
EXACTVMAF_HD_INLINE void mul_64x64(std::uint64_t a, std::uint64_t b, std::uint64_t* hi, std::uint64_t* lo) {
  const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

EXACTVMAF_HD_OUTLINE std::uint64_t mul_bits(std::uint64_t a, std::uint64_t b) {
  const bool sign = ((a ^ b) & kSign) != 0;
  if (is_nan(a) || is_nan(b)) return kQNaN;
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return kQNaN | kSign;  // 0 * inf
    return (sign ? kSign : 0) | kInf;
  }
  if (is_zero(a) || is_zero(b)) return sign ? kSign : 0;
  const Unpacked x = unpack(a), y = unpack(b);
  std::uint64_t hi, lo;
  mul_64x64(x.m, y.m, &hi, &lo);
  if (hi == 0) return round_f64(sign, x.e + y.e, lo, false);
  const int s = clz64(hi);
  const std::uint64_t top = s ? (hi << s) | (lo >> (64 - s)) : hi;
  const bool sticky = (lo << s) != 0;
  return round_f64(sign, x.e + y.e + 64 - s, top, sticky);
}

// The IEEE float reciprocal and square root: correctly rounded on the host
// and on the device (__frcp_rn, __fsqrt_rn), so both compute the same bits.
// div_bits and sqrt_bits take their first 24 bits from these; no fp64.
EXACTVMAF_HD_INLINE float f32_rcp(float x) {
#if EXACTVMAF_DEVICE_CODE
  return __frcp_rn(x);
#else
  return 1.0f / x;
#endif
}
EXACTVMAF_HD_INLINE float f32_sqrt(float x) {
#if EXACTVMAF_DEVICE_CODE
  return __fsqrt_rn(x);
#else
  return __builtin_sqrtf(x);  // sqrtss
#endif
}

// Quotient and root estimates for div_bits and sqrt_bits: an fp32 start,
// then integer steps on exact remainders (32 x 32 and 64-bit products, no
// 128-bit ones). Each lands within (-0.999, 0.003) of the exact value.
// div_bits and sqrt_bits then fix the last unit from the exact remainder.
// Their results depend on these bounds only through |error| < 2^7 (2^9 for
// the quotient), because the remainders are computed modulo 2^64.
// fp64_free_test checks the premises below exhaustively, and the bounds on
// hard and random operands.
//
// div_recip(y), y in [2^52, 2^53): v = RN(1 / t) 2^53 for t = floor(y / 2^29)
// in [2^23, 2^24), an integer in [2^29, 2^30]; v = 2^82 / y (1 + d) with d in
// [-2^-24, 1.5001 2^-23) (RN's 2^-24 and y / (2^29 t) in [1, 1 + 2^-23)).
EXACTVMAF_HD_INLINE std::uint32_t div_recip(std::uint64_t y) {
  return static_cast<std::uint32_t>(f32_rcp(static_cast<float>(static_cast<std::uint32_t>(y >> 29))) * 0x1p53f);
}

// div_estimate(x, y), x and y in [2^52, 2^53): Q' with Q' - x 2^55 / y in
// (-0.999, 0.003). Three quotient digits, each the previous exact remainder
// times v, floored; Ek = (quotient so far) - x 2^Kk / y and rk = -Ek y:
//   d1 = floor(floor(x / 2^21) v / 2^32): E1 in (-2^6 - 1.25, 2^30 1.5001 2^-23) = (-65.25, 192.02);
//   d2 = floor(floor(r1 / 2^30) v / 2^36) = -E1 2^16 (1 + d) - (< 2^-6) - [0, 1): |E2| < 2.26 + 1.02 < 3.4;
//   d3 = floor(floor(r2 / 2^25) v / 2^47 + 2^-9): E3 in -E2 2^10 d + 2^-9 - (< 2^-17) - [0, 1), and
//   |E2 2^10 d| < 3.4 2^10 1.5001 2^-23 < 0.0007, so E3 in (-0.999, 0.003).
// The 2^-9 bias keeps an exact quotient (E3 = 0 wanted) from landing one low.
EXACTVMAF_HD_INLINE std::uint64_t div_estimate(std::uint64_t x, std::uint64_t y) {
  const std::uint32_t v = div_recip(y);
  const auto d1 =  // x 2^29 / y, in (2^28, 2^31)
      static_cast<std::uint32_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(x >> 21)) * v) >> 32);
  const auto r1 = static_cast<std::int64_t>((x << 29) - d1 * y);  // |r1| < 193 y < 2^61
  const std::int64_t d2 = (static_cast<std::int64_t>(static_cast<std::int32_t>(r1 >> 30)) * v) >> 36;
  const std::uint64_t q2 = (static_cast<std::uint64_t>(d1) << 16) + static_cast<std::uint64_t>(d2);
  const auto r2 = static_cast<std::int64_t>((x << 45) - q2 * y);  // |r2| < 3.4 y < 2^55
  const std::int64_t d3 =
      (static_cast<std::int64_t>(static_cast<std::int32_t>(r2 >> 25)) * v + (std::int64_t{1} << 38)) >> 47;
  return (q2 << 10) + static_cast<std::uint64_t>(d3);
}

EXACTVMAF_HD_OUTLINE std::uint64_t div_bits(std::uint64_t a, std::uint64_t b) {
  const bool sign = ((a ^ b) & kSign) != 0;
  if (is_nan(a) || is_nan(b)) return kQNaN;
  if (is_inf(a)) return is_inf(b) ? (kQNaN | kSign) : ((sign ? kSign : 0) | kInf);
  if (is_inf(b)) return sign ? kSign : 0;
  if (is_zero(b)) return is_zero(a) ? (kQNaN | kSign) : ((sign ? kSign : 0) | kInf);
  if (is_zero(a)) return sign ? kSign : 0;
  Unpacked x = unpack(a), y = unpack(b);
  // Both significands with bit 52 set.
  int s = clz64(x.m) - 11;
  x.m <<= s;
  x.e -= s;
  s = clz64(y.m) - 11;
  y.m <<= s;
  y.e -= s;
  // q = floor(x.m 2^55 / y.m), in (2^54, 2^56), and r = x.m 2^55 - q y.m.
  // For the estimate, r's low 64 bits are r itself (|r| < 2 y.m < 2^63; any
  // estimate within 2^9 would do). Each step keeps r = x.m 2^55 - q y.m
  // exact, and the loop ends only at 0 <= r < y.m: q is the floor and r its
  // remainder, however far off the estimate was. The rounding reads q
  // (>= 55 bits) and r != 0 as the sticky bit.
  std::uint64_t q = div_estimate(x.m, y.m);
  auto r = static_cast<std::int64_t>((x.m << 55) - q * y.m);
  const auto ym = static_cast<std::int64_t>(y.m);
  for (;;) {  // one loop for both directions: no closed form with a division
    if (r < 0) {
      --q;
      r += ym;
    } else if (r >= ym) {
      ++q;
      r -= ym;
    } else {
      break;
    }
  }
  return round_f64(sign, x.e - y.e - 55, q, r != 0);
}

EXACTVMAF_HD_OUTLINE std::uint64_t from_i64_bits(std::int64_t v) {
  if (v == 0) return 0;
  const bool sign = v < 0;
  const std::uint64_t mag = sign ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
  return round_f64(sign, 0, mag, false);
}

EXACTVMAF_HD_INLINE std::uint64_t from_f32_bits(std::uint32_t f) {
  const bool sign = (f >> 31) != 0;
  const int field = static_cast<int>((f >> 23) & 0xff);
  const std::uint64_t frac = f & 0x7fffffu;
  const std::uint64_t s = sign ? kSign : 0;
  if (field == 0xff) return frac ? (s | kQNaN | (frac << 29)) : (s | kInf);
  if (field == 0 && frac == 0) return s;
  if (field == 0) return round_f64(sign, -149, frac, false);
  return s | (static_cast<std::uint64_t>(field - 127 + 1023) << 52) | (frac << 29);
}

// The double's float, as cvtsd2ss rounds it (NaN: quiet, top payload bits).
EXACTVMAF_HD_OUTLINE std::uint32_t to_f32_bits(std::uint64_t a) {
  const std::uint32_t s = static_cast<std::uint32_t>(a >> 32) & 0x80000000u;
  if (is_nan(a)) return s | 0x7fc00000u | static_cast<std::uint32_t>((a & kFrac) >> 29);
  if (is_inf(a)) return s | 0x7f800000u;
  if (is_zero(a)) return s;
  const Unpacked x = unpack(a);
  return s | static_cast<std::uint32_t>(round_magnitude(x.e, x.m, false, 24, -126, 127));
}

// x86's cvttsd2si: truncation, INT_MIN of the width for NaN and out of range.
EXACTVMAF_HD_INLINE std::int64_t trunc_i64_bits(std::uint64_t a) {
  if (is_nan(a) || is_inf(a)) return INT64_MIN;
  if (is_zero(a)) return 0;
  const Unpacked x = unpack(a);
  if (x.e <= -53) return 0;
  if (x.e < 0) {
    const auto mag = static_cast<std::int64_t>(x.m >> -x.e);
    return x.sign ? -mag : mag;
  }
  if (x.e + 53 > 63) return INT64_MIN;  // |a| >= 2^63 (-2^63 itself is INT64_MIN too)
  const auto mag = static_cast<std::int64_t>(x.m << x.e);
  return x.sign ? -mag : mag;
}

EXACTVMAF_HD_INLINE std::int32_t trunc_i32_bits(std::uint64_t a) {
  const std::int64_t t = trunc_i64_bits(a);
  if (t == INT64_MIN || t < INT32_MIN || t > INT32_MAX) return INT32_MIN;
  return static_cast<std::int32_t>(t);
}

// sqrt_start(m), m in [2^52, 2^54): s = RN(sqrt(floor(m / 2^30))) 2^19, an
// integer in [2^30, 2^31] with s - sqrt(m 2^8) in (-192, 64] (the floor moves
// the root down by < 2^-12, RN by <= 2^-13, at the scale of 2^11); and
// w = RN(1 / (s 2^-19)) 2^41 = 2^60 / s (1 + d), |d| <= 2^-24, in [2^29, 2^30].
struct SqrtStart {
  std::uint32_t s, w;
};
EXACTVMAF_HD_INLINE SqrtStart sqrt_start(std::uint64_t m) {
  const float sf = f32_sqrt(static_cast<float>(static_cast<std::uint32_t>(m >> 30)));  // [2^11, 2^12]
  return {static_cast<std::uint32_t>(sf * 0x1p19f), static_cast<std::uint32_t>(f32_rcp(sf) * 0x1p41f)};
}

// sqrt_estimate(m), m in [2^52, 2^54): S' with S' - sqrt(m 2^56) in
// (-0.999, 0.003). Two Newton (Heron) steps on exact remainders, the
// division by 2 s done as a multiply by w; Ea = s - sqrt(m 2^8) and so on:
//   sb = s 2^14 + floor(floor(ra / 2^11) w / 2^36), ra = m 2^8 - s^2 = -Ea (s + sqrt(m 2^8)):
//   Heron's excess 2^14 Ea^2 / (2 s) < 0.29, d's part < 192 2^32 2^13 2^-30 2^-24 = 0.375, the
//   floors (-1.02, 0]: Eb in (-1.4, 0.67);
//   S' = sb 2^10 + floor(floor(rb / 2^17) w / 2^48 + 2^-9), rb = m 2^36 - sb^2: w is 2^74 / sb
//   within 2^-22, |rb 2^9 / sb| < 1.4 2^11, so d's part < 0.0007, Heron's excess < 2^-33:
//   E' in (-0.999, 0.003). The bias keeps an exact root from landing one low.
EXACTVMAF_HD_INLINE std::uint64_t sqrt_estimate(std::uint64_t m) {
  const SqrtStart st = sqrt_start(m);
  const auto ra = static_cast<std::int64_t>((m << 8) - static_cast<std::uint64_t>(st.s) * st.s);  // |ra| < 2^40
  const std::int64_t cb = (static_cast<std::int64_t>(static_cast<std::int32_t>(ra >> 11)) * st.w) >> 36;
  const std::uint64_t sb = (static_cast<std::uint64_t>(st.s) << 14) + static_cast<std::uint64_t>(cb);
  const auto rb = static_cast<std::int64_t>((m << 36) - sb * sb);  // |rb| < 1.4 2^46
  const std::int64_t cc =
      (static_cast<std::int64_t>(static_cast<std::int32_t>(rb >> 17)) * st.w + (std::int64_t{1} << 39)) >> 48;
  return (sb << 10) + static_cast<std::uint64_t>(cc);
}

// IEEE square root, as sqrtsd: q = floor(sqrt(R)) for the radicand
// R = m * 2^56 (m's exponent made even), so q has 55 bits and the remainder
// is the sticky bit. Negative input: x86's default NaN.
EXACTVMAF_HD_OUTLINE std::uint64_t sqrt_bits(std::uint64_t a) {
  if (is_nan(a)) return kQNaN;
  if (is_zero(a)) return a;  // sqrt(-0) = -0
  if (a & kSign) return kQNaN | kSign;
  if (is_inf(a)) return a;
  Unpacked x = unpack(a);
  const int s = clz64(x.m) - 11;  // bit 52 set (subnormals)
  x.m <<= s;
  x.e -= s;
  const int odd = x.e & 1;  // the exponent made even, without a branch
  x.m <<= odd;
  x.e -= odd;
  // q from the estimate, with the exact remainder rem = R - q^2: its low 64
  // bits are rem itself (|rem| < 4 q < 2^63; any estimate within 2^7 would
  // do). Each step keeps rem exact, and the loop ends only at
  // q^2 <= R < (q + 1)^2, i.e. 0 <= rem <= 2q: q = floor(sqrt(R)). The
  // rounding reads q (55 bits) and rem != 0 as the sticky bit.
  std::uint64_t q = sqrt_estimate(x.m);
  auto rem = static_cast<std::int64_t>((x.m << 56) - q * q);
  for (;;) {
    if (rem < 0) {
      --q;
      rem += static_cast<std::int64_t>(2 * q + 1);
    } else if (rem > static_cast<std::int64_t>(2 * q)) {
      rem -= static_cast<std::int64_t>(2 * q + 1);
      ++q;
    } else {
      break;
    }
  }
  return round_f64(false, x.e / 2 - 28, q, rem != 0);
}

// An order key: key(a) < key(b) iff a < b, for non-NaN a, b (zeros equal).
EXACTVMAF_HD_INLINE std::uint64_t order_key(std::uint64_t u) {
  if (is_zero(u)) return kSign;
  return (u & kSign) ? ~u : (u | kSign);
}
EXACTVMAF_HD_INLINE bool lt_bits(std::uint64_t a, std::uint64_t b) {
  return !is_nan(a) && !is_nan(b) && order_key(a) < order_key(b);
}
EXACTVMAF_HD_INLINE bool ge_bits(std::uint64_t a, std::uint64_t b) {
  return !is_nan(a) && !is_nan(b) && order_key(a) >= order_key(b);
}

// Bit moves, as dd.hpp has them (no arithmetic).
using dd::bits_of;
using dd::float_from_bits;
EXACTVMAF_HD_INLINE std::uint64_t double_bits(double x) { return bits_of(x); }
EXACTVMAF_HD_INLINE std::uint32_t float_bits(float x) { return bits_of(x); }
EXACTVMAF_HD_INLINE float float_of_bits(std::uint32_t u) { return float_from_bits(u); }

}  // namespace sf64_detail

// A binary64 value held as its bits; + - * / are IEEE binary64 operations.
struct Sf64 {
  std::uint64_t bits = 0;
  Sf64() = default;
  EXACTVMAF_HD_INLINE static Sf64 from_bits(std::uint64_t u) {
    Sf64 r;
    r.bits = u;
    return r;
  }
  // From a double constant or parameter: its bits, moved as an integer.
  EXACTVMAF_HD_INLINE explicit Sf64(double x) : bits(sf64_detail::double_bits(x)) {}
  EXACTVMAF_HD_INLINE explicit Sf64(float x) : bits(sf64_detail::from_f32_bits(sf64_detail::float_bits(x))) {}
  EXACTVMAF_HD_INLINE explicit Sf64(std::int32_t x) : bits(sf64_detail::from_i64_bits(x)) {}
  EXACTVMAF_HD_INLINE explicit Sf64(std::int64_t x) : bits(sf64_detail::from_i64_bits(x)) {}
  EXACTVMAF_HD_INLINE explicit Sf64(std::uint32_t x) : bits(sf64_detail::from_i64_bits(std::int64_t{x})) {}
};

EXACTVMAF_HD_INLINE Sf64 operator+(Sf64 a, Sf64 b) { return Sf64::from_bits(sf64_detail::add_bits(a.bits, b.bits)); }
EXACTVMAF_HD_INLINE Sf64 operator-(Sf64 a, Sf64 b) {
  return Sf64::from_bits(sf64_detail::add_bits(a.bits, b.bits ^ sf64_detail::kSign));
}
EXACTVMAF_HD_INLINE Sf64 operator*(Sf64 a, Sf64 b) { return Sf64::from_bits(sf64_detail::mul_bits(a.bits, b.bits)); }
EXACTVMAF_HD_INLINE Sf64 operator/(Sf64 a, Sf64 b) { return Sf64::from_bits(sf64_detail::div_bits(a.bits, b.bits)); }
EXACTVMAF_HD_INLINE Sf64 operator-(Sf64 a) { return Sf64::from_bits(a.bits ^ sf64_detail::kSign); }
// IEEE comparisons: false on NaN (!= true), -0 == +0.
EXACTVMAF_HD_INLINE bool operator<(Sf64 a, Sf64 b) { return sf64_detail::lt_bits(a.bits, b.bits); }
EXACTVMAF_HD_INLINE bool operator>(Sf64 a, Sf64 b) { return sf64_detail::lt_bits(b.bits, a.bits); }
EXACTVMAF_HD_INLINE bool operator<=(Sf64 a, Sf64 b) { return sf64_detail::ge_bits(b.bits, a.bits); }
EXACTVMAF_HD_INLINE bool operator>=(Sf64 a, Sf64 b) { return sf64_detail::ge_bits(a.bits, b.bits); }
EXACTVMAF_HD_INLINE bool operator==(Sf64 a, Sf64 b) { return a <= b && b <= a; }
EXACTVMAF_HD_INLINE bool operator!=(Sf64 a, Sf64 b) { return !(a == b); }
// A double operand is a constant of the code (its bits, moved as an integer),
// so generic code reads the same for double and Sf64.
#define EXACTVMAF_SF64_MIXED(op, R)                                                                \
  EXACTVMAF_HD_INLINE R operator op(Sf64 a, double b) { return a op Sf64(b); }                      \
  EXACTVMAF_HD_INLINE R operator op(double a, Sf64 b) { return Sf64(a) op b; }
EXACTVMAF_SF64_MIXED(+, Sf64)
EXACTVMAF_SF64_MIXED(-, Sf64)
EXACTVMAF_SF64_MIXED(*, Sf64)
EXACTVMAF_SF64_MIXED(/, Sf64)
EXACTVMAF_SF64_MIXED(<, bool)
EXACTVMAF_SF64_MIXED(>, bool)
EXACTVMAF_SF64_MIXED(<=, bool)
EXACTVMAF_SF64_MIXED(>=, bool)
EXACTVMAF_SF64_MIXED(==, bool)
EXACTVMAF_SF64_MIXED(!=, bool)
#undef EXACTVMAF_SF64_MIXED

// Value helpers for code written once for double and Sf64 (T = either):
// the conversions C writes as casts, the square root, the bits.
EXACTVMAF_HD_INLINE float f32_of(double x) { return static_cast<float>(x); }
EXACTVMAF_HD_INLINE float f32_of(Sf64 x) { return sf64_detail::float_of_bits(sf64_detail::to_f32_bits(x.bits)); }
EXACTVMAF_HD_INLINE int i32_of(double x) { return static_cast<int>(x); }  // in range (callers)
EXACTVMAF_HD_INLINE int i32_of(Sf64 x) { return sf64_detail::trunc_i32_bits(x.bits); }
EXACTVMAF_HD_INLINE std::int64_t i64_of(double x) { return static_cast<std::int64_t>(x); }  // in range (callers)
EXACTVMAF_HD_INLINE std::int64_t i64_of(Sf64 x) { return sf64_detail::trunc_i64_bits(x.bits); }
EXACTVMAF_HD_INLINE double sqrt_of(double x) {
#if EXACTVMAF_DEVICE_CODE
  return __dsqrt_rn(x);
#else
  return __builtin_sqrt(x);  // IEEE square root (sqrtsd)
#endif
}
EXACTVMAF_HD_INLINE Sf64 sqrt_of(Sf64 x) { return Sf64::from_bits(sf64_detail::sqrt_bits(x.bits)); }
EXACTVMAF_HD_INLINE std::uint64_t u64_of(double x) { return dd::bits_of(x); }
EXACTVMAF_HD_INLINE std::uint64_t u64_of(Sf64 x) { return x.bits; }
template <class T>
EXACTVMAF_HD_INLINE T of_u64(std::uint64_t u) {
  if constexpr (std::is_same_v<T, Sf64>)
    return Sf64::from_bits(u);
  else
    return dd::double_from_bits(u);
}

// The f64 policy on Sf64 (numeric/f64_policy.hpp): exact, never undecided.
struct Sf64Policy {
  using f64 = Sf64;
  EXACTVMAF_HD_INLINE std::int32_t trunc_i32(Sf64 x) const { return sf64_detail::trunc_i32_bits(x.bits); }
  EXACTVMAF_HD_INLINE std::int64_t trunc_i64(Sf64 x) const { return sf64_detail::trunc_i64_bits(x.bits); }
  EXACTVMAF_HD_INLINE I64Range trunc_i32_range(Sf64 x) const { return {trunc_i32(x), trunc_i32(x)}; }
  EXACTVMAF_HD_INLINE I64Range trunc_i64_range(Sf64 x) const { return {trunc_i64(x), trunc_i64(x)}; }
  EXACTVMAF_HD_INLINE void cannot_decide() const {}  // never called: its ranges are single values
  EXACTVMAF_HD_INLINE float to_f32(Sf64 x) const {
    return sf64_detail::float_of_bits(sf64_detail::to_f32_bits(x.bits));
  }
  EXACTVMAF_HD_INLINE bool lt(Sf64 a, Sf64 b) const { return sf64_detail::lt_bits(a.bits, b.bits); }
  EXACTVMAF_HD_INLINE bool ge(Sf64 a, Sf64 b) const { return sf64_detail::ge_bits(a.bits, b.bits); }
};

}  // namespace exactvmaf::rmath
