// AVX-512 kernel of ciede (ciede_simd.hpp): ciede2000<HostMath>'s shortcut
// path (ciede_math.hpp) on vectors of eight pairs, the doubles in __m512d,
// the floats in __m256 and the per-lane conditions in __mmask8, four vectors
// side by side (ciede_simd_group.hpp). A close copy of
// ciede_avx2.cpp (same helpers, same order, so that the two diff line by
// line): each step performs the IEEE operations of the scalar function it
// names, in the same order and association (no FMA: operators on vector
// types and mul/add/sub/div/sqrt intrinsics at the default rounding only;
// the build uses -ffp-contract=off), with the branches as per-lane selects.
// Where the scalar path would call R's function (a rounding test that does
// not decide, an argument outside a shortcut's domain) the lane is marked
// undecided, and the pair is recomputed with the scalar ciede2000<HostMath>.
// So a decided lane holds the scalar shortcut's float, which is R's.
#include "features/ciede/ciede_simd.hpp"

#if EXACTVMAF_SIMD_X86
// gcc 12's AVX-512 intrinsics start from _mm512_undefined_* values and trip these (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

namespace exactvmaf::ciede {
namespace {

// always_inline: with the body on groups of vectors (ciede_simd_group.hpp)
// gcc left some steps out of line, their vectors passed through memory.
#define AVX512 EXACTVMAF_TARGET_AVX512 inline __attribute__((always_inline))

// The helpers on one vector: eight lanes.
namespace one {

inline constexpr std::size_t kLanes = 8;

using D = __m512d;  // eight doubles (GCC's vector operators: IEEE + - * /)
using F = __m256;   // eight floats
using M = __mmask8;  // eight lane conditions (bit i: lane i)
using I = __m256i;   // eight int32

// ---- lane helpers ------------------------------------------------------------

AVX512 D dbl(F x) { return _mm512_cvtps_pd(x); }  // exact, as T(float)
AVX512 F flt(D x) { return _mm512_cvtpd_ps(x); }  // RN (MXCSR's default), as f32_of
AVX512 D splat(double c) { return _mm512_set1_pd(c); }
// C's comparisons: ordered (false with a NaN), except !=.
AVX512 M lt(D a, D b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
AVX512 M le(D a, D b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
AVX512 M gt(D a, D b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
AVX512 M ge(D a, D b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
AVX512 M eq(D a, D b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
AVX512 M lt(D a, double b) { return lt(a, splat(b)); }
AVX512 M le(D a, double b) { return le(a, splat(b)); }
AVX512 M gt(D a, double b) { return gt(a, splat(b)); }
AVX512 M ge(D a, double b) { return ge(a, splat(b)); }
AVX512 M eq(D a, double b) { return eq(a, splat(b)); }
AVX512 M all(M a, M b) { return static_cast<M>(a & b); }
AVX512 M any(M a, M b) { return static_cast<M>(a | b); }
AVX512 M but_not(M a, M b) { return static_cast<M>(a & ~b); }  // a && !b
AVX512 M differ(M a, M b) { return static_cast<M>(a ^ b); }     // masks: a != b
// mask ? t : f per lane (_mm512_mask_blend_pd(k, a, b): k ? b : a).
AVX512 D select(M mask, D t, D f) { return _mm512_mask_blend_pd(mask, f, t); }
// (No narrow_mask: a __mmask8 selects eight floats as it selects eight doubles.)
AVX512 F select(M mask, F t, F f) { return _mm256_mask_blend_ps(mask, f, t); }
AVX512 D neg(D x) { return _mm512_xor_pd(x, splat(-0.0)); }  // -x
AVX512 F neg(F x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }
AVX512 D abs_c(D x) { return select(lt(x, 0.0), neg(x), x); }  // x < 0.0 ? -x : x (keeps -0)
AVX512 F abs_c(F x) { return _mm256_mask_blend_ps(_mm256_cmp_ps_mask(x, _mm256_setzero_ps(), _CMP_LT_OQ), x, neg(x)); }
AVX512 D sqrt_d(D x) { return _mm512_sqrt_pd(x); }
AVX512 I i32_of(D x) { return _mm512_cvttpd_epi32(x); }  // truncation, as static_cast<int>
AVX512 M lane_bit(I k, int bit) {                           // (k & bit) != 0 per lane
  const __m512i k64 = _mm512_cvtepi32_epi64(k);
  const __m512i b = _mm512_set1_epi64(bit);
  return _mm512_cmpeq_epi64_mask(_mm512_and_si512(k64, b), b);
}

// rmath::detail::round_to_float (cr_round.hpp) with the same up/dn
// arithmetic. is_float_midpoint(d): with d = M 2^(e - 52) (M the significand
// with its implicit bit), the floats near d are spaced 2^(max(e, -126) - 23),
// so d is a midpoint when the bit p = max(28, -98 - e) of M is set and the
// bits below it are clear (none for p > 52: below 2^-150). Zero is no
// midpoint. Lanes with |d| above 2^127 (the overflow threshold's midpoint
// lies there) or a subnormal double are declared undecided: more undecided
// lanes than the scalar test, never a different float.
AVX512 M not_midpoint(D d) {
  const __m512i bits = _mm512_castpd_si512(d);
  const __m512i biased = _mm512_and_si512(_mm512_srli_epi64(bits, 52), _mm512_set1_epi64(0x7ff));
  const __m512i m = _mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi64(0x000fffffffffffffLL)),
                                    _mm512_set1_epi64(0x0010000000000000LL));
  // p = max(28, -98 - e) = max(28, 925 - biased), capped at 63 (then no bit matches).
  const __m512i p_raw = _mm512_sub_epi64(_mm512_set1_epi64(925), biased);
  const __m512i p_low = _mm512_max_epi64(p_raw, _mm512_set1_epi64(28));  // signed, as AVX2's cmpgt/blendv
  const __m512i p = _mm512_min_epi64(p_low, _mm512_set1_epi64(63));
  const __m512i bit = _mm512_sllv_epi64(_mm512_set1_epi64(1), p);
  const __m512i low = _mm512_and_si512(m, _mm512_sub_epi64(_mm512_add_epi64(bit, bit), _mm512_set1_epi64(1)));
  const M mid = _mm512_cmpeq_epi64_mask(low, bit);  // p = 63: M < 2^53 never matches
  const D a = abs_c(d);
  const M zero = eq(a, 0.0);
  const M in_range = all(le(a, 0x1p127), any(zero, ge(a, 0x1p-1022)));
  return but_not(in_range, mid);
}
// The same test for results known to be normal floats (|d| >= 2^-126, where
// the floats are spaced 2^(e - 23) and p is 28): bit 28 set, bits 0-27
// clear. Lanes outside [2^-126, 2^127] (zero aside) are undecided.
AVX512 M not_midpoint_normal(D d) {
  const __m512i low = _mm512_and_si512(_mm512_castpd_si512(d), _mm512_set1_epi64(0x1fffffff));
  const M mid = _mm512_cmpeq_epi64_mask(low, _mm512_set1_epi64(0x10000000));
  const D a = _mm512_abs_pd(d);  // |d|, compared only
  const M in_range = all(le(a, 0x1p127), any(eq(a, 0.0), ge(a, 0x1p-126)));
  return but_not(in_range, mid);
}
// range: FloatRange::normal where the result is a normal float in practice
// (the cheap test; a tiny result is then undecided), any elsewhere.
AVX512 M round_to_float(D hi, D lo, D err_abs, F* out, FloatRange range) {
  const D e = 2.0 * err_abs;
  const D up = hi + (lo + e);
  const D dn = hi + (lo - e);
  const F fu = flt(up), fd = flt(dn);
  const M same = _mm256_cmp_ps_mask(fu, fd, _CMP_EQ_OQ);
  *out = fu;
  if (range == FloatRange::normal) return all(same, all(not_midpoint_normal(up), not_midpoint_normal(dn)));
  return all(same, all(not_midpoint(up), not_midpoint(dn)));
}

AVX512 F splat(float c) { return _mm256_set1_ps(c); }
AVX512 D dbl(I x) { return _mm512_cvtepi32_pd(x); }
AVX512 D pow2_of(I k) {  // 2^k from its bits (normal range)
  const __m512i e = _mm512_add_epi64(_mm512_cvtepi32_epi64(k), _mm512_set1_epi64(1023));
  return _mm512_castsi512_pd(_mm512_slli_epi64(e, 52));
}
AVX512 I clamp_0_16(I j) { return _mm256_min_epi32(_mm256_max_epi32(j, _mm256_setzero_si256()), _mm256_set1_epi32(16)); }
AVX512 D atan_table(I j) { return _mm512_i32gather_pd(j, kAtanTable, 8); }  // every lane: j is clamped
AVX512 F sign_of(F x) { return _mm256_and_ps(x, _mm256_set1_ps(-0.0f)); }
AVX512 F with_sign(float magnitude, F sign) { return _mm256_or_ps(_mm256_set1_ps(magnitude), sign); }
AVX512 F load(const float* p) { return _mm256_loadu_ps(p); }
AVX512 void store(float* p, F v) { _mm256_storeu_ps(p, v); }
AVX512 D load_samples(const std::uint32_t* p) {  // samples < 2^31: exact
  return _mm512_cvtepi32_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
AVX512 D mantissa_1_2(D x) {  // the significand with the exponent of 1.0
  const __m512i bits = _mm512_castpd_si512(x);
  return _mm512_castsi512_pd(_mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi64(0x000fffffffffffffLL)),
                                             _mm512_set1_epi64(0x3ff0000000000000LL)));
}
AVX512 D unbiased_exponent(D x) {  // normal x: its exponent, as a double
  const __m512i field = _mm512_srli_epi64(_mm512_castpd_si512(x), 52);  // x > 0: no sign bit
  return _mm512_cvtepi32_pd(_mm256_sub_epi32(_mm512_cvtepi64_epi32(field), _mm256_set1_epi32(1023)));
}

AVX512 unsigned lanes_of(M m) { return static_cast<unsigned>(m); }

}  // namespace one

#define LANE AVX512
#define LANE_TARGET EXACTVMAF_TARGET_AVX512
#include "features/ciede/ciede_simd_group.hpp"
#include "features/ciede/ciede_simd_formula.hpp"
#undef LANE_TARGET
#undef LANE

#undef AVX512

}  // namespace

const Kernels& avx512_kernels() {
  static const Kernels k = {"avx512", &delta_e, &lab};
  return k;
}

}  // namespace exactvmaf::ciede
#endif
