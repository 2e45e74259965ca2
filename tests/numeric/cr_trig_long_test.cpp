// cr_sin, cr_cos, cr_atan2 against MPFR, long tier: 10^8 arguments per
// function over ciede's ranges, moderate, near k pi/2 and all doubles.
// Results and the command go in docs/rmath.md.
#include <gtest/gtest.h>

#include "cr_trig_check.hpp"

namespace {

using namespace exactvmaf::test;

struct Share {
  TrigRange range;
  std::uint64_t n;
};

void run_sin_cos(bool cosine, const Share* shares, int count) {
  std::uint64_t seed = cosine ? 0xc05 : 0x5171;
  std::uint64_t total = 0;
  for (int i = 0; i < count; ++i) {
    const TrigCount c = check_sin_cos(cosine, shares[i].range, shares[i].n, seed++, 4096);
    print_count(cosine ? "cos" : "sin", trig_range_name(shares[i].range), c);
    std::fflush(stdout);
    EXPECT_EQ(c.wrong_fast, 0u);
    EXPECT_EQ(c.wrong_full, 0u);
    EXPECT_LT(c.max_error_ratio, 1.0 / 16.0);
    total += c.n;
  }
  EXPECT_EQ(total, 100000000u);
}

TEST(CrTrigLong, Sin) {
  const Share shares[] = {{TrigRange::kCiedeSinHalfHue, 30000000}, {TrigRange::kCiedeSinRt, 30000000},
                          {TrigRange::kModerate, 25000000},        {TrigRange::kNearPiOver2, 5000000},
                          {TrigRange::kFull, 10000000}};
  run_sin_cos(false, shares, 5);
}

TEST(CrTrigLong, Cos) {
  const Share shares[] = {{TrigRange::kCiedeCos, 50000000}, {TrigRange::kCiedeSinHalfHue, 10000000},
                          {TrigRange::kModerate, 25000000}, {TrigRange::kNearPiOver2, 5000000},
                          {TrigRange::kFull, 10000000}};
  run_sin_cos(true, shares, 5);
}

TEST(CrTrigLong, Atan2) {
  const std::pair<Atan2Range, std::uint64_t> shares[] = {
      {Atan2Range::kCiedeLab, 60000000}, {Atan2Range::kModerate, 30000000}, {Atan2Range::kFull, 10000000}};
  std::uint64_t seed = 0xa7a2;
  for (const auto& [range, n] : shares) {
    const TrigCount c = check_atan2(range, n, seed++, 4096);
    print_count("atan2", atan2_range_name(range), c);
    std::fflush(stdout);
    EXPECT_EQ(c.wrong_fast, 0u);
    EXPECT_EQ(c.wrong_full, 0u);
    EXPECT_LT(c.max_error_ratio, 1.0 / 16.0);
  }
}

}  // namespace
