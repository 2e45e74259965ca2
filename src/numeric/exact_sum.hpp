// Exact summation (docs/design.md §2 rule 3: ciede's frame sum is the exact sum
// of its per-pixel floats, rounded once). Host and device.
//
//   ExactSumF32   exact sum of float terms   (10 limbs,  80 bytes + 8)
//   ExactSumF64   exact sum of double terms  (67 limbs, 536 bytes + 8);
//                 also takes floats (a float is a double exactly)
//
// A value is the integer N = sum_i limb[i] 2^(32 i) times 2^-B, B = 149 for
// floats (every float is a multiple of 2^-149) and 1074 for doubles. Each
// term m 2^e (m < 2^24 or 2^53) is split at 32-bit digit boundaries and
// added to two or three limbs; an int64 limb therefore takes 2^28 additions
// of less than 2^33 each before any carry has to move ("carry-save"):
// normalise() moves carries every 2^28 additions and before merging and
// rounding. Integer addition is associative, so the result is independent
// of the order of the terms and of how they were split across threads and
// blocks: merge() just adds limbs.
//
// Non-finite terms follow what a chain of IEEE double additions would
// give: any NaN, or +inf together with -inf, gives NaN (the quiet NaN
// 0x7ff8...); otherwise an infinity gives that infinity. The rounded value
// of a finite exact sum is RN(sum) (ties to even); a sum beyond the double
// range rounds to +-inf (only ExactSumF64 can get there). A zero exact sum
// gives +0 (as `double s = 0; s += t;` would, for any terms that sum to zero,
// -0 terms included). round_to_double() is the only rounding.
//
// The struct is trivial (no constructor) so it can live in __shared__
// memory: value-initialise it (`ExactSumF32 acc{};`) or call clear().
#pragma once

#include <cstdint>

#include "numeric/dd.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace exact_sum_detail {

inline constexpr std::uint32_t kFlagNaN = 1u;
inline constexpr std::uint32_t kFlagPosInf = 2u;
inline constexpr std::uint32_t kFlagNegInf = 4u;
inline constexpr std::uint32_t kMaxPending = 1u << 28;
inline constexpr std::int64_t kDigitMask = 0xffffffffll;

// Number of leading zero bits of a non-zero 64-bit value.
EXACTVMAF_HD_INLINE int clz64(std::uint64_t v) {
#if EXACTVMAF_DEVICE_CODE
  return __clzll(static_cast<long long>(v));
#else
  return __builtin_clzll(v);
#endif
}

}  // namespace exact_sum_detail

// Limbs: number of int64 limbs; Bias: value of the lowest bit is 2^-Bias;
// MantBits: significand bits of the term type (24 or 53).
template <int Limbs, int Bias, int MantBits>
struct ExactSum {
  static constexpr int kLimbs = Limbs;
  static constexpr int kBias = Bias;

  std::int64_t limb[Limbs];
  std::uint32_t pending;  // additions since the last normalise()
  std::uint32_t flags;    // kFlagNaN | kFlagPosInf | kFlagNegInf

  EXACTVMAF_HD_INLINE void clear() {
    for (int i = 0; i < Limbs; ++i) limb[i] = 0;
    pending = 0;
    flags = 0;
  }

  // Adds m 2^(pos - Bias), m < 2^53, 0 <= pos, to the limbs (negative: subtracts).
  EXACTVMAF_HD_INLINE void add_scaled(std::uint64_t m, int pos, bool negative) {
    const int li = pos >> 5;
    const int off = pos & 31;
    const std::uint64_t m_lo = m & 0xffffffffull;
    const std::uint64_t m_hi = m >> 32;  // < 2^21
    const std::uint64_t p_lo = m_lo << off;  // < 2^63
    const std::int64_t d0 = static_cast<std::int64_t>(p_lo & 0xffffffffull);
    std::int64_t d1 = static_cast<std::int64_t>(p_lo >> 32);
    std::int64_t d2 = 0;
    if (MantBits > 32) {
      const std::uint64_t p_hi = m_hi << off;  // < 2^52
      d1 += static_cast<std::int64_t>(p_hi & 0xffffffffull);
      d2 = static_cast<std::int64_t>(p_hi >> 32);
    }
    if (negative) {
      limb[li] -= d0;
      limb[li + 1] -= d1;
      if (MantBits > 32) limb[li + 2] -= d2;
    } else {
      limb[li] += d0;
      limb[li + 1] += d1;
      if (MantBits > 32) limb[li + 2] += d2;
    }
    if (++pending >= exact_sum_detail::kMaxPending) normalise();
  }

  EXACTVMAF_HD_INLINE void add_nonfinite(bool nan, bool negative) {
    using namespace exact_sum_detail;
    flags |= nan ? kFlagNaN : (negative ? kFlagNegInf : kFlagPosInf);
  }

  // Moves carries up: limbs 0..Limbs-2 end in [0, 2^32); the top limb keeps
  // the sign. The value is unchanged.
  EXACTVMAF_HD_INLINE void normalise() {
    for (int i = 0; i < Limbs - 1; ++i) {
      const std::int64_t carry = limb[i] >> 32;  // floor division (arithmetic shift)
      limb[i] &= exact_sum_detail::kDigitMask;
      limb[i + 1] += carry;
    }
    pending = 0;
  }

  // this += other (exact). other is left as it is.
  EXACTVMAF_HD_INLINE void merge(const ExactSum& other) {
    ExactSum o = other;
    o.normalise();
    normalise();
    for (int i = 0; i < Limbs; ++i) limb[i] += o.limb[i];
    pending = 2;  // each limb below the top is now < 2^33
    flags |= o.flags;
  }

  // Rounds the exact sum to the nearest double (ties to even).
  EXACTVMAF_HD_INLINE double round_to_double() const {
    using namespace exact_sum_detail;
    if ((flags & kFlagNaN) || (flags & (kFlagPosInf | kFlagNegInf)) == (kFlagPosInf | kFlagNegInf)) {
      return dd::double_from_bits(0x7ff8000000000000ull);
    }
    if (flags & kFlagPosInf) return dd::double_from_bits(0x7ff0000000000000ull);
    if (flags & kFlagNegInf) return dd::double_from_bits(0xfff0000000000000ull);

    ExactSum t = *this;
    t.normalise();
    const bool negative = t.limb[Limbs - 1] < 0;
    if (negative) {
      for (int i = 0; i < Limbs; ++i) t.limb[i] = -t.limb[i];
      t.normalise();  // now non-negative: every limb below the top in [0, 2^32)
    }
    // 32-bit digits of the magnitude; the top limb (< 2^62) fills three.
    constexpr int kDigits = Limbs + 2;
    std::uint32_t digit[kDigits];
    for (int i = 0; i < Limbs - 1; ++i) digit[i] = static_cast<std::uint32_t>(t.limb[i]);
    const std::uint64_t top = static_cast<std::uint64_t>(t.limb[Limbs - 1]);
    digit[Limbs - 1] = static_cast<std::uint32_t>(top);
    digit[Limbs] = static_cast<std::uint32_t>(top >> 32);
    digit[Limbs + 1] = 0;

    int hi_digit = kDigits - 1;
    while (hi_digit >= 0 && digit[hi_digit] == 0) --hi_digit;
    if (hi_digit < 0) return 0.0;
    // msb: index of the highest set bit of N.
    const int msb = 32 * hi_digit + (63 - clz64(digit[hi_digit]));

    // The 64 bits N[msb-63 .. msb] (zeros below bit 0) and a sticky bit for
    // everything under them.
    const int low = msb - 63;
    std::uint64_t window = 0;
    bool sticky = false;
    for (int d = hi_digit; d >= 0; --d) {
      const int base = 32 * d;  // bit index of digit d's lowest bit
      const std::uint64_t v = digit[d];
      if (base >= low) {
        window |= v << (base - low);  // base - low <= 63 - 0 since base <= msb
      } else if (base + 32 > low) {
        const int cut = low - base;  // bits of v below the window
        window |= v >> cut;
        if ((v & ((1ull << cut) - 1)) != 0) sticky = true;
      } else if (v != 0) {
        sticky = true;
      }
    }
    // Now N = window 2^low + (the sticky part below): the window's top bit is
    // N's highest set bit (for low < 0 the window is N shifted left).
    int e2;  // N ~= mant 2^e2
    std::uint64_t mant;
    if (msb <= 52) {
      mant = window >> (63 - msb);  // N itself, exact
      e2 = 0;
    } else {
      // window holds bits msb-63..msb: keep the top 53, round on the other 11 + sticky.
      mant = window >> 11;
      const std::uint64_t rest = window & 0x7ffull;
      const bool round_bit = (rest & 0x400ull) != 0;
      const bool below = (rest & 0x3ffull) != 0 || sticky;
      if (round_bit && (below || (mant & 1ull))) ++mant;
      e2 = low + 11;
      if (mant == (1ull << 53)) {
        mant >>= 1;
        ++e2;
      }
    }
    // value = mant 2^(e2 - Bias), mant < 2^53.
    const int unbiased = e2 - Bias;
    double result;
    if (mant == 0) {
      result = 0.0;
    } else {
      const int top_bit = 63 - clz64(mant);  // mant in [2^top_bit, 2^(top_bit+1))
      const int e = unbiased + top_bit;      // value in [2^e, 2^(e+1))
      if (e > 1023) {
        result = dd::double_from_bits(0x7ff0000000000000ull);
      } else if (e >= -1022) {
        const std::uint64_t frac = (mant << (52 - top_bit)) & 0x000fffffffffffffull;
        result = dd::double_from_bits((static_cast<std::uint64_t>(e + 1023) << 52) | frac);
      } else {
        // Subnormal: only ExactSumF64 (Bias 1074) gets here, and then
        // msb <= 52 and unbiased == -1074: the bits are N itself.
        result = dd::double_from_bits(mant << (unbiased + 1074));
      }
    }
    return negative ? -result : result;
  }
};

// Exact sum of float terms (every finite float is a multiple of 2^-149 below
// 2^128; 10 limbs hold 2^64 terms of any size).
struct ExactSumF32 : ExactSum<10, 149, 24> {
  EXACTVMAF_HD_INLINE void add(float x) {
    const std::uint32_t u = dd::bits_of(x);
    const std::uint32_t biased = (u >> 23) & 0xffu;
    const std::uint32_t frac = u & 0x7fffffu;
    const bool negative = (u >> 31) != 0;
    if (biased == 0xffu) {
      add_nonfinite(frac != 0, negative);
      return;
    }
    if (biased == 0 && frac == 0) return;  // +-0
    const std::uint64_t m = biased != 0 ? (frac | 0x800000u) : frac;
    const int pos = biased != 0 ? static_cast<int>(biased) - 1 : 0;  // x = m 2^(pos - 149)
    add_scaled(m, pos, negative);
  }
  EXACTVMAF_HD_INLINE void merge(const ExactSumF32& other) { ExactSum::merge(other); }
};

// Exact sum of double terms (multiples of 2^-1074 below 2^1024).
struct ExactSumF64 : ExactSum<67, 1074, 53> {
  EXACTVMAF_HD_INLINE void add(double x) {
    const std::uint64_t u = dd::bits_of(x);
    const std::uint32_t biased = static_cast<std::uint32_t>((u >> 52) & 0x7ffu);
    const std::uint64_t frac = u & 0x000fffffffffffffull;
    const bool negative = (u >> 63) != 0;
    if (biased == 0x7ffu) {
      add_nonfinite(frac != 0, negative);
      return;
    }
    if (biased == 0 && frac == 0) return;
    const std::uint64_t m = biased != 0 ? (frac | 0x0010000000000000ull) : frac;
    const int pos = biased != 0 ? static_cast<int>(biased) - 1 : 0;  // x = m 2^(pos - 1074)
    add_scaled(m, pos, negative);
  }
  EXACTVMAF_HD_INLINE void add(float x) { add(static_cast<double>(x)); }
  EXACTVMAF_HD_INLINE void merge(const ExactSumF64& other) { ExactSum::merge(other); }
};

}  // namespace exactvmaf::rmath
