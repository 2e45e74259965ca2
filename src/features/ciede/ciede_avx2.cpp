// AVX2 kernel of ciede (ciede_simd.hpp): ciede2000<HostMath>'s shortcut path
// (ciede_math.hpp) on vectors of four pairs, the doubles in __m256d and the
// floats in __m128, four vectors side by side (ciede_simd_group.hpp). Each
// step below performs the IEEE operations of the scalar function it names,
// in the same order and association (no FMA:
// operators on vector types and mul/add/sub/div/sqrt intrinsics only; the
// build uses -ffp-contract=off), with the branches as per-lane selects. Where
// the scalar path would call R's function (a rounding test that does not
// decide, an argument outside a shortcut's domain) the lane is marked
// undecided, and the pair is recomputed with the scalar ciede2000<HostMath>.
// So a decided lane holds the scalar shortcut's float, which is R's.
#include "features/ciede/ciede_simd.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

namespace exactvmaf::ciede {
namespace {

// always_inline: with the body on groups of vectors (ciede_simd_group.hpp)
// gcc left some steps out of line, their vectors passed through memory.
#define AVX2 EXACTVMAF_TARGET_AVX2 inline __attribute__((always_inline))

// The helpers on one vector: four lanes.
namespace one {

inline constexpr std::size_t kLanes = 4;

using D = __m256d;  // four doubles (GCC's vector operators: IEEE + - * /)
using F = __m128;   // four floats
using M = D;        // four lane conditions: all-ones lanes
using I = __m128i;  // four int32

// ---- lane helpers ------------------------------------------------------------

AVX2 D dbl(F x) { return _mm256_cvtps_pd(x); }  // exact, as T(float)
AVX2 F flt(D x) { return _mm256_cvtpd_ps(x); }  // RN, as f32_of
AVX2 D splat(double c) { return _mm256_set1_pd(c); }
// C's comparisons: ordered (false with a NaN), except !=.
AVX2 D lt(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
AVX2 D le(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
AVX2 D gt(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
AVX2 D ge(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
AVX2 D eq(D a, D b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
AVX2 D lt(D a, double b) { return lt(a, splat(b)); }
AVX2 D le(D a, double b) { return le(a, splat(b)); }
AVX2 D gt(D a, double b) { return gt(a, splat(b)); }
AVX2 D ge(D a, double b) { return ge(a, splat(b)); }
AVX2 D eq(D a, double b) { return eq(a, splat(b)); }
AVX2 D all(D a, D b) { return _mm256_and_pd(a, b); }
AVX2 D any(D a, D b) { return _mm256_or_pd(a, b); }
AVX2 D but_not(D a, D b) { return _mm256_andnot_pd(b, a); }  // a && !b
AVX2 D differ(D a, D b) { return _mm256_xor_pd(a, b); }      // masks: a != b
// mask ? t : f per lane.
AVX2 D select(D mask, D t, D f) { return _mm256_blendv_pd(f, t, mask); }
AVX2 F narrow_mask(D mask) {  // the 64-bit lane masks as 32-bit lane masks
  const __m256i picked = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(mask), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  return _mm_castsi128_ps(_mm256_castsi256_si128(picked));
}
AVX2 F select(D mask, F t, F f) { return _mm_blendv_ps(f, t, narrow_mask(mask)); }
AVX2 D neg(D x) { return _mm256_xor_pd(x, splat(-0.0)); }  // -x
AVX2 F neg(F x) { return _mm_xor_ps(x, _mm_set1_ps(-0.0f)); }
AVX2 D abs_c(D x) { return select(lt(x, 0.0), neg(x), x); }  // x < 0.0 ? -x : x (keeps -0)
AVX2 F abs_c(F x) { return _mm_blendv_ps(x, neg(x), _mm_cmp_ps(x, _mm_setzero_ps(), _CMP_LT_OQ)); }
AVX2 D sqrt_d(D x) { return _mm256_sqrt_pd(x); }
AVX2 I i32_of(D x) { return _mm256_cvttpd_epi32(x); }  // truncation, as static_cast<int>
AVX2 M lane_bit(I k, int bit) {                           // (k & bit) != 0 per lane
  const __m256i k64 = _mm256_cvtepi32_epi64(k);
  const __m256i b = _mm256_set1_epi64x(bit);
  return _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(k64, b), b));
}

// rmath::detail::round_to_float (cr_round.hpp) with the same up/dn
// arithmetic. is_float_midpoint(d): with d = M 2^(e - 52) (M the significand
// with its implicit bit), the floats near d are spaced 2^(max(e, -126) - 23),
// so d is a midpoint when the bit p = max(28, -98 - e) of M is set and the
// bits below it are clear (none for p > 52: below 2^-150). Zero is no
// midpoint. Lanes with |d| above 2^127 (the overflow threshold's midpoint
// lies there) or a subnormal double are declared undecided: more undecided
// lanes than the scalar test, never a different float.
AVX2 D not_midpoint(D d) {
  const __m256i bits = _mm256_castpd_si256(d);
  const __m256i biased = _mm256_and_si256(_mm256_srli_epi64(bits, 52), _mm256_set1_epi64x(0x7ff));
  const __m256i m = _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000fffffffffffffLL)),
                                    _mm256_set1_epi64x(0x0010000000000000LL));
  // p = max(28, -98 - e) = max(28, 925 - biased), capped at 63 (then no bit matches).
  const __m256i p_raw = _mm256_sub_epi64(_mm256_set1_epi64x(925), biased);
  const __m256i p_low = _mm256_blendv_epi8(p_raw, _mm256_set1_epi64x(28), _mm256_cmpgt_epi64(_mm256_set1_epi64x(28), p_raw));
  const __m256i p = _mm256_blendv_epi8(p_low, _mm256_set1_epi64x(63), _mm256_cmpgt_epi64(p_low, _mm256_set1_epi64x(63)));
  const __m256i bit = _mm256_sllv_epi64(_mm256_set1_epi64x(1), p);
  const __m256i low = _mm256_and_si256(m, _mm256_sub_epi64(_mm256_add_epi64(bit, bit), _mm256_set1_epi64x(1)));
  const D mid = _mm256_castsi256_pd(_mm256_cmpeq_epi64(low, bit));  // p = 63: M < 2^53 never matches
  const D a = abs_c(d);
  const D zero = eq(a, 0.0);
  const D in_range = all(le(a, 0x1p127), any(zero, ge(a, 0x1p-1022)));
  return but_not(in_range, mid);
}
// The same test for results known to be normal floats (|d| >= 2^-126, where
// the floats are spaced 2^(e - 23) and p is 28): bit 28 set, bits 0-27
// clear. Lanes outside [2^-126, 2^127] (zero aside) are undecided.
AVX2 D not_midpoint_normal(D d) {
  const __m256i low = _mm256_and_si256(_mm256_castpd_si256(d), _mm256_set1_epi64x(0x1fffffff));
  const D mid = _mm256_castsi256_pd(_mm256_cmpeq_epi64(low, _mm256_set1_epi64x(0x10000000)));
  const D a = _mm256_andnot_pd(splat(-0.0), d);  // |d|, compared only
  const D in_range = all(le(a, 0x1p127), any(eq(a, 0.0), ge(a, 0x1p-126)));
  return but_not(in_range, mid);
}
// range: FloatRange::normal where the result is a normal float in practice
// (the cheap test; a tiny result is then undecided), any elsewhere.
AVX2 D round_to_float(D hi, D lo, D err_abs, F* out, FloatRange range) {
  const D e = 2.0 * err_abs;
  const D up = hi + (lo + e);
  const D dn = hi + (lo - e);
  const F fu = flt(up), fd = flt(dn);
  const D same = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(_mm_cmp_ps(fu, fd, _CMP_EQ_OQ))));
  *out = fu;
  if (range == FloatRange::normal) return all(same, all(not_midpoint_normal(up), not_midpoint_normal(dn)));
  return all(same, all(not_midpoint(up), not_midpoint(dn)));
}

AVX2 F splat(float c) { return _mm_set1_ps(c); }
AVX2 D dbl(I x) { return _mm256_cvtepi32_pd(x); }
AVX2 D pow2_of(I k) {  // 2^k from its bits (normal range)
  const __m256i e = _mm256_add_epi64(_mm256_cvtepi32_epi64(k), _mm256_set1_epi64x(1023));
  return _mm256_castsi256_pd(_mm256_slli_epi64(e, 52));
}
AVX2 I clamp_0_16(I j) { return _mm_min_epi32(_mm_max_epi32(j, _mm_setzero_si128()), _mm_set1_epi32(16)); }
AVX2 D atan_table(I j) {  // every lane: j is clamped
  return _mm256_mask_i32gather_pd(splat(0.0), kAtanTable, j, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8);
}
AVX2 F sign_of(F x) { return _mm_and_ps(x, _mm_set1_ps(-0.0f)); }
AVX2 F with_sign(float magnitude, F sign) { return _mm_or_ps(_mm_set1_ps(magnitude), sign); }
AVX2 F load(const float* p) { return _mm_loadu_ps(p); }
AVX2 void store(float* p, F v) { _mm_storeu_ps(p, v); }
AVX2 unsigned lanes_of(M m) { return static_cast<unsigned>(_mm256_movemask_pd(m)); }
AVX2 D load_samples(const std::uint32_t* p) {  // samples < 2^31: exact
  return _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
AVX2 D mantissa_1_2(D x) {  // the significand with the exponent of 1.0
  const __m256i bits = _mm256_castpd_si256(x);
  return _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000fffffffffffffLL)),
                                             _mm256_set1_epi64x(0x3ff0000000000000LL)));
}
AVX2 D unbiased_exponent(D x) {  // normal x: its exponent, as a double
  const __m256i field = _mm256_srli_epi64(_mm256_castpd_si256(x), 52);  // x > 0: no sign bit
  const __m256i low = _mm256_permutevar8x32_epi32(field, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  return _mm256_cvtepi32_pd(_mm_sub_epi32(_mm256_castsi256_si128(low), _mm_set1_epi32(1023)));
}

}  // namespace one

#define LANE AVX2
#define LANE_TARGET EXACTVMAF_TARGET_AVX2
#include "features/ciede/ciede_simd_group.hpp"
#include "features/ciede/ciede_simd_formula.hpp"
#undef LANE_TARGET
#undef LANE

#undef AVX2

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2", &delta_e, &lab};
  return k;
}

}  // namespace exactvmaf::ciede
#endif
