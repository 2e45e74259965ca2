// AVX2 row kernels of float ADM (float_adm_simd.hpp): eight samples of
// float_adm_math.hpp's per-sample arithmetic at a time, each lane the same
// IEEE operations in the same order as the scalar code (separate multiply and
// add, never FMA; the fp64 islands in double lanes: cvtps_pd is exact and
// cvtpd_ps rounds to nearest as the scalar store does). Row sums add the
// eight terms one by one in column order. Edge columns and tails are the
// scalar functions'.
#include "features/float_adm/float_adm_simd.hpp"

#if EXACTVMAF_SIMD_X86
#include <immintrin.h>

namespace exactvmaf::float_adm {
namespace {

EXACTVMAF_TARGET_AVX2 inline __m256 abs8(__m256 x) {
  return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}

// (float)(c * (double)x) per lane.
EXACTVMAF_TARGET_AVX2 inline __m256 mul_f64const(__m256 x, double c) {
  const __m256d cd = _mm256_set1_pd(c);
  const __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(cd, _mm256_cvtps_pd(_mm256_castps256_ps128(x))));
  const __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(cd, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1))));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

// (float)((double)sum + c * (double)x) per lane.
EXACTVMAF_TARGET_AVX2 inline __m256 add_mul_f64const(__m256 sum, __m256 x, double c) {
  const __m256d cd = _mm256_set1_pd(c);
  const __m256d slo = _mm256_cvtps_pd(_mm256_castps256_ps128(sum));
  const __m256d shi = _mm256_cvtps_pd(_mm256_extractf128_ps(sum, 1));
  const __m256d xlo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
  const __m256d xhi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
  const __m128 lo = _mm256_cvtpd_ps(_mm256_add_pd(slo, _mm256_mul_pd(cd, xlo)));
  const __m128 hi = _mm256_cvtpd_ps(_mm256_add_pd(shi, _mm256_mul_pd(cd, xhi)));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

EXACTVMAF_TARGET_AVX2 inline __m256 dwt4(__m256 s0, __m256 s1, __m256 s2, __m256 s3, float c0, float c1, float c2,
                                         float c3) {
  __m256 acc = _mm256_setzero_ps();
  acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(c0), s0));
  acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(c1), s1));
  acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(c2), s2));
  acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(c3), s3));
  return acc;
}

EXACTVMAF_TARGET_AVX2 void dwt_vertical_avx2(const float* src, std::ptrdiff_t stride, int w, int h, int i, float* lo,
                                             float* hi) {
  const float* r0 = src + dwt_src_index(i, 0, h) * stride;
  const float* r1 = src + dwt_src_index(i, 1, h) * stride;
  const float* r2 = src + dwt_src_index(i, 2, h) * stride;
  const float* r3 = src + dwt_src_index(i, 3, h) * stride;
  int j = 0;
  for (; j + 8 <= w; j += 8) {
    const __m256 s0 = _mm256_loadu_ps(r0 + j), s1 = _mm256_loadu_ps(r1 + j), s2 = _mm256_loadu_ps(r2 + j),
                 s3 = _mm256_loadu_ps(r3 + j);
    _mm256_storeu_ps(lo + j, dwt4(s0, s1, s2, s3, dwt_lo(0), dwt_lo(1), dwt_lo(2), dwt_lo(3)));
    _mm256_storeu_ps(hi + j, dwt4(s0, s1, s2, s3, dwt_hi(0), dwt_hi(1), dwt_hi(2), dwt_hi(3)));
  }
  for (; j < w; ++j) dwt_vertical_sample(src, stride, h, i, j, lo + j, hi + j);
}

// Elements 0, 2, ..., 14 (even) and 1, 3, ..., 15 (odd) of the 16 floats at p.
EXACTVMAF_TARGET_AVX2 inline void deinterleave16(const float* p, __m256* even, __m256* odd) {
  const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
  *even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8));
  *odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8));
}

EXACTVMAF_TARGET_AVX2 void dwt_horizontal_avx2(const float* lo, const float* hi, int w, float* a, float* v, float* h,
                                               float* d) {
  const int bw = band_size(w);
  int j = 0;
  for (; j < bw && j < 1; ++j) dwt_horizontal_sample(lo, hi, w, j, a + j, v + j, h + j, d + j);
  // Outputs j..j+7 read columns 2j-1 .. 2j+16 (all unmirrored while 2j+16 <= w-1).
  for (; j + 8 <= bw && 2 * j + 16 <= w - 1; j += 8) {
    __m256 s0, s1, s2, s3;
    deinterleave16(lo + 2 * j - 1, &s0, &s1);
    deinterleave16(lo + 2 * j + 1, &s2, &s3);
    _mm256_storeu_ps(a + j, dwt4(s0, s1, s2, s3, dwt_lo(0), dwt_lo(1), dwt_lo(2), dwt_lo(3)));
    _mm256_storeu_ps(v + j, dwt4(s0, s1, s2, s3, dwt_hi(0), dwt_hi(1), dwt_hi(2), dwt_hi(3)));
    deinterleave16(hi + 2 * j - 1, &s0, &s1);
    deinterleave16(hi + 2 * j + 1, &s2, &s3);
    _mm256_storeu_ps(h + j, dwt4(s0, s1, s2, s3, dwt_lo(0), dwt_lo(1), dwt_lo(2), dwt_lo(3)));
    _mm256_storeu_ps(d + j, dwt4(s0, s1, s2, s3, dwt_hi(0), dwt_hi(1), dwt_hi(2), dwt_hi(3)));
  }
  for (; j < bw; ++j) dwt_horizontal_sample(lo, hi, w, j, a + j, v + j, h + j, d + j);
}

// k clamped to [0, 1] as clamp01: k < 0 -> 0, k > 1 -> 1, else k (NaN kept).
EXACTVMAF_TARGET_AVX2 inline __m256 clamp01_8(__m256 k) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  k = _mm256_blendv_ps(k, one, _mm256_cmp_ps(k, one, _CMP_GT_OQ));
  return _mm256_blendv_ps(k, zero, _mm256_cmp_ps(k, zero, _CMP_LT_OQ));
}

// gain_clamp on 4 lanes (as doubles) where `flag` is set.
EXACTVMAF_TARGET_AVX2 inline __m256d gain_clamp4(__m256d rst, __m256d t, __m256d gain, __m256d flag) {
  const __m256d zero = _mm256_setzero_pd();
  __m256d p = _mm256_mul_pd(rst, gain);
  // rst > 0: (float)(p < t ? p : t); the store to float happens per step.
  __m256d m = _mm256_and_pd(flag, _mm256_cmp_pd(rst, zero, _CMP_GT_OQ));
  __m256d sel = _mm256_blendv_pd(t, p, _mm256_cmp_pd(p, t, _CMP_LT_OQ));
  sel = _mm256_cvtps_pd(_mm256_cvtpd_ps(sel));
  rst = _mm256_blendv_pd(rst, sel, m);
  // then, on that result, rst < 0: (float)(p > t ? p : t).
  p = _mm256_mul_pd(rst, gain);
  m = _mm256_and_pd(flag, _mm256_cmp_pd(rst, zero, _CMP_LT_OQ));
  sel = _mm256_blendv_pd(t, p, _mm256_cmp_pd(p, t, _CMP_GT_OQ));
  sel = _mm256_cvtps_pd(_mm256_cvtpd_ps(sel));
  return _mm256_blendv_pd(rst, sel, m);
}

EXACTVMAF_TARGET_AVX2 inline __m256 gain_clamp8(__m256 rst, __m256 t, double gain, __m256 flag) {
  const __m256d g = _mm256_set1_pd(gain);
  const __m256d flo = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(_mm256_castps256_ps128(flag))));
  const __m256d fhi = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_castps_si128(_mm256_extractf128_ps(flag, 1))));
  const __m256d lo = gain_clamp4(_mm256_cvtps_pd(_mm256_castps256_ps128(rst)),
                                 _mm256_cvtps_pd(_mm256_castps256_ps128(t)), g, flo);
  const __m256d hi = gain_clamp4(_mm256_cvtps_pd(_mm256_extractf128_ps(rst, 1)),
                                 _mm256_cvtps_pd(_mm256_extractf128_ps(t, 1)), g, fhi);
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}

EXACTVMAF_TARGET_AVX2 void decouple_avx2(const Bands3<const float>& ref, const Bands3<const float>& dis, int i, int j0,
                                         int j1, double gain, const Bands3<float>& r, const Bands3<float>& a) {
  const std::ptrdiff_t o = i * ref.stride;
  const __m256 eps = _mm256_set1_ps(decouple_eps()), cos_sq = _mm256_set1_ps(cos_1deg_sq());
  const __m256 zero = _mm256_setzero_ps();
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    const __m256 oh = _mm256_loadu_ps(ref.h + o + j), ov = _mm256_loadu_ps(ref.v + o + j),
                 od = _mm256_loadu_ps(ref.d + o + j);
    const __m256 th = _mm256_loadu_ps(dis.h + o + j), tv = _mm256_loadu_ps(dis.v + o + j),
                 td = _mm256_loadu_ps(dis.d + o + j);
    const __m256 kh = clamp01_8(_mm256_div_ps(th, _mm256_add_ps(oh, eps)));
    const __m256 kv = clamp01_8(_mm256_div_ps(tv, _mm256_add_ps(ov, eps)));
    const __m256 kd = clamp01_8(_mm256_div_ps(td, _mm256_add_ps(od, eps)));
    __m256 rh = _mm256_mul_ps(kh, oh), rv = _mm256_mul_ps(kv, ov), rd = _mm256_mul_ps(kd, od);
    const __m256 ot_dp = _mm256_add_ps(_mm256_mul_ps(oh, th), _mm256_mul_ps(ov, tv));
    const __m256 o_mag_sq = _mm256_add_ps(_mm256_mul_ps(oh, oh), _mm256_mul_ps(ov, ov));
    const __m256 t_mag_sq = _mm256_add_ps(_mm256_mul_ps(th, th), _mm256_mul_ps(tv, tv));
    const __m256 rhs = _mm256_mul_ps(_mm256_mul_ps(cos_sq, o_mag_sq), t_mag_sq);
    const __m256 flag = _mm256_and_ps(_mm256_cmp_ps(ot_dp, zero, _CMP_GE_OQ),
                                      _mm256_cmp_ps(_mm256_mul_ps(ot_dp, ot_dp), rhs, _CMP_GE_OQ));
    if (_mm256_movemask_ps(flag) != 0) {
      rh = gain_clamp8(rh, th, gain, flag);
      rv = gain_clamp8(rv, tv, gain, flag);
      rd = gain_clamp8(rd, td, gain, flag);
    }
    _mm256_storeu_ps(r.h + o + j, rh);
    _mm256_storeu_ps(r.v + o + j, rv);
    _mm256_storeu_ps(r.d + o + j, rd);
    _mm256_storeu_ps(a.h + o + j, _mm256_sub_ps(th, rh));
    _mm256_storeu_ps(a.v + o + j, _mm256_sub_ps(tv, rv));
    _mm256_storeu_ps(a.d + o + j, _mm256_sub_ps(td, rd));
  }
  decouple_row(ref, dis, i, j, j1, gain, r, a);
}

EXACTVMAF_TARGET_AVX2 void csf_avx2(const float* src, float rfactor, int j0, int j1, float* dst, float* flt) {
  const __m256 rf = _mm256_set1_ps(rfactor);
  int j = j0;
  for (; j + 8 <= j1; j += 8) {
    const __m256 v = _mm256_mul_ps(rf, _mm256_loadu_ps(src + j));
    _mm256_storeu_ps(dst + j, v);
    _mm256_storeu_ps(flt + j, mul_f64const(abs8(v), one_by_30));
  }
  csf_row(src, rfactor, j, j1, dst, flt);
}

// Adds the 8 terms of each band to the row sums one at a time (column order).
inline void add_terms(RowSums* s, const float (&th)[8], const float (&tv)[8], const float (&td)[8]) {
  for (int k = 0; k < 8; ++k) {
    s->h += th[k];
    s->v += tv[k];
    s->d += td[k];
  }
}

// x^p per lane: x*x*x for p = 3, else the scalar powf of each lane.
EXACTVMAF_TARGET_AVX2 inline void pow_terms(__m256 x, const PNorm& pn, bool* undecided, float (&out)[8]) {
  if (pn.cube) {
    _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_mul_ps(x, x), x));
    return;
  }
  float xs[8];
  _mm256_storeu_ps(xs, x);
  for (int k = 0; k < 8; ++k) out[k] = pow_term(xs[k], pn, undecided);
}

EXACTVMAF_TARGET_AVX2 RowSums den_avx2(const Bands3<const float>& ref, const float rfactor[3], int i, int j0, int j1,
                                       const PNorm& pn, bool* undecided) {
  RowSums s;
  int j = j0;
  float t[3][8];
  for (; j + 8 <= j1; j += 8) {
    for (int b = 0; b < 3; ++b)
      pow_terms(abs8(_mm256_mul_ps(_mm256_set1_ps(rfactor[b]), _mm256_loadu_ps(ref.row(b, i) + j))), pn, undecided,
                t[b]);
    add_terms(&s, t[0], t[1], t[2]);
  }
  for (; j < j1; ++j) {
    const RowSums u = den_terms(ref, rfactor, i, j, pn, undecided);
    s.h += u.h;
    s.v += u.v;
    s.d += u.d;
  }
  return s;
}

EXACTVMAF_TARGET_AVX2 RowSums cm_avx2(const Bands3<const float>& src, const Bands3<const float>& angles,
                                      const Bands3<const float>& flt, const float rfactor[3], int w, int h, int i,
                                      int j0, int j1, bool bypass_cm, const PNorm& pn, bool* undecided) {
  RowSums s;
  const auto scalar = [&](int j) {
    const RowSums u = cm_terms(src, angles, flt, rfactor, w, h, i, j, bypass_cm, pn, undecided);
    s.h += u.h;
    s.v += u.v;
    s.d += u.d;
  };
  const int ip = cm_prev(i), in = cm_next(i, h);
  const int vec_end = j1 < w - 1 ? j1 : w - 1;  // j + 1 must not need the mirror
  int j = j0;
  for (; j < j1 && j < 1; ++j) scalar(j);
  float t[3][8];
  const __m256 zero = _mm256_setzero_ps();
  for (; j + 8 <= vec_end; j += 8) {
    __m256 thr = zero;
    if (!bypass_cm) {
      for (int b = 0; b < 3; ++b) {
        const float* fp = flt.row(b, ip) + j;
        const float* fc = flt.row(b, i) + j;
        const float* fn = flt.row(b, in) + j;
        __m256 sum = zero;
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fp - 1));
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fp));
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fp + 1));
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fc - 1));
        sum = add_mul_f64const(sum, abs8(_mm256_loadu_ps(angles.row(b, i) + j)), one_by_15);
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fc + 1));
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fn - 1));
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fn));
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(fn + 1));
        thr = _mm256_add_ps(thr, sum);
      }
    }
    for (int b = 0; b < 3; ++b) {
      __m256 x = _mm256_mul_ps(_mm256_loadu_ps(src.row(b, i) + j), _mm256_set1_ps(rfactor[b]));
      x = _mm256_sub_ps(abs8(x), thr);
      x = _mm256_max_ps(zero, x);  // zero > x ? zero : x == (x < 0 ? 0 : x), NaN and -0 kept
      pow_terms(x, pn, undecided, t[b]);
    }
    add_terms(&s, t[0], t[1], t[2]);
  }
  for (; j < j1; ++j) scalar(j);
  return s;
}

}  // namespace

const Kernels& avx2_kernels() {
  static const Kernels k = {"avx2",    &dwt_vertical_avx2, &dwt_horizontal_avx2, &decouple_avx2,
                            &csf_avx2, &den_avx2,          &cm_avx2};
  return k;
}

}  // namespace exactvmaf::float_adm

#endif
