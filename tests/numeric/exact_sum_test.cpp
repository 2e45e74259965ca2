// ExactSumF32 / ExactSumF64 against MPFR's exactly rounded sums: random and
// adversarial sequences, ties, non-finite terms, order and merge
// independence, the carry-save limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "exact_sum_oracle.hpp"
#include "exact_sum_seqs.hpp"
#include "numeric/exact_sum.hpp"

namespace {

using exactvmaf::rmath::ExactSumF32;
using exactvmaf::rmath::ExactSumF64;
using namespace exactvmaf::test;

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// NaN results are the quiet NaN 0x7ff8...; everything else compares by bits.
void expect_same(double got, double want, const char* what) {
  if (want != want) {
    EXPECT_EQ(bits(got), 0x7ff8000000000000ull) << what;
  } else {
    EXPECT_EQ(bits(got), bits(want)) << what << ": got " << got << " want " << want;
  }
}

double sum_f32(const std::vector<float>& v) {
  ExactSumF32 acc{};
  for (float x : v) acc.add(x);
  return acc.round_to_double();
}

double sum_f64(const std::vector<double>& v) {
  ExactSumF64 acc{};
  for (double x : v) acc.add(x);
  return acc.round_to_double();
}

TEST(ExactSum, FloatSequencesAgainstMpfr) {
  SplitMix64 rng(42);
  const FloatSeq kinds[] = {FloatSeq::kUniformBits, FloatSeq::kCiedeLike, FloatSeq::kCancellation,
                            FloatSeq::kMaxFloat,    FloatSeq::kSubnormal, FloatSeq::kTies};
  for (FloatSeq kind : kinds) {
    for (int rep = 0; rep < 200; ++rep) {
      const std::size_t n = 1 + static_cast<std::size_t>(rng.next() % (rep < 150 ? 300 : 20000));
      const std::vector<float> v = float_sequence(kind, n, rng);
      const double want = mpfr_exact_sum(widen(v));
      expect_same(sum_f32(v), want, float_seq_name(kind));
      // The double accumulator takes floats too.
      ExactSumF64 acc{};
      for (float x : v) acc.add(x);
      expect_same(acc.round_to_double(), want, float_seq_name(kind));
    }
  }
}

TEST(ExactSum, DoubleSequencesAgainstMpfr) {
  SplitMix64 rng(43);
  for (int rep = 0; rep < 2000; ++rep) {
    const std::size_t n = 1 + static_cast<std::size_t>(rng.next() % 200);
    std::vector<double> v;
    const int mode = rep % 4;
    for (std::size_t i = 0; i < n; ++i) {
      double x = rng.any_double();
      if (x - x != 0.0) x = 1.0;
      if (mode == 1) x = rng.log_uniform(-1074, -1000);            // subnormal and tiny
      if (mode == 2) x = rng.log_uniform(1000, 1023);              // near overflow
      v.push_back(x);
    }
    if (mode == 3) {  // cancel everything but a few small terms
      const std::size_t m = v.size();
      for (std::size_t i = 0; i < m; ++i) v.push_back(-v[i]);
      v.push_back(0x1p-1074);
      v.push_back(rng.log_uniform(-1074, 10));
      for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
    }
    expect_same(sum_f64(v), mpfr_exact_sum(v), "doubles");
  }
}

TEST(ExactSum, TiesRoundToEven) {
  // 1 + 2^-53 is the midpoint of 1 and 1 + 2^-52: even is 1.
  EXPECT_EQ(sum_f32({1.0f, 0x1p-53f}), 1.0);
  // One more 2^-149 and it is above the midpoint.
  EXPECT_EQ(sum_f32({1.0f, 0x1p-53f, 0x1p-149f}), 1.0 + 0x1p-52);
  EXPECT_EQ(sum_f32({0x1p-149f, 1.0f, 0x1p-53f}), 1.0 + 0x1p-52);
  // 1 + 2^-52 + 2^-53: odd last bit, the tie goes up to 1 + 2^-51.
  EXPECT_EQ(sum_f32({1.0f, 0x1p-52f, 0x1p-53f}), 1.0 + 0x1p-51);
  // Just below the midpoint: down.
  EXPECT_EQ(sum_f32({1.0f, 0x1p-52f, 0x1p-53f, -0x1p-149f}), 1.0 + 0x1p-52);
  // Negative ties.
  EXPECT_EQ(sum_f32({-1.0f, -0x1p-53f}), -1.0);
  EXPECT_EQ(sum_f32({-1.0f, -0x1p-52f, -0x1p-53f}), -1.0 - 0x1p-51);
  // Rounding up that carries into the next binade.
  EXPECT_EQ(sum_f64({0x1.fffffffffffffp0, 0x1p-52}), 2.0);
  EXPECT_EQ(sum_f64({2.0, -0x1p-53}), 2.0);  // midpoint of 2 - 2^-52 and 2: even is 2
  EXPECT_EQ(sum_f64({2.0, -0x1p-53, -0x1p-1074}), 0x1.fffffffffffffp0);
  // A sum whose lowest set bit is far below the rounding point.
  EXPECT_EQ(sum_f64({0x1p100, 0x1p47, 0x1p-1074}), 0x1.0000000000001p100);
  EXPECT_EQ(sum_f64({0x1p100, 0x1p47}), 0x1p100);
}

TEST(ExactSum, ZerosSubnormalsOverflow) {
  EXPECT_EQ(bits(sum_f32({})), bits(0.0));
  EXPECT_EQ(bits(sum_f32({-0.0f})), bits(0.0));
  EXPECT_EQ(bits(sum_f32({-0.0f, -0.0f})), bits(0.0));
  EXPECT_EQ(bits(sum_f32({1.5f, -1.5f})), bits(0.0));
  EXPECT_EQ(bits(sum_f32({-1.5f, 1.5f})), bits(0.0));
  EXPECT_EQ(sum_f32({0x1p-149f}), 0x1p-149);
  EXPECT_EQ(sum_f32({-0x1p-149f, -0x1p-149f}), -0x1p-148);
  EXPECT_EQ(sum_f64({0x1p-1074}), 0x1p-1074);
  EXPECT_EQ(sum_f64({0x1p-1074, 0x1p-1074, 0x1p-1074}), 3 * 0x1p-1074);
  EXPECT_EQ(sum_f64({0x0.ffffffffffffep-1022, 0x1p-1074}), 0x0.fffffffffffffp-1022);
  EXPECT_EQ(sum_f64({0x0.fffffffffffffp-1022, 0x1p-1074}), 0x1p-1022);  // largest subnormal + 1 -> normal
  EXPECT_EQ(sum_f64({-0x0.fffffffffffffp-1022, -0x1p-1074}), -0x1p-1022);
  EXPECT_EQ(sum_f64({0x1p-1022, -0x1p-1074}), 0x0.fffffffffffffp-1022);
  const double dmax = std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sum_f64({dmax, dmax}), inf);
  EXPECT_EQ(sum_f64({-dmax, -dmax}), -inf);
  EXPECT_EQ(sum_f64({dmax, dmax, -dmax}), dmax);  // exact, order-free: no overflow in between
  EXPECT_EQ(sum_f64({dmax, 0x1p970}), inf);        // exactly the midpoint to 2^1024: overflows
  EXPECT_EQ(sum_f64({dmax, 0x1p969}), dmax);
  const float fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(sum_f32({fmax, fmax, fmax}), 3.0 * static_cast<double>(fmax));
}

TEST(ExactSum, NonFiniteTerms) {
  const float finf = std::numeric_limits<float>::infinity();
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sum_f32({1.0f, finf}), inf);
  EXPECT_EQ(sum_f32({-finf, 1.0f}), -inf);
  EXPECT_EQ(sum_f32({finf, finf}), inf);
  EXPECT_EQ(bits(sum_f32({finf, -finf})), 0x7ff8000000000000ull);
  EXPECT_EQ(bits(sum_f32({1.0f, fnan})), 0x7ff8000000000000ull);
  EXPECT_EQ(bits(sum_f32({finf, -fnan})), 0x7ff8000000000000ull);
  EXPECT_EQ(bits(sum_f32({finf, std::numeric_limits<float>::signaling_NaN()})), 0x7ff8000000000000ull);
  EXPECT_EQ(bits(sum_f64({inf, -inf, 1.0})), 0x7ff8000000000000ull);
  EXPECT_EQ(sum_f64({std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), -inf}), -inf);
}

TEST(ExactSum, OrderAndMergeIndependent) {
  SplitMix64 rng(44);
  for (int rep = 0; rep < 50; ++rep) {
    std::vector<float> v = float_sequence(rep % 2 ? FloatSeq::kUniformBits : FloatSeq::kCancellation,
                                          5000, rng);
    const double ref = sum_f32(v);
    // shuffled
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
    EXPECT_EQ(bits(sum_f32(v)), bits(ref));
    // split into chunks, merged in a random order
    const std::size_t chunks = 1 + rng.next() % 64;
    std::vector<ExactSumF32> parts(chunks);
    for (auto& p : parts) p.clear();
    for (float x : v) parts[rng.next() % chunks].add(x);
    while (parts.size() > 1) {
      const std::size_t a = rng.next() % parts.size();
      std::size_t b = rng.next() % parts.size();
      if (a == b) continue;
      parts[a].merge(parts[b]);
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(b));
    }
    EXPECT_EQ(bits(parts[0].round_to_double()), bits(ref));
  }
}

TEST(ExactSum, CarrySaveLimit) {
  // More additions than the carry-save headroom (2^28) without a manual
  // normalise: the accumulator must normalise by itself. FLT_MAX terms are
  // the worst case for the limb growth.
  const std::uint64_t n = (1ull << 29) + 12345;
  const float fmax = std::numeric_limits<float>::max();
  ExactSumF32 acc{};
  for (std::uint64_t i = 0; i < n; ++i) acc.add((i & 1) ? fmax : 0x1.fffffep126f);
  // exact: (n/2 rounded up) fmax + (n/2 rounded down) fmax/2
  mpfr_t r;
  mpfr_init2(r, 53);
  mpfr_t t;
  mpfr_init2(t, 200);
  mpfr_set_flt(t, fmax, MPFR_RNDN);
  mpfr_mul_ui(t, t, n / 2, MPFR_RNDN);  // odd i: n/2 of them (n odd: (n-1)/2)
  mpfr_t u;
  mpfr_init2(u, 200);
  mpfr_set_flt(u, 0x1.fffffep126f, MPFR_RNDN);
  mpfr_mul_ui(u, u, n - n / 2, MPFR_RNDN);
  mpfr_add(t, t, u, MPFR_RNDN);
  mpfr_set(r, t, MPFR_RNDN);
  const double want = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(r, t, u, static_cast<mpfr_ptr>(nullptr));
  EXPECT_EQ(bits(acc.round_to_double()), bits(want));
  // Same with doubles.
  ExactSumF64 acc64{};
  for (std::uint64_t i = 0; i < (1ull << 28) + 3; ++i) acc64.add(-0x1.fffffffffffffp1000);
  mpfr_t w;
  mpfr_init2(w, 200);
  mpfr_set_d(w, -0x1.fffffffffffffp1000, MPFR_RNDN);
  mpfr_mul_ui(w, w, (1ull << 28) + 3, MPFR_RNDN);
  const double want64 = mpfr_get_d(w, MPFR_RNDN);
  mpfr_clear(w);
  EXPECT_EQ(bits(acc64.round_to_double()), bits(want64));
}

}  // namespace
