// The fp64-free arithmetic (numeric/sf64.hpp, numeric/fp32pair.hpp) against
// the hardware's double: Sf64 gives the same bits for every operation; the
// pair policy never decides wrongly, and the islands of vif, adm and
// float_adm evaluated through Fp32PairArith (pairs, then Sf64 replay) equal
// NativeF64 on every sample, with the replay rate bounded.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <type_traits>

#include "features/adm/adm_math.hpp"
#include "features/float_adm/float_adm_math.hpp"
#include "features/vif/vif_math.hpp"
#include "numeric/fp32pair.hpp"
#include "numeric/sf64.hpp"

namespace exactvmaf::rmath {
namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
double dbl(std::uint64_t u) { return std::bit_cast<double>(u); }

// Equal bits, or both NaN.
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }
bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// Doubles of every kind: random bit patterns, moderate magnitudes, values next
// to subnormal and overflow limits, integers, and the special values.
class Doubles {
 public:
  explicit Doubles(std::uint64_t seed) : rng_(seed) {}
  double operator()() {
    const unsigned kind = static_cast<unsigned>(rng_() % 8);
    const std::uint64_t r = rng_();
    switch (kind) {
      case 0: return dbl(r);
      case 1: return dbl((r & 0x800fffffffffffffull) | (std::uint64_t(1023 - 40 + rng_() % 80) << 52));
      case 2: return dbl(r & 0x801fffffffffffffull);  // subnormal or smallest normals
      case 3: return dbl((r & 0x800fffffffffffffull) | (std::uint64_t(2046 - rng_() % 3) << 52));
      case 4: return static_cast<double>(static_cast<std::int64_t>(r) >> (rng_() % 64));
      case 5: {
        static const double special[] = {0.0, -0.0, 1.0, -1.0, std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                                         std::numeric_limits<double>::denorm_min(), 0.5, 2.0};
        return special[r % 12];
      }
      case 6: return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(r)));
      default: return dbl((r & 0x800fffffffffffffull) | (std::uint64_t(1023 - 2 + rng_() % 4) << 52));
    }
  }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

constexpr int kOps = 2000000;

TEST(Sf64, ArithmeticEqualsHardwareDouble) {
  Doubles gen(1);
  for (int i = 0; i < kOps; ++i) {
    double a = gen(), b = gen();
    if (i % 4 == 1) b = -a * (1.0 + std::ldexp(static_cast<double>(gen.rng()() % 64), -52));  // cancellation
    if (i % 4 == 2) b = std::ldexp(a, -static_cast<int>(gen.rng()() % 70));                 // alignment
    const Sf64 x(a), y(b);
    ASSERT_TRUE(same(dbl((x + y).bits), a + b)) << std::hexfloat << a << " + " << b;
    ASSERT_TRUE(same(dbl((x - y).bits), a - b)) << std::hexfloat << a << " - " << b;
    ASSERT_TRUE(same(dbl((x * y).bits), a * b)) << std::hexfloat << a << " * " << b;
    ASSERT_TRUE(same(dbl((x / y).bits), a / b)) << std::hexfloat << a << " / " << b;
  }
}

TEST(Sf64, ConversionsAndComparisonsEqualHardware) {
  Doubles gen(2);
  Sf64Policy p;
  for (int i = 0; i < kOps; ++i) {
    double a = gen();
    if (i % 3 == 1) {  // next to a float rounding boundary
      const float f = std::bit_cast<float>(static_cast<std::uint32_t>(gen.rng()()));
      const double half = std::ldexp(static_cast<double>(std::nextafter(f, INFINITY)) - f, -1);
      a = static_cast<double>(f) + half + std::ldexp(half, -static_cast<int>(gen.rng()() % 30)) *
                                              (static_cast<int>(gen.rng()() % 3) - 1);
    }
    const double b = gen();
    ASSERT_TRUE(same(p.to_f32(Sf64(a)), static_cast<float>(a))) << std::hexfloat << a;
    ASSERT_EQ(p.trunc_i32(Sf64(a)), x86_trunc_i32(a)) << std::hexfloat << a;
    ASSERT_EQ(p.trunc_i64(Sf64(a)), x86_trunc_i64(a)) << std::hexfloat << a;
    ASSERT_EQ(p.lt(Sf64(a), Sf64(b)), a < b) << std::hexfloat << a << " < " << b;
    ASSERT_EQ(p.ge(Sf64(a), Sf64(b)), a >= b) << std::hexfloat << a << " >= " << b;
    const auto n = static_cast<std::int64_t>(gen.rng()()) >> (gen.rng()() % 64);
    ASSERT_EQ(Sf64(n).bits, bits(static_cast<double>(n))) << n;
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(gen.rng()()));
    ASSERT_TRUE(same(dbl(Sf64(f).bits), static_cast<double>(f))) << std::hexfloat << f;
  }
}

// sqrt (sqrtsd) and the operators that generic code (double or Sf64) uses:
// comparisons with NaN, zeros and infinities, unary minus, mixed operands.
TEST(Sf64, SqrtAndOperatorsEqualHardware) {
  Doubles gen(7);
  for (int i = 0; i < kOps; ++i) {
    double a = gen();
    if (i % 4 == 1) {  // next to exact squares and their midpoints
      const double r = std::fabs(gen());
      const double sq = r * r;
      a = std::bit_cast<double>(std::bit_cast<std::uint64_t>(sq) + (gen.rng()() % 5) - 2);
    }
    if (i % 4 == 2) a = std::fabs(a);
    const double b = gen();
    const Sf64 x(a), y(b);
    ASSERT_TRUE(same(dbl(sqrt_of(x).bits), std::sqrt(a))) << std::hexfloat << "sqrt " << a;
    ASSERT_EQ(x < y, a < b) << std::hexfloat << a << " < " << b;
    ASSERT_EQ(x > y, a > b) << std::hexfloat << a << " > " << b;
    ASSERT_EQ(x <= y, a <= b) << std::hexfloat << a << " <= " << b;
    ASSERT_EQ(x >= y, a >= b) << std::hexfloat << a << " >= " << b;
    ASSERT_EQ(x == y, a == b) << std::hexfloat << a << " == " << b;
    ASSERT_EQ(x != y, a != b) << std::hexfloat << a << " != " << b;
    ASSERT_EQ(x == a, true == (a == a)) << std::hexfloat << a;
    ASSERT_TRUE(same(dbl((-x).bits), -a)) << std::hexfloat << a;
    ASSERT_TRUE(same(dbl((0.1 * x - y).bits), 0.1 * a - b)) << std::hexfloat << a << ", " << b;
    ASSERT_TRUE(same(f32_of(x), static_cast<float>(a))) << std::hexfloat << a;
  }
  // Every perfect square of a 26-bit integer and its neighbours.
  for (std::uint64_t k = 1; k < (1u << 26); k += 997) {
    const double sq = static_cast<double>(k * k);
    for (int d = -1; d <= 1; ++d) {
      const double v = std::bit_cast<double>(std::bit_cast<std::uint64_t>(sq) + d);
      ASSERT_TRUE(same(dbl(sqrt_of(Sf64(v)).bits), std::sqrt(v))) << std::hexfloat << v;
    }
  }
}

// Counts of the pair policy on one island: decided samples must equal the
// hardware double's result; replays are counted.
struct IslandStats {
  std::uint64_t samples = 0, undecided = 0;
  double rate() const { return samples ? static_cast<double>(undecided) / static_cast<double>(samples) : 0.0; }
};

template <class T>
bool equal(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, vif::GainTerms>) {
    return a.sv_sq == b.sv_sq && a.gain_sq_variance == b.gain_sq_variance;
  } else {
    return std::memcmp(&a, &b, sizeof a) == 0;
  }
}

template <class Result, class Island>
void check_island(IslandStats& st, Island&& island, const char* what) {
  const Result native = island(NativeF64{});
  Fp32PairF64 pair;
  const Result from_pair = island(pair);
  ++st.samples;
  if (pair.undecided) {
    ++st.undecided;
  } else {
    ASSERT_TRUE(equal(native, from_pair)) << what << ": the pair policy decided wrongly";
  }
  Fp32PairArith arith;
  const Result r = arith.island(island);
  ASSERT_TRUE(equal(native, r)) << what << ": Fp32PairArith differs";
  ASSERT_EQ(arith.replays, pair.undecided ? 1u : 0u);
  const Result exact = arith.exact_island(island);
  ASSERT_TRUE(equal(native, exact)) << what << ": Sf64 differs";
}

std::int32_t log_uniform_i32(std::mt19937_64& rng, int max_bits) {
  const int b = static_cast<int>(rng() % static_cast<unsigned>(max_bits + 1));
  return static_cast<std::int32_t>(rng() & ((std::uint64_t{1} << b) - 1));
}

TEST(Fp32Pair, VifGainTermsDecideOrReplayExactly) {
  std::mt19937_64 rng(3);
  const double limits[] = {100.0, 1.0, 2.5, 0.7, 1e4};
  IslandStats st, adversarial;
  for (int i = 0; i < 1000000; ++i) {
    std::int32_t s1 = std::max(log_uniform_i32(rng, 31), vif::sigma_nsq);
    std::int32_t s2 = log_uniform_i32(rng, 31);
    std::int32_t s12 = std::max<std::int32_t>(1, log_uniform_i32(rng, 31));
    const bool adv = i % 2 == 1;
    if (adv) {  // g near 1 and near the limit, sigma2 - g * sigma12 near an integer
      s12 = s1 - static_cast<std::int32_t>(rng() % 3);
      s2 = s12 + static_cast<std::int32_t>(rng() % 5) - 2;
      if (s12 < 1 || s2 < 1) continue;
    }
    const double lim = limits[rng() % 5];
    check_island<vif::GainTerms>(adv ? adversarial : st,
                                 [&](auto&& f) { return vif::gain_terms(s1, s2, s12, lim, f); }, "vif gain_terms");
  }
  std::printf("vif gain_terms: random %llu/%llu undecided (%.2e), adversarial %llu/%llu (%.2e)\n",
              static_cast<unsigned long long>(st.undecided), static_cast<unsigned long long>(st.samples), st.rate(),
              static_cast<unsigned long long>(adversarial.undecided),
              static_cast<unsigned long long>(adversarial.samples), adversarial.rate());
  // Measured, not bounded: this island runs in Sf64 (exact_island), as the
  // rates show pairs would replay too often.
  EXPECT_GT(adversarial.rate(), st.rate());
}

TEST(Fp32Pair, AdmIslandsDecideOrReplayExactly) {
  std::mt19937_64 rng(4);
  const double gains[] = {100.0, 1.0, 1.2, 0.35, 7.5};
  IslandStats angle, gain;
  for (int i = 0; i < 1000000; ++i) {
    const int bits = i % 2 ? 15 : 28;
    auto coef = [&] {
      const std::int64_t v = log_uniform_i32(rng, bits);
      return rng() % 2 ? -v : v;
    };
    const std::int64_t oh = coef(), ov = coef();
    std::int64_t th = coef(), tv = coef();
    if (i % 3 == 0) {  // about one degree apart: rotate o by ~1 degree
      const double a = (1.0 + (static_cast<double>(rng() % 2001) - 1000.0) * 1e-6) * M_PI / 180.0;
      th = std::llround(std::cos(a) * static_cast<double>(oh) - std::sin(a) * static_cast<double>(ov));
      tv = std::llround(std::sin(a) * static_cast<double>(oh) + std::cos(a) * static_cast<double>(ov));
    }
    const std::int64_t dp = oh * th + ov * tv, om = oh * oh + ov * ov, tm = th * th + tv * tv;
    check_island<bool>(angle, [&](auto&& f) { return adm::angle_within_1deg(dp, om, tm, f); }, "adm angle");
    const std::int64_t rst = coef();
    const double g = gains[rng() % 5];
    check_island<std::int64_t>(gain, [&](auto&& f) { return adm::trunc_mul_gain(rst, g, f); }, "adm gain");
  }
  std::printf("adm angle_within_1deg: %llu/%llu undecided (%.2e); trunc_mul_gain: %llu/%llu (%.2e)\n",
              static_cast<unsigned long long>(angle.undecided), static_cast<unsigned long long>(angle.samples),
              angle.rate(), static_cast<unsigned long long>(gain.undecided),
              static_cast<unsigned long long>(gain.samples), gain.rate());
  EXPECT_LT(angle.rate(), 1e-4);  // on pairs (island)
  EXPECT_GT(gain.rate(), 1e-3);   // hence Sf64 (exact_island) for the gain
}

TEST(Fp32Pair, FloatAdmIslandsDecideOrReplayExactly) {
  std::mt19937_64 rng(5);
  const double gains[] = {100.0, 1.0, 1.2, 0.35};
  IslandStats s30, s15, clamp;
  auto value = [&] {  // band-like magnitudes, some tiny, some exact small integers
    const float m = static_cast<float>(rng() % (1u << 24)) * 0x1p-24f;
    const float v = std::ldexp(m, static_cast<int>(rng() % 40) - 20);
    return rng() % 2 ? -v : v;
  };
  for (int i = 0; i < 1000000; ++i) {
    const float x = value(), y = value(), t = value();
    check_island<float>(s30, [&](auto&& f) { return float_adm::mul_one_by_30(x, f); }, "mul_one_by_30");
    check_island<float>(s15, [&](auto&& f) { return float_adm::add_mul_one_by_15(std::fabs(y), std::fabs(x), f); },
                        "add_mul_one_by_15");
    const double g = gains[rng() % 4];
    check_island<float>(clamp, [&](auto&& f) { return float_adm::gain_clamp(x, t, g, f); }, "gain_clamp");
  }
  std::printf("float_adm mul_one_by_30 %.2e, add_mul_one_by_15 %.2e, gain_clamp %.2e undecided\n", s30.rate(),
              s15.rate(), clamp.rate());
  EXPECT_LT(s30.rate(), 1e-4);  // on pairs (island)
  EXPECT_LT(s15.rate(), 1e-4);
  EXPECT_GT(clamp.rate(), 1e-3);  // hence Sf64 (exact_island) for the clamp
}

// Exact products (gain 100, the default) keep err = 0 and decide without
// replay: otherwise every adm sample would be replayed.
TEST(Fp32Pair, ExactIntegerProductsStayExact) {
  Fp32PairF64 p;
  for (std::int64_t rst : {std::int64_t{1}, std::int64_t{-77}, std::int64_t{123456789}, std::int64_t{-2147483647}}) {
    EXPECT_EQ(p.trunc_i64(PairF64(rst) * PairF64(100.0)), rst * 100);
    EXPECT_EQ(p.trunc_i64(PairF64(rst) * PairF64(1.5)), x86_trunc_i64(static_cast<double>(rst) * 1.5));
  }
  EXPECT_FALSE(p.undecided);
}

}  // namespace
}  // namespace exactvmaf::rmath
