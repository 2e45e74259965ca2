// Float ADM's fp64 islands (float_adm_math.hpp) against MPFR, which rounds
// the same expressions exactly as C defines them: the double product (24 x 53
// bits, rounded to 53), the double sum, the comparison, then the float store.
//
// Long tier (this binary): mul_one_by_30 on every one of the 2^32 floats,
// add_mul_one_by_15 and gain_clamp on 10^9 random and boundary samples each.
// float_adm_test.cpp includes the checker (FLOAT_ADM_ISLANDS_CHECKER_ONLY)
// for a quick subset.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include <mpfr.h>

#include "features/float_adm/float_adm_math.hpp"

namespace exactvmaf::test {

class IslandChecker {
 public:
  IslandChecker() {
    mpfr_inits2(80, prod_, nullptr);
    mpfr_inits2(53, d53_, t53_, nullptr);
    mpfr_inits2(24, f24_, nullptr);
  }
  ~IslandChecker() { mpfr_clears(prod_, d53_, t53_, f24_, nullptr); }
  IslandChecker(const IslandChecker&) = delete;
  IslandChecker& operator=(const IslandChecker&) = delete;

  // (float)RN53(c * x), exactly.
  float ref_mul(double c, float x) {
    mpfr_set_flt(f24_, x, MPFR_RNDN);
    mpfr_mul_d(prod_, f24_, c, MPFR_RNDN);  // exact: 24 + 53 bits fit 80
    mpfr_set(d53_, prod_, MPFR_RNDN);
    return mpfr_get_flt(d53_, MPFR_RNDN);
  }
  // (float)RN53(sum + RN53(c * x)).
  float ref_add_mul(float sum, double c, float x) {
    mpfr_set_flt(f24_, x, MPFR_RNDN);
    mpfr_mul_d(prod_, f24_, c, MPFR_RNDN);
    mpfr_set(t53_, prod_, MPFR_RNDN);
    mpfr_set_flt(f24_, sum, MPFR_RNDN);
    mpfr_add(d53_, f24_, t53_, MPFR_RNDN);
    return mpfr_get_flt(d53_, MPFR_RNDN);
  }
  // The clamp's two steps: rst > 0: min(RN53(rst * g), t); then, on the
  // result, rst < 0: max(RN53(rst * g), t); stored to float.
  float ref_gain(float rst, float t, double g) {
    if (rst > 0.0f) rst = ref_minmax(rst, t, g, true);
    if (rst < 0.0f) rst = ref_minmax(rst, t, g, false);
    return rst;
  }

  static bool same(float a, float b) {
    if (a != a && b != b) return true;
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  }

  // mul_one_by_30 on the floats with bit patterns first, first + step, ...
  // (n of them); the count of wrong results.
  std::uint64_t mul_one_by_30_samples(std::uint64_t first, std::uint64_t n, std::uint64_t step) {
    std::uint64_t wrong = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      const float x = std::bit_cast<float>(static_cast<std::uint32_t>(first + k * step));
      if (x != x) continue;
      if (!same(float_adm::mul_one_by_30(x), ref_mul(float_adm::one_by_30, x))) {
        if (wrong++ < 5) std::printf("mul_one_by_30(%a) wrong\n", static_cast<double>(x));
      }
    }
    return wrong;
  }

  std::uint64_t add_mul_one_by_15_samples(std::uint64_t seed, std::uint64_t n) {
    std::mt19937_64 rng(seed);
    std::uint64_t wrong = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      const float x = abs_sample(rng, k);
      float sum = sample(rng, k / 7);
      if (k % 3 == 0) sum = abs_sample(rng, k / 3);  // the thresholds' sums are >= 0
      if (k % 11 == 0) {  // sum and product of one magnitude: the last bits of both count
        sum = static_cast<float>(float_adm::one_by_15 * static_cast<double>(x)) * static_cast<float>(k % 5);
      }
      if (!same(float_adm::add_mul_one_by_15(sum, x), ref_add_mul(sum, float_adm::one_by_15, x))) {
        if (wrong++ < 5) std::printf("add_mul_one_by_15(%a, %a) wrong\n", static_cast<double>(sum), static_cast<double>(x));
      }
    }
    return wrong;
  }

  std::uint64_t gain_clamp_samples(std::uint64_t seed, std::uint64_t n) {
    const double gains[] = {1.0, 1.1, 1.2, 100.0, 2.5, 37.3, 1.0000001};
    std::mt19937_64 rng(seed);
    std::uint64_t wrong = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      const double g = gains[k % 7];
      const float rst = sample(rng, k);
      float t = sample(rng, k / 3);
      // A quarter of the cases put t at the product or one float step away.
      if (k % 4 == 0) {
        const float p = static_cast<float>(static_cast<double>(rst) * g);
        const int off = static_cast<int>(rng() % 3) - 1;
        t = std::bit_cast<float>(std::bit_cast<std::uint32_t>(p) + static_cast<std::uint32_t>(off));
        if (t != t) t = p;
      }
      if (!same(float_adm::gain_clamp(rst, t, g), ref_gain(rst, t, g))) {
        if (wrong++ < 5)
          std::printf("gain_clamp(%a, %a, %a) wrong\n", static_cast<double>(rst), static_cast<double>(t), g);
      }
    }
    return wrong;
  }

  // Zeros, subnormals, the extremes, values next to 1 and to powers of two.
  std::uint64_t boundary_cases() {
    std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 0x1.fffffep127f,
                            -0x1.fffffep127f, 0x1.fffffep-1f, 0x1.000002p0f, 30.0f, 15.0f, 3.0f, 0x1p-100f};
    for (int e = -149; e < 128; e += 3) {
      v.push_back(std::ldexp(1.0f, e));
      v.push_back(std::nextafter(std::ldexp(1.0f, e), 0.0f));
    }
    std::uint64_t wrong = 0;
    for (float x : v) {
      wrong += !same(float_adm::mul_one_by_30(x), ref_mul(float_adm::one_by_30, x));
      for (float s : v) {
        wrong += !same(float_adm::add_mul_one_by_15(s, x < 0 ? -x : x),
                       ref_add_mul(s, float_adm::one_by_15, x < 0 ? -x : x));
        for (double g : {1.0, 1.2, 100.0}) wrong += !same(float_adm::gain_clamp(x, s, g), ref_gain(x, s, g));
      }
    }
    return wrong;
  }

 private:
  float ref_minmax(float rst, float t, double g, bool take_min) {
    mpfr_set_flt(f24_, rst, MPFR_RNDN);
    mpfr_mul_d(prod_, f24_, g, MPFR_RNDN);
    mpfr_set(d53_, prod_, MPFR_RNDN);
    mpfr_set_flt(t53_, t, MPFR_RNDN);
    const int c = mpfr_cmp(d53_, t53_);
    const bool product = take_min ? c < 0 : c > 0;
    return product ? mpfr_get_flt(d53_, MPFR_RNDN) : t;
  }

  // A finite float: uniform bit patterns, band-like magnitudes, subnormals,
  // values next to one, zeros.
  static float sample(std::mt19937_64& rng, std::uint64_t k) {
    switch (k % 5) {
      case 0: {
        float x;
        do x = std::bit_cast<float>(static_cast<std::uint32_t>(rng())); while (!(x - x == 0.0f));
        return x;
      }
      case 1: {
        const double m = std::ldexp(static_cast<double>(rng() >> 11), -53);  // [0, 1)
        const float x = static_cast<float>(std::ldexp(m, static_cast<int>(rng() % 30) - 12));
        return (rng() & 1) ? -x : x;
      }
      case 2: return std::bit_cast<float>(static_cast<std::uint32_t>(rng() & 0x807fffffu));
      case 3: return std::bit_cast<float>(0x3f800000u + static_cast<std::uint32_t>(rng() % 64) - 32u);
      default: return (rng() % 4 == 0) ? ((rng() & 1) ? -0.0f : 0.0f) : static_cast<float>(rng() % 1024) - 512.0f;
    }
  }
  static float abs_sample(std::mt19937_64& rng, std::uint64_t k) {
    const float x = sample(rng, k);
    return x < 0 ? -x : x;
  }

  mpfr_t prod_, d53_, t53_, f24_;
};

#ifndef FLOAT_ADM_ISLANDS_CHECKER_ONLY
namespace {

// Runs f(thread, first, count) on two threads over [0, n).
template <class F>
std::uint64_t on_two_threads(std::uint64_t n, F f) {
  std::uint64_t wrong[2] = {0, 0};
  std::thread t([&] { wrong[1] = f(1, n / 2, n - n / 2); });
  wrong[0] = f(0, 0, n / 2);
  t.join();
  return wrong[0] + wrong[1];
}

TEST(FloatAdmIslandsLong, MulOneBy30EveryFloat) {
  const std::uint64_t wrong = on_two_threads(std::uint64_t{1} << 32, [](int, std::uint64_t first, std::uint64_t n) {
    IslandChecker c;
    return c.mul_one_by_30_samples(first, n, 1);
  });
  EXPECT_EQ(wrong, 0u);
}

TEST(FloatAdmIslandsLong, AddMulOneBy15BillionSamples) {
  const std::uint64_t wrong = on_two_threads(1000000000, [](int t, std::uint64_t, std::uint64_t n) {
    IslandChecker c;
    return c.add_mul_one_by_15_samples(100 + static_cast<std::uint64_t>(t), n);
  });
  EXPECT_EQ(wrong, 0u);
}

TEST(FloatAdmIslandsLong, GainClampBillionSamples) {
  const std::uint64_t wrong = on_two_threads(1000000000, [](int t, std::uint64_t, std::uint64_t n) {
    IslandChecker c;
    return c.gain_clamp_samples(200 + static_cast<std::uint64_t>(t), n);
  });
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
#endif

}  // namespace exactvmaf::test
