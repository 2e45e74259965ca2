// Part of ciede's vector kernels (ciede_avx2.cpp, ciede_avx512.cpp; not a
// standalone header): the lane helpers that ciede_simd_formula.hpp names, on
// a group of kVectors vectors side by side. Each file defines its one-vector
// helpers in namespace `one` (types one::D, one::F, one::M, one::I and
// one::kLanes) and LANE before including this.
// Why groups: the formula is one long dependency chain per lane (Horner
// steps, divisions, square roots), so a single vector left the core waiting
// on latencies; independent vectors interleaved instruction by instruction
// fill those waits (measured on 1080p grain, AVX-512 8 -> 32 lanes: 1.37x,
// AVX2 4 -> 16 lanes: 1.75x per pair). Every helper applies the one-vector
// helper to each vector, so each lane still runs the scalar operations in
// the scalar order.

inline constexpr int kVectors = 4;
struct D {
  one::D v[kVectors];
};
struct F {
  one::F v[kVectors];
};
struct M {
  one::M v[kVectors];
};
struct I {
  one::I v[kVectors];
};
inline constexpr std::size_t kLanes = one::kLanes * kVectors;
static_assert(kLanes <= 32 && ciede::kBatch % kLanes == 0);
inline constexpr unsigned kAllLanes = static_cast<unsigned>((std::uint64_t{1} << kLanes) - 1);

// r.v[i] = expr for each vector i.
#define EACH(T, expr)                                 \
  T r;                                                \
  for (int i = 0; i < kVectors; ++i) r.v[i] = (expr); \
  return r

// IEEE + - * / lane by lane (with a constant: the constant in every lane).
LANE D operator+(D x, D y) { EACH(D, x.v[i] + y.v[i]); }
LANE D operator-(D x, D y) { EACH(D, x.v[i] - y.v[i]); }
LANE D operator*(D x, D y) { EACH(D, x.v[i] * y.v[i]); }
LANE D operator/(D x, D y) { EACH(D, x.v[i] / y.v[i]); }
LANE D operator+(D x, double c) { EACH(D, x.v[i] + c); }
LANE D operator-(D x, double c) { EACH(D, x.v[i] - c); }
LANE D operator*(D x, double c) { EACH(D, x.v[i] * c); }
LANE D operator/(D x, double c) { EACH(D, x.v[i] / c); }
LANE D operator+(double c, D x) { EACH(D, c + x.v[i]); }
LANE D operator-(double c, D x) { EACH(D, c - x.v[i]); }
LANE D operator*(double c, D x) { EACH(D, c * x.v[i]); }
LANE D operator/(double c, D x) { EACH(D, c / x.v[i]); }
LANE F operator+(F x, F y) { EACH(F, x.v[i] + y.v[i]); }
LANE F operator-(F x, F y) { EACH(F, x.v[i] - y.v[i]); }
LANE F operator*(F x, F y) { EACH(F, x.v[i] * y.v[i]); }
LANE F operator/(F x, F y) { EACH(F, x.v[i] / y.v[i]); }
LANE F operator+(F x, float c) { EACH(F, x.v[i] + c); }
LANE F operator-(F x, float c) { EACH(F, x.v[i] - c); }
LANE F operator*(F x, float c) { EACH(F, x.v[i] * c); }
LANE F operator/(F x, float c) { EACH(F, x.v[i] / c); }

LANE D dbl(F x) { EACH(D, one::dbl(x.v[i])); }
LANE F flt(D x) { EACH(F, one::flt(x.v[i])); }
LANE D dbl(I x) { EACH(D, one::dbl(x.v[i])); }
LANE D splat(double c) { EACH(D, one::splat(c)); }
LANE F splat(float c) { EACH(F, one::splat(c)); }
LANE M lt(D a, D b) { EACH(M, one::lt(a.v[i], b.v[i])); }
LANE M le(D a, D b) { EACH(M, one::le(a.v[i], b.v[i])); }
LANE M gt(D a, D b) { EACH(M, one::gt(a.v[i], b.v[i])); }
LANE M ge(D a, D b) { EACH(M, one::ge(a.v[i], b.v[i])); }
LANE M eq(D a, D b) { EACH(M, one::eq(a.v[i], b.v[i])); }
LANE M lt(D a, double b) { EACH(M, one::lt(a.v[i], b)); }
LANE M le(D a, double b) { EACH(M, one::le(a.v[i], b)); }
LANE M gt(D a, double b) { EACH(M, one::gt(a.v[i], b)); }
LANE M ge(D a, double b) { EACH(M, one::ge(a.v[i], b)); }
LANE M eq(D a, double b) { EACH(M, one::eq(a.v[i], b)); }
LANE M all(M x, M y) { EACH(M, one::all(x.v[i], y.v[i])); }
LANE M any(M x, M y) { EACH(M, one::any(x.v[i], y.v[i])); }
LANE M but_not(M x, M y) { EACH(M, one::but_not(x.v[i], y.v[i])); }
LANE M differ(M x, M y) { EACH(M, one::differ(x.v[i], y.v[i])); }
LANE D select(M m, D t, D f) { EACH(D, one::select(m.v[i], t.v[i], f.v[i])); }
LANE F select(M m, F t, F f) { EACH(F, one::select(m.v[i], t.v[i], f.v[i])); }
LANE D neg(D x) { EACH(D, one::neg(x.v[i])); }
LANE F neg(F x) { EACH(F, one::neg(x.v[i])); }
LANE D abs_c(D x) { EACH(D, one::abs_c(x.v[i])); }
LANE F abs_c(F x) { EACH(F, one::abs_c(x.v[i])); }
LANE D sqrt_d(D x) { EACH(D, one::sqrt_d(x.v[i])); }
LANE I i32_of(D x) { EACH(I, one::i32_of(x.v[i])); }
LANE M lane_bit(I k, int bit) { EACH(M, one::lane_bit(k.v[i], bit)); }
LANE M round_to_float(D hi, D lo, D err_abs, F* out, FloatRange range) {
  EACH(M, one::round_to_float(hi.v[i], lo.v[i], err_abs.v[i], &out->v[i], range));
}
LANE D pow2_of(I k) { EACH(D, one::pow2_of(k.v[i])); }
LANE I clamp_0_16(I j) { EACH(I, one::clamp_0_16(j.v[i])); }
LANE D atan_table(I j) { EACH(D, one::atan_table(j.v[i])); }
LANE F sign_of(F x) { EACH(F, one::sign_of(x.v[i])); }
LANE F with_sign(float magnitude, F sign) { EACH(F, one::with_sign(magnitude, sign.v[i])); }
LANE F load(const float* p) { EACH(F, one::load(p + one::kLanes * i)); }
LANE void store(float* p, F x) {
  for (int i = 0; i < kVectors; ++i) one::store(p + one::kLanes * i, x.v[i]);
}
LANE unsigned lanes_of(M m) {  // bit k: lane k
  unsigned r = 0;
  for (int i = 0; i < kVectors; ++i) r |= one::lanes_of(m.v[i]) << (one::kLanes * i);
  return r;
}
LANE D load_samples(const std::uint32_t* p) { EACH(D, one::load_samples(p + one::kLanes * i)); }
LANE D mantissa_1_2(D x) { EACH(D, one::mantissa_1_2(x.v[i])); }
LANE D unbiased_exponent(D x) { EACH(D, one::unbiased_exponent(x.v[i])); }

#undef EACH
