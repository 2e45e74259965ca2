// Unit tests of the psnr/float_psnr arithmetic and its exact shortcuts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "features/float_psnr/float_psnr_math.hpp"
#include "features/psnr/psnr_math.hpp"
#include "numeric/exact_ops.hpp"
#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

TEST(ExactOps, CeilMatchesCOnRandomAndSpecialValues) {
  std::mt19937_64 rng(1);
  const double specials[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 4503599627370495.5, -4503599627370495.5,
                             4503599627370496.0, 1e300, -1e-300, 5e-324, -5e-324, INFINITY, -INFINITY};
  for (double x : specials) EXPECT_TRUE(same_bits(rmath::ceil_f64(x), std::ceil(x))) << x;
  EXPECT_TRUE(std::isnan(rmath::ceil_f64(NAN)));
  for (int i = 0; i < 1000000; ++i) {
    const double x = std::bit_cast<double>(rng());
    if (std::isnan(x)) continue;
    ASSERT_TRUE(same_bits(rmath::ceil_f64(x), std::ceil(x))) << x;
    const double y = std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 60)) * ((rng() & 1) ? -1 : 1);
    ASSERT_TRUE(same_bits(rmath::ceil_f64(y), std::ceil(y))) << y;
  }
}

TEST(PsnrMath, RowSumsEqualNaiveSums) {
  std::mt19937 rng(2);
  std::vector<std::uint8_t> a8(4099), b8(4099);
  std::vector<std::uint16_t> a16(4099), b16(4099);
  for (int trial = 0; trial < 50; ++trial) {
    std::uint64_t s8 = 0, s16 = 0;
    for (std::size_t i = 0; i < a8.size(); ++i) {
      a8[i] = static_cast<std::uint8_t>(trial % 2 ? (rng() & 1) * 255 : rng());  // extremes too
      b8[i] = static_cast<std::uint8_t>(trial % 2 ? 255 - a8[i] : rng());
      a16[i] = static_cast<std::uint16_t>(trial % 2 ? (rng() & 1) * 65535 : rng());
      b16[i] = static_cast<std::uint16_t>(trial % 2 ? 65535 - a16[i] : rng());
      const std::int64_t d8 = a8[i] - b8[i], d16 = a16[i] - b16[i];
      s8 += static_cast<std::uint64_t>(d8 * d8);
      s16 += static_cast<std::uint64_t>(d16 * d16);
    }
    EXPECT_EQ(psnr::sse_row_8bit(a8.data(), b8.data(), static_cast<unsigned>(a8.size())), s8);
    EXPECT_EQ(psnr::sse_row_hbd(a16.data(), b16.data(), static_cast<unsigned>(a16.size())), s16);
  }
}

TEST(PsnrMath, IdenticalPlanesHitTheBitDepthCap) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const auto peak = psnr::peak_value(bpc, false);
    const double cap = psnr::psnr_max(0, bpc, peak, 0.0, true, true, 64, 64);
    EXPECT_EQ(cap, 6.0 * bpc + 12.0);
    EXPECT_EQ(psnr::plane_score(0, 64, 64, peak * peak, cap).psnr, cap);
  }
  const auto c = float_psnr::constants(10);
  EXPECT_EQ(float_psnr::score(0.0, 64, 64, c), 72.0);
}

TEST(PsnrMath, MinSseCapUsesHalvedChromaSizes) {
  // 8-bit, min_sse = 0.5, 175x97 4:2:0: chroma mse = 0.5 / (87 * 48).
  const double y = psnr::psnr_max(0, 8, 255, 0.5, true, true, 175, 97);
  const double c = psnr::psnr_max(1, 8, 255, 0.5, true, true, 175, 97);
  EXPECT_EQ(y, std::ceil(10. * std::log10(65025.0 / (0.5 / (175.0 * 97.0)))));
  EXPECT_EQ(c, std::ceil(10. * std::log10(65025.0 / (0.5 / (87.0 * 48.0)))));
}

// The integer shortcut of float_psnr equals upstream's float/double loop.
TEST(FloatPsnrMath, IntegerShortcutEqualsFloatLoop) {
  std::mt19937 rng(3);
  for (unsigned bpc : {8u, 10u, 12u}) {
    const auto c = float_psnr::constants(bpc);
    const unsigned maxv = (1u << bpc) - 1;
    for (int trial = 0; trial < 20; ++trial) {
      const std::size_t n = 1 + rng() % 200000;
      std::uint64_t sse = 0;
      double loop = 0;
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t r, d;
        if (trial % 3 == 0) {
          r = static_cast<std::uint16_t>(rng() & 1 ? maxv : 0);
          d = static_cast<std::uint16_t>(maxv - r);
        } else {
          r = static_cast<std::uint16_t>(rng() % (maxv + 1));
          d = static_cast<std::uint16_t>(rng() % (maxv + 1));
        }
        const std::int64_t e = r - d;
        sse += static_cast<std::uint64_t>(e * e);
        loop += static_cast<double>(
            float_psnr::squared_diff(float_psnr::to_float(r, c.scaler), float_psnr::to_float(d, c.scaler)));
      }
      ASSERT_TRUE(float_psnr::integer_sum_is_exact(bpc, n));
      ASSERT_TRUE(same_bits(float_psnr::noise_from_integer_sse(sse, c.scaler), loop)) << bpc << " " << trial;
    }
  }
  EXPECT_FALSE(float_psnr::integer_sum_is_exact(16, 1));
  EXPECT_FALSE(float_psnr::integer_sum_is_exact(8, (std::uint64_t{1} << 53) / 65025 + 1));
}

}  // namespace
}  // namespace exactvmaf::test
