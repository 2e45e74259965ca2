// powf(x, p) on fp32 pairs (docs/fp64-free.md, F4): R's correctly rounded
// powf (rmath::cr_powf) with fp32 operations only, for x >= 0 and a run
// constant p in [2^-8, 32] (float_adm's adm_p_norm). Returns false
// ("undecided") where its error bound does not exclude a float rounding
// boundary, and for arguments outside that domain; the caller then runs the
// exact fast path on Sf64 (cr_powf_fast_sf64), which decides the same way as
// R's own fast path, exact midpoints included (powf_exact_case).
//
// Method. x = 2^e m, m in [1, 2); r = r_i (9 bits, ~1/m, table by the top 7
// fraction bits) gives z = m r - 1 exactly as a pair, |z| <= 2^-7 (checked by
// the table generator). log2 x = e' + Lam, Lam = L_i + log2(1 + z),
// L_i = -log2 r_i (- 1 from m ~ sqrt 2 on, e' = e + 1 then), |Lam| <= 0.5002.
// ln(1 + z) = z + z^2 (-1/2 + z (1/3 + z Q(z))), Q = -1/4 + z/5 - z^2/6 +
// z^3/7 in float, the outer steps on pairs. t = p e' + p Lam is split exactly
// into an integer K and a fraction f (|f| <= 0.5 + 2^-18) as a pair, so that
// no pair has to hold t itself (up to ~4800). 2^f = 2^(j/64) 2^g, j the
// integer nearest 64 f, g = f - j/64 exact (|g| <= 2^-7 + 2^-25):
// e^y - 1 = y + y^2 (1/2 + y (1/6 + y/24 + y^2/120)), y = g ln 2 (|y| <=
// 2^-7.52). x^p = 2^K R.
//
// Error bound (u = 2^-24; pair products by Dekker without lo*lo, <= 8u^2
// relative; pair sums by Joldes, Muller, Popescu's Algorithm 6, <= 3u^2
// relative, pair_detail::add_pairs; table pairs <= 2^-48 relative):
//  - ln(1 + z): series truncation 2^-59, the Horner part's error 2^-31.4 in
//    1/3 + zQ times z^3 <= 2^-21 ... in all 2^-51.7 absolute;
//    log2(1 + z) with 1/ln 2 as a pair: 2^-50.3; Lam = L + log2(1 + z):
//    2^-47.4 (the sum) + 2^-49 (L) + 2^-50.3 <= 2^-46.8 absolute.
//  - t: p e' and p Lam.hi are exact (two_prod), p Lam.lo rounded (p 2^-49);
//    the integer parts are taken off exactly (x - nearest(x) is exact); the
//    fraction's float tail sum adds <= 2^-45.1. |f - t_frac| <= p 2^-46.4 +
//    2^-45.1.
//  - 2^f: y to 2^-52.3 absolute, truncation after y^5 2^-54.6, the rest
//    below 2^-53; R = T_j + T_j E: the final pair sum 2^-46.4, the table
//    2^-48: relative 2^-45.95.
//  Total relative: 2^-45.95 + ln 2 (p 2^-46.4 + 2^-45.1) <= 2^-44.78 +
//  p 2^-46.93, and the decision uses eps(p) = 2^-44 + p 2^-46 (a margin of
//  1.7x and 1.9x); underflowing intermediate terms add at most a few 2^-149
//  absolute to values near 1. The tests measure the actual error (at most
//  a tenth of eps(p): 2^-46.6 at p = 2.5, 2^-45.2 at p = 16) against it.
//
// Decision (why it is safe): the true x^p lies in 2^K [R - err, R + err]
// with err = eps(p) |R.hi| (1 + 2^-20). In the normal range
// Fp32PairF64::to_f32 returns RN(R) only if no float rounding boundary lies
// in that interval (half an ulp each side, a quarter below a power of two),
// so every value in it rounds to the same float, the true one included, and
// scaling by 2^K is exact (an overflow of the scaled float is R's overflow:
// RN of the unbounded-exponent value is >= 2^128). Below 2^-125 (K <= -126)
// the value is rounded on the subnormal grid 2^-149 as an integer w = x^p
// 2^149 < 2^24, decided when |frac(w) - 1/2| exceeds the bound. An exact
// float result is no boundary and is decided; an exact midpoint never is
// (the Sf64 path rounds it exactly, as R does).
#pragma once
#include <cstdint>

#include "numeric/cr_powf_pair_tables.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/hd.hpp"
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf::rmath {

namespace powf_pair_detail {

struct LogEntry {
  float r;     // ~ 1 / (bucket centre), 9 significant bits
  float l_hi;  // -log2(r), minus 1 from kSqrt2Index on
  float l_lo;
};
struct PairEntry {
  float hi, lo;
};
inline constexpr LogEntry kLogTableHost[kLogTableSize] = EXACTVMAF_POWF_PAIR_LOG_DATA;
inline constexpr PairEntry kExp2TableHost[65] = EXACTVMAF_POWF_PAIR_EXP2_DATA;
#if defined(__CUDACC__)
static __device__ const LogEntry kLogTableDevice[kLogTableSize] = EXACTVMAF_POWF_PAIR_LOG_DATA;
static __device__ const PairEntry kExp2TableDevice[65] = EXACTVMAF_POWF_PAIR_EXP2_DATA;
#endif

EXACTVMAF_HD_INLINE const LogEntry& log_entry(int i) {
#if EXACTVMAF_DEVICE_CODE
  return kLogTableDevice[i];
#else
  return kLogTableHost[i];
#endif
}
// 2^(j/64), -32 <= j <= 32.
EXACTVMAF_HD_INLINE const PairEntry& exp2_entry(int j) {
#if EXACTVMAF_DEVICE_CODE
  return kExp2TableDevice[j + 32];
#else
  return kExp2TableHost[j + 32];
#endif
}

EXACTVMAF_HD_INLINE int clz32(std::uint32_t x) {  // x != 0
#if EXACTVMAF_DEVICE_CODE
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

// The integer nearest v (ties to even) for |v| <= 2^22: adding 1.5 * 2^23
// leaves no fraction bits. v - nearest_int(v) is then exact (it is v's
// fraction bits, or a Sterbenz difference when |v| < 1).
EXACTVMAF_HD_INLINE float nearest_int(float v) {
  constexpr float kShifter = 0x1.8p23f;
  return (v + kShifter) - kShifter;
}

using pair_detail::Two;

// Pair times pair (normalised operands), Dekker's product without lo*lo:
// relative error <= 8u^2 (as dd::mul's bound, u = 2^-24).
EXACTVMAF_HD_INLINE Two mul(Two a, Two b) {
  const Two p = pair_detail::two_prod(a.hi, b.hi);
  const float cross = a.hi * b.lo + a.lo * b.hi;
  return pair_detail::fast_two_sum(p.hi, p.lo + cross);
}

// Pair plus pair, <= 3u^2 relative (Algorithm 6 with error-free sums).
EXACTVMAF_HD_INLINE Two add(Two a, Two b) {
  float dropped;
  return pair_detail::add_pairs(a.hi, a.lo, b.hi, b.lo, &dropped);
}

// RN(R.hi + R.lo) when no float rounding boundary lies within err of it
// (R.hi > 0 normal). s.hi = RN(R) and s.lo = R - s.hi exactly; the boundaries
// are half an ulp of s.hi away (a quarter below a power of two). The
// distance on s.lo's side, half - |s.lo|, is exact (Sterbenz) or above
// half / 2 and then off by at most 2^-24 of itself, which the 2^-20 in the
// caller's err covers.
EXACTVMAF_HD_INLINE bool round_to_float(Two r, float err, float* out) {
  const Two s = pair_detail::two_sum(r.hi, r.lo);
  const std::uint32_t bits = sf64_detail::float_bits(s.hi);
  const float half_up = sf64_detail::float_of_bits((bits & 0x7f800000u) - (24u << 23));
  const float half_down = (bits & 0x007fffffu) == 0 ? 0.5f * half_up : half_up;
  const bool up = s.lo >= 0.0f;
  const float near_side = (up ? half_up : half_down) - pair_detail::abs_f32(s.lo);
  const float far_side = up ? half_down : half_up;
  if (!(near_side > err && far_side > err)) return false;
  *out = s.hi;
  return true;
}

// The relative error bound of the result pair R (derivation above).
EXACTVMAF_HD_INLINE float eps_of(float p) { return 0x1p-44f + p * 0x1p-46f; }

// x^p = 2^*k * (R.hi + R.lo) within eps_of(p) |R.hi|, for 0 < x < inf and
// p in [2^-8, 32]; R.hi in about [0.7, 1.42]. Exposed for the tests.
EXACTVMAF_HD_INLINE Two pow_scaled(float x, float p, int* k) {
  using pair_detail::fast_two_sum;
  using pair_detail::two_prod;
  using pair_detail::two_sum;
  // x = 2^e m, subnormals normalised with integer shifts.
  std::uint32_t xb = sf64_detail::float_bits(x);
  int e;
  if (xb < 0x00800000u) {
    const int shift = clz32(xb) - 8;
    xb <<= shift;
    e = -126 - shift;
  } else {
    e = static_cast<int>(xb >> 23) - 127;
  }
  const std::uint32_t frac = xb & 0x007fffffu;
  const int i = static_cast<int>(frac >> 16);
  const LogEntry& le = log_entry(i);
  if (i >= kSqrt2Index) ++e;
  const float m = sf64_detail::float_of_bits(0x3f800000u | frac);

  // z = m r - 1 exactly: the product is exact as a pair, hi - 1 is exact
  // (Sterbenz) and at least as large as lo (or 0).
  const Two mr = two_prod(m, le.r);
  const Two z = fast_two_sum(mr.hi - 1.0f, mr.lo);
  const float zh = z.hi, zl = z.lo;

  // ln(1 + z) = z + z^2 c2, c2 = -1/2 + z c3, c3 = 1/3 + z Q.
  float q = 1.0f / 7.0f;
  q = -1.0f / 6.0f + zh * q;
  q = 1.0f / 5.0f + zh * q;
  q = -0.25f + zh * q;
  Two c3 = fast_two_sum(kOneThirdHi, zh * q);
  c3.lo += kOneThirdLo;
  const Two zc = two_prod(zh, c3.hi);
  const float zc_lo = zc.lo + (zh * c3.lo + zl * c3.hi);
  Two c2 = fast_two_sum(-0.5f, zc.hi);
  c2 = fast_two_sum(c2.hi, c2.lo + zc_lo);
  const Two zz = two_prod(zh, zh);
  const Two w = fast_two_sum(zz.hi, zz.lo + (2.0f * zh) * zl);
  const Two ln1p = add(z, mul(w, c2));
  const Two lam = add(Two{le.l_hi, le.l_lo}, mul(ln1p, Two{kInvLn2Hi, kInvLn2Lo}));

  // t = p e + p Lam = k1 + k2 + k3 + f. Each x - nearest_int(x) is exact.
  const Two pe = two_prod(p, static_cast<float>(e));  // exact, |p e| < 2^13
  const float k1 = nearest_int(pe.hi);
  const Two f1 = two_sum(pe.hi - k1, pe.lo);
  const Two pa = two_prod(p, lam.hi);  // exact
  const float c = p * lam.lo;          // error <= p 2^-49
  const float k2 = nearest_int(pa.hi);
  const Two s = two_sum(pa.hi - k2, f1.hi);
  const float k3 = nearest_int(s.hi);
  const Two g = two_sum(pa.lo, c);
  const Two fa = two_sum(s.hi - k3, g.hi);
  const float tail = ((fa.lo + s.lo) + f1.lo) + g.lo;
  const Two f = two_sum(fa.hi, tail);

  // 2^f = 2^(j/64) e^y, y = (f - j/64) ln 2.
  const float jf = nearest_int(f.hi * 64.0f);
  const Two gf = two_sum(f.hi - jf * 0x1p-6f, f.lo);  // f.hi - j/64 is exact
  const Two y = mul(gf, Two{kLn2Hi, kLn2Lo});
  const float r4 = y.hi * (1.0f / 24.0f + y.hi * (1.0f / 120.0f));
  Two q6 = fast_two_sum(kOneSixthHi, r4);
  q6.lo += kOneSixthLo;
  const Two yq = two_prod(y.hi, q6.hi);
  const float yq_lo = yq.lo + (y.hi * q6.lo + y.lo * q6.hi);
  Two c_half = fast_two_sum(0.5f, yq.hi);
  c_half = fast_two_sum(c_half.hi, c_half.lo + yq_lo);
  const Two yy = two_prod(y.hi, y.hi);
  const Two y2 = fast_two_sum(yy.hi, yy.lo + (2.0f * y.hi) * y.lo);
  const Two em1 = add(y, mul(y2, c_half));
  const int j = static_cast<int>(jf);
  const PairEntry& te = exp2_entry(j);
  const Two tj{te.hi, te.lo};
  *k = static_cast<int>(k1) + static_cast<int>(k2) + static_cast<int>(k3);
  return add(tj, mul(tj, em1));
}

}  // namespace powf_pair_detail

// True when decided, with *out = R's powf(x, p) (correctly rounded).
EXACTVMAF_HD_INLINE bool cr_powf_fast_pair(float x, float p, float* out) {
  using namespace powf_pair_detail;
  if (!(p >= 0x1p-8f && p <= 32.0f)) return false;  // NaN p too
  const std::uint32_t xb = sf64_detail::float_bits(x);
  if (xb == 0) {  // (+0)^p = +0 for p > 0
    *out = 0.0f;
    return true;
  }
  if (xb >= 0x7f800000u) return false;  // -0, negative, inf, NaN: the Sf64 path
  if (p == 1.0f) {
    *out = x;
    return true;
  }
  if (p == 2.0f) {  // one IEEE product: RN(x^2), subnormal results included
    *out = x * x;
    return true;
  }
  int k;
  const Two r = pow_scaled(x, p, &k);
  const float err = eps_of(p) * pair_detail::abs_f32(r.hi) * (1.0f + 0x1p-20f);
  if (k > 128) {  // x^p >= 2^128.49: overflow
    *out = sf64_detail::float_of_bits(0x7f800000u);
    return true;
  }
  if (k >= -125) {  // normal (or overflowing) result: round R on the 24-bit grid, scale exactly
    float v;
    if (!round_to_float(r, err, &v)) return false;
    if (k > 127) {
      v *= 2.0f;
      --k;
    }
    *out = v * pair_detail::pow2_f32(k);  // exact, or +inf where R overflows
    return true;
  }
  if (k <= -152) {  // x^p < 1.43 * 2^-152 < 2^-150: rounds to +0
    *out = 0.0f;
    return true;
  }
  // x^p < 2^-125: round w = x^p 2^149 < 2^24 to an integer n; n 2^-149 has
  // the bits of n.
  const float scale = pair_detail::pow2_f32(k + 149);  // k + 149 in [-2, 23]
  const float wh = r.hi * scale, wl = r.lo * scale;    // exact
  const std::int32_t n = static_cast<std::int32_t>(wh);
  const float d = (wh - static_cast<float>(n)) + wl;  // frac(w): wh - n exact, the sum <= 2^-24 off
  const float err_w = (eps_of(p) * wh) * (1.0f + 0x1p-20f) + 0x1p-23f;
  const float dist = d - 0.5f;
  if (!(pair_detail::abs_f32(dist) > err_w)) return false;
  const std::uint32_t bits = static_cast<std::uint32_t>(n + (dist > 0.0f ? 1 : 0));
  *out = sf64_detail::float_of_bits(bits);
  return true;
}

}  // namespace exactvmaf::rmath
