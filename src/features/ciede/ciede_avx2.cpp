// AVX2 kernel of ciede (ciede_simd.hpp): ciede2000<HostMath>'s shortcut path
// (ciede_math.hpp) four pairs at a time, the doubles in __m256d and the
// floats in __m128. Each step below performs the IEEE operations of the
// scalar function it names, in the same order and association (no FMA:
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

#define AVX2 EXACTVMAF_TARGET_AVX2 inline

using D = __m256d;  // four doubles (GCC's vector operators: IEEE + - * /)
using F = __m128;   // four floats

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
AVX2 __m128i i32_of(D x) { return _mm256_cvttpd_epi32(x); }  // truncation, as static_cast<int>
AVX2 D lane_bit(__m128i k, int bit) {                           // (k & bit) != 0 per lane
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
AVX2 D round_to_float(D hi, D lo, D err_abs, F* out) {
  const D e = 2.0 * err_abs;
  const D up = hi + (lo + e);
  const D dn = hi + (lo - e);
  const F fu = flt(up), fd = flt(dn);
  const D same = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(_mm_cmp_ps(fu, fd, _CMP_EQ_OQ))));
  *out = fu;
  return all(same, all(not_midpoint(up), not_midpoint(dn)));
}

// ---- dd.hpp: two_prod, two_sqr, mul(dd, dd); ciede_math.hpp: pow7_dd ---------

struct DD {
  D hi, lo;
};
AVX2 DD split(D a) {
  const D c = 134217729.0 * a;
  const D hi = c - (c - a);
  return {hi, a - hi};
}
AVX2 DD two_prod(D a, D b) {
  const D p = a * b;
  const DD as = split(a), bs = split(b);
  return {p, ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo};
}
AVX2 DD two_sqr(D a) {
  const D p = a * a;
  const DD as = split(a);
  return {p, ((as.hi * as.hi - p) + 2.0 * (as.hi * as.lo)) + as.lo * as.lo};
}
AVX2 DD mul(DD x, DD y) {
  const DD c = two_prod(x.hi, y.hi);
  const D cl3 = c.lo + (x.hi * y.lo + x.lo * y.hi);
  const D s = c.hi + cl3;  // fast_two_sum
  return {s, cl3 - (s - c.hi)};
}
AVX2 DD pow7_dd(D x) {
  const D x2 = x * x;
  return mul(two_prod(x2, x), two_sqr(x2));
}

// pow7_f64 (c_bar's power): value, and the lanes it decides.
AVX2 D pow7_f64(F x, D* decided) {
  const D xd = dbl(x);
  const D zero = eq(xd, 0.0);
  const DD p = pow7_dd(xd);
  const D e = 2.0 * (0x1p-102 * p.hi);  // round_to_double
  const D up = p.hi + (p.lo + e);
  const D dn = p.hi + (p.lo - e);
  *decided = any(zero, all(all(ge(xd, 0x1p-60), le(xd, 0x1p60)), eq(up, dn)));
  return select(zero, xd, up);
}

// powf7_f32 (c_bar_prime's float power).
AVX2 F powf7_f32(F x, D* decided) {
  const D xd = dbl(x);
  const D zero = eq(xd, 0.0);
  const DD p = pow7_dd(xd);
  F r;
  const D ok = round_to_float(p.hi, p.lo, 0x1p-102 * p.hi, &r);
  *decided = any(zero, all(all(ge(xd, 0x1p-18), le(xd, 0x1p18)), ok));
  return select(zero, x, r);
}

// ---- ciede_math.hpp: reduce_pio2_approx, cos_poly / sin_poly, cos_approx,
// sin_approx, exp_approx, atan2_approx --------------------------------------

struct Reduced {
  D r, kd;  // k = i32_of(kd)
};
AVX2 Reduced reduce_pio2(D x) {
  constexpr double kTwoOverPi = 0.63661977236758138243;
  constexpr double P1 = 0x1.921fb544p0, P2 = 0x1.0b4611a6p-34, P3 = 0x1.3198a2e037073p-69;
  constexpr double kShift = 0x1.8p52;
  const D kd = (x * kTwoOverPi + kShift) - kShift;
  return {((x - kd * P1) - kd * P2) - kd * P3, kd};
}

// cos_poly(z) where !odd, sin_poly(r, z) where odd: both are Horner chains
// of nine coefficients starting 1.0 +, sin's then times r; a cos lane's
// final factor is 1.0 (exact), so each lane gets its polynomial's bits.
AVX2 D coef(D odd, double cos_coef, double sin_coef) { return select(odd, splat(sin_coef), splat(cos_coef)); }
AVX2 D trig_poly(D r, D z, D odd) {
  const D p =
      1.0 + z * (coef(odd, -0.5, -1.0 / 6.0) + z * (coef(odd, 1.0 / 24.0, 1.0 / 120.0) + z * (coef(odd, -1.0 / 720.0, -1.0 / 5040.0) +
      z * (coef(odd, 1.0 / 40320.0, 1.0 / 362880.0) + z * (coef(odd, -1.0 / 3628800.0, -1.0 / 39916800.0) +
      z * (coef(odd, 1.0 / 479001600.0, 1.0 / 6227020800.0) + z * (coef(odd, -1.0 / 87178291200.0, -1.0 / 1307674368000.0) +
      z * coef(odd, 1.0 / 20922789888000.0, 1.0 / 355687428096000.0))))))));
  return select(odd, r, splat(1.0)) * p;
}

// cos_approx: k & 3 = 0: cos, 1: -sin, 2: -cos, 3: sin.
AVX2 D cos_approx(D x) {
  const Reduced t = reduce_pio2(x);
  const __m128i k = i32_of(t.kd);
  const D bit0 = lane_bit(k, 1), bit1 = lane_bit(k, 2);
  const D v = trig_poly(t.r, t.r * t.r, bit0);
  return select(differ(bit0, bit1), neg(v), v);
}

// sin_approx: k == 0: sin; k > 0: cos; k < 0: -cos.
AVX2 D sin_approx(D x) {
  const Reduced t = reduce_pio2(x);
  const D k_zero = eq(t.kd, 0.0);
  const D v = trig_poly(t.r, t.r * t.r, k_zero);
  return select(lt(t.kd, 0.0), neg(v), v);
}

AVX2 D exp_approx(D x) {
  constexpr double kInvLn2 = 1.44269504088896338700;
  constexpr double L1 = 0x1.62e42feep-1, L2 = 0x1.a39ef35793c76p-33;
  constexpr double kShift = 0x1.8p52;
  const D kd = (x * kInvLn2 + kShift) - kShift;
  const D r = (x - kd * L1) - kd * L2;
  const D p =
      1.0 + r * (1.0 + r * (1.0 / 2.0 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 +
      r * (1.0 / 5040.0 + r * (1.0 / 40320.0 + r * (1.0 / 362880.0 + r * (1.0 / 3628800.0 + r * (1.0 / 39916800.0 +
      r * (1.0 / 479001600.0 + r * (1.0 / 6227020800.0 + r * (1.0 / 87178291200.0))))))))))))));
  const __m256i e = _mm256_add_epi64(_mm256_cvtepi32_epi64(i32_of(kd)), _mm256_set1_epi64x(1023));
  return p * _mm256_castsi256_pd(_mm256_slli_epi64(e, 52));  // pow2_of
}

AVX2 D atan2_approx(D y, D x) {
  constexpr double kPio2 = 0x1.921fb54442d18p+0, kPiD = 0x1.921fb54442d18p+1;
  const D ay = abs_c(y), ax = abs_c(x);
  const D swap = gt(ay, ax);
  const D q = select(swap, ax, ay) / select(swap, ay, ax);
  // j in [0, 16] on every lane the shortcut can decide; clamped so that no
  // lane reads outside the table.
  const __m128i j = _mm_min_epi32(_mm_max_epi32(i32_of(q * 16.0 + 0.5), _mm_setzero_si128()), _mm_set1_epi32(16));
  const D c = _mm256_cvtepi32_pd(j) * 0.0625;
  const D t = (q - c) / (1.0 + q * c);
  const D t2 = t * t;
  const D at = t * (1.0 + t2 * (-1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (-1.0 / 7.0 + t2 * (1.0 / 9.0 + t2 * (-1.0 / 11.0))))));
  D a = _mm256_mask_i32gather_pd(splat(0.0), kAtanTable, j, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8) + at;
  a = select(swap, kPio2 - a, a);
  a = select(lt(x, 0.0), kPiD - a, a);
  return select(lt(y, 0.0), neg(a), a);
}

// ---- ciede_math.hpp: atan2_to_float, mul_sin_to_float, sixty_exp_to_float ---

// y = b, x = a' as floats (the doubles are their exact conversions).
AVX2 F atan2_to_float(F yf, F xf, D* decided) {
  const D y = dbl(yf), x = dbl(xf);
  const D ay = abs_c(y), ax = abs_c(x);
  const D approx_domain = all(all(all(gt(ay, 0.0), gt(ax, 0.0)), all(lt(ay, 0x1p500), lt(ax, 0x1p500))),
                              all(gt(ay, 0x1p-500), gt(ax, 0x1p-500)));
  F approx;
  const D approx_ok = all(approx_domain, round_to_float(atan2_approx(y, x), splat(0.0), splat(0x1p-46), &approx));
  // Exactly one zero: C's exact values (the sign of y by its sign bit).
  const D y_zero = eq(ay, 0.0), x_zero = eq(ax, 0.0);
  const D one_zero = all(differ(y_zero, x_zero), all(lt(ay, 0x1p1000), lt(ax, 0x1p1000)));
  const F y_sign = _mm_and_ps(yf, _mm_set1_ps(-0.0f));
  const F signed_pio2 = _mm_or_ps(_mm_set1_ps(f(kPiOver2)), y_sign);
  const F signed_pi = _mm_or_ps(_mm_set1_ps(f(kPi)), y_sign);
  const F exact = select(x_zero, signed_pio2, select(gt(x, 0.0), yf, signed_pi));
  *decided = any(approx_ok, one_zero);
  return select(approx_ok, approx, exact);
}

AVX2 F mul_sin_to_float(D a, D x, D* decided) {
  const D in_range = all(ge(x, -1.6), le(x, 1.6));
  const D zero = all(any(eq(a, 0.0), eq(x, 0.0)), all(lt(a, 0x1p1000), gt(a, -0x1p1000)));
  const D v = a * sin_approx(x);
  const D av = abs_c(v);
  F approx;
  const D approx_ok = all(all(gt(av, 0x1p-900), lt(av, 0x1p100)), round_to_float(v, splat(0.0), av * 0x1p-46, &approx));
  *decided = all(in_range, any(zero, approx_ok));
  return select(zero, flt(a * x), approx);
}

AVX2 F sixty_exp_to_float(D x, D* decided) {
  const D v = 60.0 * exp_approx(x);
  F out;
  const D ok = round_to_float(v, splat(0.0), v * 0x1p-46, &out);
  *decided = all(all(ge(x, -700.0), le(x, 0.0)), ok);
  return out;
}

// ---- ciede_math.hpp: h_prime, delta_h_prime, upcase_h_bar_prime, upcase_t,
// r_sub_t ---------------------------------------------------------------------

AVX2 F h_prime(F b, F a_prime, D* decided) {
  const D both_zero = all(eq(dbl(b), 0.0), eq(dbl(a_prime), 0.0));
  D atan_ok;
  const F hue = atan2_to_float(b, a_prime, &atan_ok);
  const D hue_d = dbl(hue);
  const F wrapped = select(lt(hue_d, 0.0), flt(hue_d + kTwoPi), hue);
  *decided = any(both_zero, atan_ok);
  return select(both_zero, _mm_setzero_ps(), wrapped);
}

AVX2 F delta_h_prime(F c1, F c2, F h1, F h2) {
  const D zero_c = any(eq(dbl(c1), 0.0), eq(dbl(c2), 0.0));
  const F diff = h2 - h1;
  const F abs_diff = abs_c(h1 - h2);
  const D diff_d = dbl(diff);
  const F wrapped = select(le(dbl(h2), dbl(h1)), flt(diff_d + kTwoPi), flt(diff_d - kTwoPi));
  const F v = select(le(dbl(abs_diff), kPi), diff, wrapped);
  return select(zero_c, _mm_setzero_ps(), v);
}

AVX2 F upcase_h_bar_prime(F h1, F h2) {
  const D abs_diff = abs_c(dbl(h1 - h2));
  const D sum = dbl(h1 + h2);
  return select(gt(abs_diff, kPi), flt((sum + kTwoPi) / 2.0), flt(sum / 2.0));
}

AVX2 F upcase_t(F h_bar, D* decided) {
  const D h = dbl(h_bar);
  const D v = 1.0 - 0.17 * cos_approx(h - kPiOver6) + 0.24 * cos_approx(2.0 * h) +
              0.32 * cos_approx(3.0 * h + kPiOver30) - 0.20 * cos_approx(4.0 * h - kSevenPiOver20);
  F t;
  const D ok = round_to_float(v, splat(0.0), splat(0x1p-44), &t);
  *decided = all(all(ge(h, 0.0), lt(h, 12.0)), ok);
  return t;
}

AVX2 F r_sub_t(F c_bar_prime, F h_bar, D* decided) {
  const F rad_to_deg = flt(dbl(h_bar) * kRadToDeg);
  const F degrees = flt((dbl(rad_to_deg) - 275.0) * (1.0 / 25.0));
  D c7_ok, exp_ok, sin_ok;
  const F c7 = powf7_f32(c_bar_prime, &c7_ok);
  const F ratio = c7 / (c7 + _mm_set1_ps(kPowf25_7));
  const F degrees_sq = degrees * degrees;
  const F angle_deg = sixty_exp_to_float(dbl(neg(degrees_sq)), &exp_ok);
  const F radians = flt(dbl(angle_deg) * kDegToRad);
  const F rt = mul_sin_to_float(-2.0 * sqrt_d(dbl(ratio)), dbl(radians), &sin_ok);
  *decided = all(c7_ok, all(exp_ok, sin_ok));
  return rt;
}

// ---- ciede_math.hpp: ciede2000 ---------------------------------------------------

AVX2 F ciede2000(F l1, F a1, F b1, F l2, F a2, F b2, D* decided) {
  const F delta_l_prime = l2 - l1;
  const F l_bar = (l1 + l2) / 2.0f;
  const D a1d = dbl(a1), b1d = dbl(b1), a2d = dbl(a2), b2d = dbl(b2);
  const F c1 = flt(sqrt_d(a1d * a1d + b1d * b1d));
  const F c2 = flt(sqrt_d(a2d * a2d + b2d * b2d));
  const F c_bar = (c1 + c2) / 2.0f;
  D pow_ok, h1_ok, h2_ok, dh_ok, t_ok, rt_ok;
  const D c_bar7 = pow7_f64(c_bar, &pow_ok);
  const D g_factor = 1.0 - sqrt_d(c_bar7 / (c_bar7 + kPow25_7));
  const F a_prime_1 = flt(a1d + dbl(a1 / 2.0f) * g_factor);
  const F a_prime_2 = flt(a2d + dbl(a2 / 2.0f) * g_factor);
  const D ap1 = dbl(a_prime_1), ap2 = dbl(a_prime_2);
  const F c_prime_1 = flt(sqrt_d(ap1 * ap1 + b1d * b1d));
  const F c_prime_2 = flt(sqrt_d(ap2 * ap2 + b2d * b2d));
  const F c_bar_prime = (c_prime_1 + c_prime_2) / 2.0f;
  const F delta_c_prime = c_prime_2 - c_prime_1;
  const D l_off = dbl(l_bar - 50.0f);
  const D l_off_sq = l_off * l_off;
  const F s_sub_l = flt(1. + ((0.015 * l_off_sq) / sqrt_d(20.0 + l_off_sq)));
  const D cbp = dbl(c_bar_prime);
  const F s_sub_c = flt(1. + 0.045 * cbp);
  const F h_prime_1 = h_prime(b1, a_prime_1, &h1_ok);
  const F h_prime_2 = h_prime(b2, a_prime_2, &h2_ok);
  const F dh_prime = delta_h_prime(c1, c2, h_prime_1, h_prime_2);
  const F delta_upcase_h_prime =
      mul_sin_to_float(2.0 * sqrt_d(dbl(c_prime_1 * c_prime_2)), dbl(dh_prime) / 2.0, &dh_ok);
  const F h_bar = upcase_h_bar_prime(h_prime_1, h_prime_2);
  const F t = upcase_t(h_bar, &t_ok);
  const F s_sub_upcase_h = flt(1.0 + 0.015 * cbp * dbl(t));
  const F rt = r_sub_t(c_bar_prime, h_bar, &rt_ok);
  const F lightness = delta_l_prime / (_mm_set1_ps(kKL) * s_sub_l);
  const F chroma = delta_c_prime / (_mm_set1_ps(kKC) * s_sub_c);
  const F hue = delta_upcase_h_prime / (_mm_set1_ps(kKH) * s_sub_upcase_h);
  const D ld = dbl(lightness), cd = dbl(chroma), hd = dbl(hue);
  *decided = all(all(pow_ok, all(h1_ok, h2_ok)), all(dh_ok, all(t_ok, rt_ok)));
  return flt(sqrt_d(ld * ld + cd * cd + hd * hd + dbl(rt * chroma * hue)));
}

// The scalar formula for one pair (undecided lanes, the tail); kept out of
// line so that it is built as the scalar code is.
[[gnu::noinline]] float scalar_delta_e(const LabPairs& p, std::size_t k) {
  HostMath m;
  return ::exactvmaf::ciede::ciede2000(Lab{p.l1[k], p.a1[k], p.b1[k]}, Lab{p.l2[k], p.a2[k], p.b2[k]}, m);
}

EXACTVMAF_TARGET_AVX2 std::size_t delta_e(const LabPairs& p, std::size_t n, float* out) {
  std::size_t scalar = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    D decided;
    const F v = ciede2000(_mm_loadu_ps(p.l1 + i), _mm_loadu_ps(p.a1 + i), _mm_loadu_ps(p.b1 + i),
                          _mm_loadu_ps(p.l2 + i), _mm_loadu_ps(p.a2 + i), _mm_loadu_ps(p.b2 + i), &decided);
    _mm_storeu_ps(out + i, v);
    for (unsigned undecided = ~static_cast<unsigned>(_mm256_movemask_pd(decided)) & 15u; undecided != 0;
         undecided &= undecided - 1) {
      const std::size_t k = i + static_cast<std::size_t>(__builtin_ctz(undecided));
      out[k] = scalar_delta_e(p, k);
      ++scalar;
    }
  }
  for (; i < n; ++i) {  // the tail: the scalar formula
    out[i] = scalar_delta_e(p, i);
    ++scalar;
  }
  return scalar;
}

#undef AVX2

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2", &delta_e};
  return k;
}

}  // namespace exactvmaf::ciede
#endif
