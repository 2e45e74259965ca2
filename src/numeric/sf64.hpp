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
  if (rem > half || (rem == half && (sticky || (kept & 1)))) ++kept;
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

// (sig >> n) with the shifted-out bits ORed into *sticky; n >= 0.
EXACTVMAF_HD_INLINE std::uint64_t shift_right_sticky(std::uint64_t sig, int n, bool* sticky) {
  if (n == 0) return sig;
  if (n >= 64) {
    *sticky = *sticky || sig != 0;
    return 0;
  }
  *sticky = *sticky || (sig & ((std::uint64_t{1} << n) - 1)) != 0;
  return sig >> n;
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
  Unpacked x = unpack(a), y = unpack(b);
  if (x.e < y.e || (x.e == y.e && x.m < y.m)) {
    const Unpacked t = x;
    x = y;
    y = t;
  }
  // |x| >= |y|; 10 guard bits keep every lost bit above the sticky one.
  bool sticky = false;
  const std::uint64_t big = x.m << 10;
  const std::uint64_t small = shift_right_sticky(y.m << 10, x.e - y.e, &sticky);
  const int ex = x.e - 10;
  if (x.sign == y.sign) return round_f64(x.sign, ex, big + small, sticky);
  // The true difference lies in (big - small - 1, big - small) when sticky.
  const std::uint64_t diff = big - small - (sticky ? 1 : 0);
  if (diff == 0 && !sticky) return 0;  // x - x = +0
  return round_f64(x.sign, ex, diff, sticky);
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
  // q = floor(x.m * 2^62 / y.m) by restoring division; x.m / y.m in (1/2, 2).
  std::uint64_t r = x.m, q = 0;
  if (r >= y.m) {
    q = 1;
    r -= y.m;
  }
  for (int i = 0; i < 62; ++i) {
    r <<= 1;
    q <<= 1;
    if (r >= y.m) {
      r -= y.m;
      q |= 1;
    }
  }
  return round_f64(sign, x.e - y.e - 62, q, r != 0);
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

// IEEE square root, as sqrtsd: q = floor(sqrt(R)) digit by digit for the
// radicand R = m * 2^58 (m's exponent made even), so q has 56 bits and the
// remainder is the sticky bit. Negative input: x86's default NaN.
EXACTVMAF_HD_OUTLINE std::uint64_t sqrt_bits(std::uint64_t a) {
  if (is_nan(a)) return kQNaN;
  if (is_zero(a)) return a;  // sqrt(-0) = -0
  if (a & kSign) return kQNaN | kSign;
  if (is_inf(a)) return a;
  Unpacked x = unpack(a);
  const int s = clz64(x.m) - 11;  // bit 52 set (subnormals)
  x.m <<= s;
  x.e -= s;
  if (x.e & 1) {
    x.m <<= 1;
    --x.e;
  }
  // R = x.m * 2^58 < 2^112: high and low words.
  const std::uint64_t r_hi = x.m >> 6, r_lo = x.m << 58;
  std::uint64_t rem = 0, root = 0;
  for (int i = 55; i >= 0; --i) {
    const int bit = 2 * i;
    const std::uint64_t pair = bit >= 64 ? (r_hi >> (bit - 64)) & 3u : (r_lo >> bit) & 3u;
    rem = (rem << 2) | pair;
    const std::uint64_t trial = (root << 2) | 1u;
    root <<= 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1u;
    }
  }
  return round_f64(false, x.e / 2 - 29, root, rem != 0);
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
  EXACTVMAF_HD_INLINE float to_f32(Sf64 x) const {
    return sf64_detail::float_of_bits(sf64_detail::to_f32_bits(x.bits));
  }
  EXACTVMAF_HD_INLINE bool lt(Sf64 a, Sf64 b) const { return sf64_detail::lt_bits(a.bits, b.bits); }
  EXACTVMAF_HD_INLINE bool ge(Sf64 a, Sf64 b) const { return sf64_detail::ge_bits(a.bits, b.bits); }
};

}  // namespace exactvmaf::rmath
