// Every NaN result of R's functions is the one quiet NaN (0x7ff8... for
// double, 0x7fc00000 for float): NaN payloads differ between CPUs and GPUs,
// and R promises the same bits everywhere.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>

#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_trig.hpp"

namespace exactvmaf::rmath {
namespace {

constexpr std::uint64_t kNaN64 = 0x7ff8000000000000ull;
constexpr std::uint32_t kNaN32 = 0x7fc00000u;

const double kNaNs64[] = {std::bit_cast<double>(0x7ff8000000000001ull), std::bit_cast<double>(0xfff8000000000000ull),
                          std::bit_cast<double>(0x7ff0000000000001ull), std::bit_cast<double>(0xfffc00000000abcdull)};
const float kNaNs32[] = {std::bit_cast<float>(0x7fc00001u), std::bit_cast<float>(0xffc00000u),
                         std::bit_cast<float>(0x7f800001u), std::bit_cast<float>(0xffe01234u)};

TEST(CrNaN, DoubleFunctionsReturnTheOneQuietNaN) {
  for (double n : kNaNs64) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_log(n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_log2(n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_log10(n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_exp(n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_pow(n, 2.5)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_pow(2.5, n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_sin(n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_cos(n)), kNaN64);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_atan2(n, 1.0)), kNaN64);
  }
  // Domain errors.
  EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_log(-1.0)), kNaN64);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_log10(-std::numeric_limits<double>::infinity())), kNaN64);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_pow(-2.0, 0.5)), kNaN64);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(cr_sin(std::numeric_limits<double>::infinity())), kNaN64);
}

TEST(CrNaN, FloatFunctionsReturnTheOneQuietNaN) {
  for (float n : kNaNs32) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(cr_log2f(n)), kNaN32);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(cr_powf(n, 7.0f)), kNaN32);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(cr_powf(0.5f, n)), kNaN32);
  }
  EXPECT_EQ(std::bit_cast<std::uint32_t>(cr_log2f(-3.0f)), kNaN32);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(cr_powf(-2.0f, 0.5f)), kNaN32);
}

}  // namespace
}  // namespace exactvmaf::rmath
