// The fp64-free arithmetic (numeric/sf64.hpp, numeric/fp32pair.hpp) against
// the hardware's double: Sf64 gives the same bits for every operation; the
// pair policy never decides wrongly, and the islands of vif, adm and
// float_adm evaluated through Fp32PairArith (pairs, then Sf64 replay) equal
// NativeF64 on every sample, with the replay rate bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "features/adm/adm_math.hpp"
#include "features/float_adm/float_adm_math.hpp"
#include "features/float_vif/float_vif_math.hpp"
#include "features/vif/vif_host.hpp"
#include "features/vif/vif_math.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
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

// ---- Division and square root: sf64.hpp takes an fp32 start, refines it
// with integer steps and fixes the last unit from the exact remainder. The
// cases below are the hard ones of that scheme: exact results, ties and their
// neighbours, remainders one unit off, subnormal operands and results, the
// extreme significands, the overflow edge; then 10^7 random operands each.

using u128 = unsigned __int128;
constexpr std::uint64_t kFracMask = 0x000fffffffffffffull;

// A double from its fields (field 0: subnormal or zero).
double make(bool neg, int field, std::uint64_t frac) {
  return dbl((neg ? 0x8000000000000000ull : 0) | (static_cast<std::uint64_t>(field) << 52) | (frac & kFracMask));
}

// Sf64's quotient and root against the hardware's, bit for bit: NaN results
// too (0/0, inf/inf, sqrt(-1) give x86's default NaN), except when an
// operand is a NaN (Sf64 drops payloads: its NaN is the default one).
std::uint64_t checked = 0;  // quotients and roots compared, for the tests' reports
::testing::AssertionResult div_ok(double a, double b) {
  ++checked;
  const std::uint64_t got = sf64_detail::div_bits(bits(a), bits(b));
  const double want = a / b;
  if (got == bits(want) || ((std::isnan(a) || std::isnan(b)) && std::isnan(dbl(got)))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << std::hexfloat << a << " / " << b << ": Sf64 " << dbl(got) << ", hardware "
                                       << want;
}
::testing::AssertionResult sqrt_ok(double a) {
  ++checked;
  const std::uint64_t got = sf64_detail::sqrt_bits(bits(a));
  const double want = std::sqrt(a);
  if (got == bits(want) || (std::isnan(a) && std::isnan(dbl(got)))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << "sqrt " << a << ": Sf64 " << dbl(got) << ", hardware "
                                       << want;
}

// a with its bit pattern moved by k units in the last place (same sign).
double ulps(double a, int k) { return dbl(bits(a) + static_cast<std::uint64_t>(static_cast<std::int64_t>(k))); }

// 52-bit fractions that stress quotient digits: all zeros (1.0), all ones,
// one bit, low and high runs of ones, alternating bits.
std::vector<std::uint64_t> extreme_fractions() {
  std::vector<std::uint64_t> f = {0, kFracMask, kFracMask - 1, 1, 0x5555555555555ull, 0xaaaaaaaaaaaaaull};
  for (int k = 0; k < 52; ++k) {
    f.push_back(std::uint64_t{1} << k);
    f.push_back((std::uint64_t{1} << k) - 1);
    f.push_back(kFracMask ^ ((std::uint64_t{1} << k) - 1));
    f.push_back(kFracMask ^ (std::uint64_t{1} << k));
  }
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  return f;
}

// A fraction made of random runs of equal bits.
std::uint64_t runs_fraction(std::mt19937_64& rng) {
  std::uint64_t f = 0;
  bool one = (rng() & 1) != 0;
  for (int pos = 0; pos < 52;) {
    const int len = 1 + static_cast<int>(rng() % 24);
    if (one) f |= ((std::uint64_t{1} << len) - 1) << pos;
    pos += len;
    one = !one;
  }
  return f & kFracMask;
}

// p rounded to 53 significant bits (ties up: they do not matter here) as
// sig 2^exp, for the near-tie operands.
struct Rounded {
  std::uint64_t sig;
  int exp;
};
Rounded round_to_53(u128 p) {
  int len = 0;
  for (u128 t = p; t != 0; t >>= 1) ++len;
  const int shift = len - 53;
  std::uint64_t sig = static_cast<std::uint64_t>((p + (u128{1} << (shift - 1))) >> shift);
  int exp = shift;
  if (sig >> 53) {
    sig >>= 1;
    ++exp;
  }
  return {sig, exp};
}

TEST(Sf64, DivisionHardCases) {
  checked = 0;
  std::mt19937_64 rng(11);
  const auto fr = extreme_fractions();
  // Extreme significands against each other, at exponents that give normal,
  // subnormal, underflowing and overflowing quotients, and subnormal operands.
  const int fields[][2] = {{1023, 1023}, {1023, 1022}, {1024, 1023}, {1000, 1040}, {1, 1023 + 52},
                           {1, 1023 + 30}, {2046, 1022}, {2046, 1023}, {1, 2046}, {0, 1023},
                           {1023, 0},   {0, 0},       {0, 1},       {2046, 0}};
  for (const std::uint64_t fa : fr) {
    for (const std::uint64_t fb : fr) {
      for (const auto& e : fields) {
        ASSERT_TRUE(div_ok(make(false, e[0], fa), make(false, e[1], fb)));
        ASSERT_TRUE(div_ok(make(true, e[0], fa >> (fa & 7)), make(false, e[1], fb >> (fb % 5))));
      }
    }
  }
  std::uniform_int_distribution<int> field(1, 2046);
  for (int i = 0; i < 200000; ++i) {
    // Exact quotients: (p q) 2^i / (q 2^j), p and q of up to 26 bits; the
    // quotient p 2^(i-j) may be subnormal (exact or rounded) or overflow.
    const std::uint64_t p = 1 + rng() % (1u << 26), q = 1 + rng() % (1u << 26);
    const int ei = static_cast<int>(rng() % 2100) - 1100, ej = static_cast<int>(rng() % 2100) - 1100;
    const double a = std::ldexp(static_cast<double>(p * q), ei), b = std::ldexp(static_cast<double>(q), ej);
    for (int k = -2; k <= 2; ++k) {
      ASSERT_TRUE(div_ok(ulps(a, k), b));
      ASSERT_TRUE(div_ok(a, ulps(b, k)));
    }
    // Ties, where quotients can be ties: subnormal results. a / b =
    // (2k+1) 2^-1075 exactly, halfway between two subnormals (or the smallest
    // normal); one unit of a above and below the tie.
    const std::uint64_t odd = 2 * (rng() >> (12 + rng() % 40)) + 1;        // < 2^53
    const std::uint64_t o = 2 * (rng() % ((std::uint64_t{1} << 52) / odd + 1)) + 1;
    if (odd * o < (std::uint64_t{1} << 53)) {  // both exact: the quotient is odd 2^-1075
      const int j = 1 + static_cast<int>(rng() % 1000);
      const double ta = std::ldexp(static_cast<double>(odd * o), j - 1075), tb = std::ldexp(static_cast<double>(o), j);
      for (int k = -2; k <= 2; ++k) ASSERT_TRUE(div_ok(ulps(ta, k), tb));
      ASSERT_TRUE(div_ok(-ta, tb));
    }
    // Near ties of normal quotients: b = B 2^eb, a = RN(M B) for a midpoint
    // M = q + 1/2 ulp (a 54-bit odd integer), so a / b is within 2^-53 ulps
    // of a midpoint; and a one and two units away.
    const std::uint64_t B = (std::uint64_t{1} << 52) | (i % 3 ? rng() & kFracMask : runs_fraction(rng));
    const std::uint64_t M = (std::uint64_t{1} << 53) | ((rng() & kFracMask) << 1) | 1;
    const Rounded A = round_to_53(static_cast<u128>(M) * B);
    const int eb = static_cast<int>(rng() % 1600) - 800 - 52;
    const double na = std::ldexp(static_cast<double>(A.sig), A.exp + eb + static_cast<int>(rng() % 40) - 20);
    const double nb = std::ldexp(static_cast<double>(B), eb);
    for (int k = -2; k <= 2; ++k) ASSERT_TRUE(div_ok(ulps(na, k), nb));
    // Dividend = divisor (1 +- 2^-52) and k units away (quotients next to 1,
    // where the quotient's length changes), either way round.
    const double d = i % 4 == 0 ? make(false, static_cast<int>(rng() % 3), rng()) : make(false, field(rng), rng());
    for (const double c : {d * (1.0 + 0x1p-52), d * (1.0 - 0x1p-52), d}) {
      for (int k = -3; k <= 3; ++k) {
        ASSERT_TRUE(div_ok(ulps(c, k), d));
        ASSERT_TRUE(div_ok(d, ulps(c, k)));
      }
    }
    // Quotients next to the smallest normal and next to the overflow edge.
    const double x = make(rng() & 1, field(rng), rng());
    const double to_min = std::ldexp(std::fabs(x), 1022);
    const double big = make(rng() & 1, 2046, rng()), to_max = std::fabs(big) / std::numeric_limits<double>::max();
    for (int k = -2; k <= 2; ++k) {
      ASSERT_TRUE(!std::isfinite(to_min) || div_ok(x, ulps(to_min, k)));
      ASSERT_TRUE(div_ok(big, ulps(to_max, k)));
    }
  }
  std::printf("division hard cases: %llu quotients\n", static_cast<unsigned long long>(checked));
}

TEST(Sf64, SqrtHardCases) {
  checked = 0;
  std::mt19937_64 rng(12);
  // Extreme significands at every exponent (even and odd), subnormals included.
  for (const std::uint64_t f : extreme_fractions()) {
    for (int e = 0; e <= 2046; ++e) ASSERT_TRUE(sqrt_ok(make(false, e, f)));
    ASSERT_TRUE(sqrt_ok(make(true, 1023, f)));  // negative: the default NaN
  }
  for (int i = 0; i < 300000; ++i) {
    // Perfect squares r^2 2^2k (r < 2^26.5, so r^2 is exact), subnormal ones
    // included, and 1 to 3 units either side.
    const std::uint64_t r = 1 + rng() % 94906265u;
    const double sq = std::ldexp(static_cast<double>(r * r), 2 * (static_cast<int>(rng() % 1100) - 560));
    if (sq != 0.0 && std::isfinite(sq)) {
      for (int k = -3; k <= 3; ++k) ASSERT_TRUE(sqrt_ok(ulps(sq, k)));
    }
    // Squares of 53-bit roots, rounded, and their neighbours: roots next to a
    // double.
    const double root = make(false, 1 + static_cast<int>(rng() % 2046), i % 2 ? rng() : runs_fraction(rng));
    const double rs = root * root;
    if (rs != 0.0 && std::isfinite(rs)) {
      for (int k = -2; k <= 2; ++k) ASSERT_TRUE(sqrt_ok(ulps(rs, k)));
    }
    // Roots next to a midpoint (a root is never exactly one: M^2 needs 107
    // bits): a = RN(M^2) for a 54-bit odd M, a midpoint between two doubles,
    // and one and two units away.
    const std::uint64_t M = (std::uint64_t{1} << 53) | ((i % 3 ? rng() & kFracMask : runs_fraction(rng)) << 1) | 1;
    const Rounded A = round_to_53(static_cast<u128>(M) * M);
    const double ma = std::ldexp(static_cast<double>(A.sig), A.exp - 106 + 2 * (static_cast<int>(rng() % 1020) - 510));
    for (int k = -2; k <= 2; ++k) ASSERT_TRUE(sqrt_ok(ulps(ma, k)));
    // Random subnormals.
    ASSERT_TRUE(sqrt_ok(make(false, 0, rng() >> (rng() % 53))));
  }
  std::printf("square root hard cases: %llu roots\n", static_cast<unsigned long long>(checked));
}

// At least 10^7 random quotients and roots (with the 2 * 10^6 above), from
// several generators: every bit pattern, every exponent, run-structured
// fractions, near-equal operands.
TEST(Sf64, DivisionAndSqrtRandomTenMillion) {
  Doubles gen(13);
  auto& rng = gen.rng();
  auto value = [&](unsigned kind) {
    switch (kind % 5) {
      case 0: return gen();
      case 1: return dbl(rng());
      case 2: return make(rng() & 1, 1 + static_cast<int>(rng() % 2046), rng());
      case 3: return make(rng() & 1, static_cast<int>(rng() % 2047), runs_fraction(rng));
      default: return make(rng() & 1, 1023 + static_cast<int>(rng() % 9) - 4, rng());
    }
  };
  for (int i = 0; i < 10000000; ++i) {
    const double a = value(static_cast<unsigned>(i));
    double b = value(static_cast<unsigned>(rng()));
    if (i % 7 == 3) b = ulps(a, static_cast<int>(rng() % 9) - 4);  // quotients next to 1
    ASSERT_TRUE(div_ok(a, b));
    ASSERT_TRUE(sqrt_ok(i % 8 ? std::fabs(a) : a));
  }
}

// The estimates sit where sf64.hpp's proofs put them, and the proofs'
// premises hold for every fp32 start: the reciprocal v for all 2^23 values of
// t = floor(y / 2^29), the root start s and w for all 2^24 - 2^22 values of
// floor(m / 2^30).
TEST(Sf64, DivisionAndSqrtEstimatesStayWithinTheirBounds) {
  for (std::uint64_t t = std::uint64_t{1} << 23; t < (std::uint64_t{1} << 24); ++t) {
    const std::uint64_t v = sf64_detail::div_recip(t << 29);
    ASSERT_TRUE(v >= (std::uint64_t{1} << 29) && v <= (std::uint64_t{1} << 30)) << t;
    // d >= -2^-24 at y = t 2^29; d < 1.5001 2^-23 at y -> (t + 1) 2^29.
    ASSERT_GE(v * t, (std::uint64_t{1} << 53) - (std::uint64_t{1} << 29)) << t;
    ASSERT_LT((v * (t + 1) - (std::uint64_t{1} << 53)) * 10000, std::uint64_t{15001} << 30) << t;
  }
  for (std::uint64_t m = std::uint64_t{1} << 22; m < (std::uint64_t{1} << 24); ++m) {
    const auto st = sf64_detail::sqrt_start(m << 30);
    const std::uint64_t s = st.s, w = st.w;
    ASSERT_TRUE(s >= (std::uint64_t{1} << 30) && s <= (std::uint64_t{1} << 31)) << m;
    ASSERT_TRUE(w >= (std::uint64_t{1} << 29) && w <= (std::uint64_t{1} << 30)) << m;
    // s - sqrt(m' 2^8) in (-192, 64] for m' in [m 2^30, (m + 1) 2^30).
    ASSERT_LE((s - 64) * (s - 64), m << 38) << m;
    ASSERT_GT((s + 192) * (s + 192), (((m + 1) << 30) - 1) << 8) << m;
    // w s = 2^60 (1 + d), |d| <= 2^-24.
    const std::uint64_t ws = w * s;
    ASSERT_LE(ws > (std::uint64_t{1} << 60) ? ws - (std::uint64_t{1} << 60) : (std::uint64_t{1} << 60) - ws,
              std::uint64_t{1} << 36)
        << m;
  }
  // The estimates: Q' - x 2^55 / y and S' - sqrt(m 2^56) in (-0.999, 0.003),
  // so Q' is the floor or one above it (then only when the fraction exceeds
  // 0.997); likewise S'.
  std::mt19937_64 rng(14);
  const auto fr = extreme_fractions();
  std::uint64_t above = 0, n = 0;
  auto check_div = [&](std::uint64_t x, std::uint64_t y) {
    const u128 num = static_cast<u128>(x) << 55;
    const auto fl = static_cast<std::uint64_t>(num / y), rem = static_cast<std::uint64_t>(num % y);
    const std::uint64_t est = sf64_detail::div_estimate(x, y);
    ++n;
    if (est == fl) {
      ASSERT_LT(static_cast<u128>(rem) * 1000, static_cast<u128>(y) * 999) << x << " / " << y;
    } else {
      ASSERT_EQ(est, fl + 1) << x << " / " << y;
      ASSERT_LT(static_cast<u128>(y - rem) * 1000, static_cast<u128>(y) * 3) << x << " / " << y;
      ++above;
    }
  };
  auto check_sqrt = [&](std::uint64_t m) {
    const u128 r = static_cast<u128>(m) << 56;
    std::uint64_t fl = sf64_detail::sqrt_estimate(m) - 1;  // the floor, from below
    while (static_cast<u128>(fl + 1) * (fl + 1) <= r) ++fl;
    while (static_cast<u128>(fl) * fl > r) --fl;
    const std::uint64_t est = sf64_detail::sqrt_estimate(m);
    ++n;
    ASSERT_TRUE(est == fl || est == fl + 1) << m;
    if (est == fl + 1) ++above;
  };
  for (const std::uint64_t fa : fr) {
    for (const std::uint64_t fb : fr) check_div(fa | (std::uint64_t{1} << 52), fb | (std::uint64_t{1} << 52));
    check_sqrt(fa | (std::uint64_t{1} << 52));
    check_sqrt((fa | (std::uint64_t{1} << 52)) << 1);
    check_sqrt(((fa | (std::uint64_t{1} << 52)) << 1) | 1);
  }
  for (int i = 0; i < 2000000; ++i) {
    const std::uint64_t x = (std::uint64_t{1} << 52) | (i % 2 ? rng() & kFracMask : runs_fraction(rng));
    std::uint64_t y = (std::uint64_t{1} << 52) | (i % 3 ? rng() & kFracMask : runs_fraction(rng));
    check_div(x, y);
    if (i % 5 == 0) {  // y next to x
      y = std::clamp<std::uint64_t>(x + rng() % 9 - 4, std::uint64_t{1} << 52, (std::uint64_t{1} << 53) - 1);
      check_div(x, y);
      check_div(y, x);
    }
    check_sqrt(i % 2 ? x : (x << 1) | (rng() & 1));
  }
  std::printf("div/sqrt estimates: %llu of %llu one above the floor (then fixed by the remainder)\n",
              static_cast<unsigned long long>(above), static_cast<unsigned long long>(n));
}


// Counts of the pair policy on one island: decided samples must equal the
// hardware double's result; replays are counted.
struct IslandStats {
  std::uint64_t samples = 0, undecided = 0;
  double rate() const { return samples ? static_cast<double>(undecided) / static_cast<double>(samples) : 0.0; }
};

template <class T>
bool equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
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

// log2's fast path on Sf64 (speed's entropies and scores without fp64)
// decides exactly where the double fast path does, with the same bits: the
// features' arguments (floats, 1 + v), integers, near 1, every exponent, any
// bit pattern.
TEST(Sf64, Log2FastPathEqualsDouble) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> near1(0.5, 2.0);
  std::uniform_real_distribution<float> feature(0.0f, 4096.0f);
  unsigned long long undecided = 0;
  constexpr int kN = 1000000;
  for (int i = 0; i < kN; ++i) {
    double x;
    switch (i % 5) {
      case 0: x = static_cast<double>(feature(rng)); break;
      case 1: x = near1(rng); break;
      case 2: x = static_cast<double>(1 + rng() % 65535); break;
      case 3: x = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, static_cast<int>(rng() % 2098) - 1074); break;
      default: x = std::bit_cast<double>(rng()); break;
    }
    double r = 0.0;
    rmath::Sf64 rs;
    const bool ok = rmath::cr_log2_fast(x, &r);
    const bool ok_s = rmath::cr_log2_fast(rmath::Sf64::from_bits(std::bit_cast<std::uint64_t>(x)), &rs);
    ASSERT_EQ(ok, ok_s) << std::hexfloat << x;
    if (!ok) {
      ++undecided;
      continue;
    }
    ASSERT_TRUE(std::bit_cast<std::uint64_t>(r) == rs.bits || (r != r && (rs.bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull))
        << std::hexfloat << x << ": double " << r << " Sf64 " << std::bit_cast<double>(rs.bits);
  }
  EXPECT_LE(undecided, 2u);
}

// powf's fast path on Sf64 (float_adm's p-norm terms without fp64) decides
// exactly where the double fast path does, with the same bits: the p-norm
// domain (x >= 0 any float, p in [1, 20] including halves and the exact
// cases), then any floats.
TEST(Sf64, PowfFastPathEqualsDouble) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<float> p_norm(1.0f, 20.0f), small(0.0f, 8.0f);
  unsigned long long undecided = 0;
  constexpr int kN = 300000;
  for (int i = 0; i < kN; ++i) {
    float x, y;
    switch (i % 5) {
      case 0: x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()) & 0x7fffffffu); y = p_norm(rng); break;
      case 1: x = small(rng); y = static_cast<float>(1 + rng() % 40) * 0.5f; break;
      case 2: x = static_cast<float>(rng() % 4096) * 0.25f; y = 2.5f; break;
      case 3: {  // float_adm's p-norm terms: |band| of any magnitude to the goldens' powers
        const float p[] = {4.5f, 2.5f, 2.0f, 1.5f, 6.0f, 20.0f};
        x = static_cast<float>(std::uniform_real_distribution<double>(0.0, 1.0)(rng) * std::ldexp(1.0, static_cast<int>(rng() % 80) - 60));
        y = p[rng() % 6];
        break;
      }
      default: x = std::bit_cast<float>(static_cast<std::uint32_t>(rng())); y = std::bit_cast<float>(static_cast<std::uint32_t>(rng())); break;
    }
    float r = 0.0f, rs = 0.0f;
    const bool ok = rmath::cr_powf_fast(x, y, &r);
    const bool ok_s = rmath::cr_powf_fast_sf64(x, y, &rs);
    ASSERT_EQ(ok, ok_s) << std::hexfloat << x << " " << y;
    if (!ok) {
      ++undecided;
      continue;
    }
    ASSERT_EQ(std::bit_cast<std::uint32_t>(r), std::bit_cast<std::uint32_t>(rs))
        << std::hexfloat << x << "^" << y << ": double " << r << " Sf64 " << rs;
  }
  EXPECT_LE(undecided, 2u);
}

// vif's island (num_log_term): random statistics, near-identical ones (g
// near 1, sv_sq near an integer) and identical ones (sigma1 = sigma2 =
// sigma12: g^2 sigma1_sq within 2^-16 of an integer, which pairs cannot
// resolve; the term is still decided unless that integer is the edge of a
// log2 table entry).
TEST(Fp32Pair, VifNumLogTermDecidesOrReplaysExactly) {
  std::mt19937_64 rng(3);
  const double limits[] = {100.0, 1.0, 2.5, 0.7, 1e4};
  const std::uint16_t* table = vif::log2_table();
  IslandStats st, near, identical;
  for (int i = 0; i < 1500000; ++i) {
    std::int32_t s1 = std::max(log_uniform_i32(rng, 31), vif::sigma_nsq);
    std::int32_t s2 = std::max<std::int32_t>(1, log_uniform_i32(rng, 31));
    std::int32_t s12 = std::max<std::int32_t>(1, log_uniform_i32(rng, 31));
    IslandStats* stats = &st;
    if (i % 3 == 1) {  // g near 1 and near the limit, sigma2 - g * sigma12 near an integer
      s12 = s1 - static_cast<std::int32_t>(rng() % 3);
      s2 = static_cast<std::int32_t>(std::min<std::int64_t>(INT32_MAX, std::int64_t{s12} + static_cast<std::int64_t>(rng() % 5) - 2));
      if (s12 < 1 || s2 < 1) continue;
      stats = &near;
    } else if (i % 3 == 2) {  // identical pictures, and sigma2 beside them
      s12 = s1;
      s2 = i % 6 == 2 ? s1
                      : static_cast<std::int32_t>(std::clamp<std::int64_t>(
                            std::int64_t{s1} + static_cast<std::int64_t>(rng() % 2001) - 1000, 1, INT32_MAX));
      stats = &identical;
    }
    const double lim = limits[rng() % 5];
    // R's chain, step by step in the hardware's double (the closed form for
    // identical statistics included).
    const double g = vif::gain_f64(s12, s1);
    const std::int32_t sv = std::max(vif::residual_variance_i32(s2, g, s12), 0);
    const std::uint32_t numer1 = static_cast<std::uint32_t>(sv) + static_cast<std::uint32_t>(vif::sigma_nsq);
    const std::int64_t numer1_tmp = vif::gain_sq_variance_i64(vif::min_gain(g, lim), s1) + numer1;
    const std::int32_t r = vif::log2_q11_u64(table, static_cast<std::uint64_t>(numer1_tmp)) - vif::log2_q11_u64(table, numer1);
    ASSERT_EQ(vif::num_log_term(s1, s2, s12, lim, table), r) << s1 << " " << s2 << " " << s12 << " " << lim;
    check_island<std::int32_t>(*stats, [&](auto&& f) { return vif::num_log_term(s1, s2, s12, lim, table, f); },
                               "vif num_log_term");
  }
  // The closed form for identical statistics at the ends of its domain:
  // powers of two and their neighbours from sigma_nsq to INT32_MAX.
  for (int k = 17; k <= 31; ++k) {
    for (const std::int64_t d : {-1, 0, 1}) {
      const std::int64_t s64 = (std::int64_t{1} << k) + d;
      if (s64 < vif::sigma_nsq || s64 > INT32_MAX) continue;
      const auto s1 = static_cast<std::int32_t>(s64);
      for (const std::int64_t off : {-3, -1, 0, 1, 2, 1000000}) {
        const std::int64_t s2_64 = std::clamp<std::int64_t>(s64 + off, 1, INT32_MAX);
        const auto s2 = static_cast<std::int32_t>(s2_64);
        for (const double lim : limits) {
          const double g = vif::gain_f64(s1, s1);
          const std::int32_t sv = std::max(vif::residual_variance_i32(s2, g, s1), 0);
          const std::uint32_t numer1 = static_cast<std::uint32_t>(sv) + static_cast<std::uint32_t>(vif::sigma_nsq);
          const std::int64_t numer1_tmp = vif::gain_sq_variance_i64(vif::min_gain(g, lim), s1) + numer1;
          const std::int32_t r =
              vif::log2_q11_u64(table, static_cast<std::uint64_t>(numer1_tmp)) - vif::log2_q11_u64(table, numer1);
          ASSERT_EQ(vif::num_log_term(s1, s2, s1, lim, table), r) << s1 << " " << s2 << " " << lim;
          check_island<std::int32_t>(identical, [&](auto&& f) { return vif::num_log_term(s1, s2, s1, lim, table, f); },
                                     "vif num_log_term, identical at the edges");
        }
      }
    }
  }
  std::printf("vif num_log_term undecided: random %.2e (%llu), near-identical %.2e, identical %.2e\n", st.rate(),
              static_cast<unsigned long long>(st.samples), near.rate(), identical.rate());
  // Ceilings over the rates measured (docs/fp64-free.md).
  EXPECT_LE(st.rate(), 1e-4);
  EXPECT_LE(near.rate(), 0.05);
  EXPECT_LE(identical.rate(), 1e-4);
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
  const double gains[] = {100.0, 1.0, 1.2, 0.35, 2.5, 0x1.fffffep+6};
  IslandStats s30, s15, clamp, clamp_exact_product;
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
    const double g = gains[rng() % 6];
    check_island<float>(float_adm::gain_product_exact(g) ? clamp_exact_product : clamp,
                        [&](auto&& f) { return float_adm::gain_clamp(x, t, g, f); }, "gain_clamp");
  }
  std::printf("float_adm mul_one_by_30 %.2e, add_mul_one_by_15 %.2e, gain_clamp %.2e undecided (gains of 24 bits: "
              "%.2e of %llu)\n",
              s30.rate(), s15.rate(), clamp.rate(), clamp_exact_product.rate(),
              static_cast<unsigned long long>(clamp_exact_product.samples));
  EXPECT_LT(s30.rate(), 1e-4);  // on pairs (island)
  EXPECT_LT(s15.rate(), 1e-4);
  EXPECT_GT(clamp.rate(), 1e-3);  // hence Sf64 (exact_island) for the clamp with 1.2 and 0.35
  // 100, 1, 2.5 and 127.99998: R's product is exact, so pairs decide every sample (island).
  EXPECT_EQ(clamp_exact_product.undecided, 0u);
  EXPECT_GT(clamp_exact_product.samples, 500000u);
  EXPECT_TRUE(float_adm::gain_product_exact(100.0) && float_adm::gain_product_exact(1.0) &&
              !float_adm::gain_product_exact(1.2) && !float_adm::gain_product_exact(0.35) &&
              !float_adm::gain_product_exact(0.0));
}

// float_vif's three islands on the statistic's domain (sigma1² >= eps or 0,
// sv² >= eps, g²·sigma1² >= 0), nsq floats and doubles that are not; the
// adversarial half puts 1 + q on float midpoints (exact quotients by nsq 1
// and 2: R's double is exact there and ties to even) and just above 1.0,
// where the rounding boundary is a whole half ulp away. With an nsq that is
// no float, R's 1 + sigma1²/nsq is often exactly a float midpoint, which
// pairs cannot decide: statistic() sends that island to Sf64 then
// (StatParams::den_in_sf64).
TEST(Fp32Pair, FloatVifIslandsDecideOrReplayExactly) {
  std::mt19937_64 rng(6);
  const double float_nsqs[] = {2.0, 1.0, 5.0, 0.25}, double_nsqs[] = {0.3, 1e-3, 0.7};
  IslandStats num, den, den_double, below;
  auto magnitude = [&](int lo, int hi) {
    const float m = 1.0f + static_cast<float>(rng() % (1u << 23)) * 0x1p-23f;
    return std::ldexp(m, lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)));
  };
  for (int i = 0; i < 1000000; ++i) {
    const bool float_nsq = i % 4 != 3;
    const double nsq = float_nsq ? float_nsqs[rng() % 4] : double_nsqs[rng() % 3];
    EXPECT_EQ(float_vif::make_stat_params(100.0, nsq).den_in_sf64, !float_nsq);
    float s1 = magnitude(-33, 20), sv = magnitude(-33, 20), g2s1 = magnitude(-60, 30);
    if (i % 2 == 1) {
      s1 = std::ldexp(static_cast<float>(rng() % (1u << 24)), -static_cast<int>(rng() % 20));  // 1 + s1/nsq on 2^-k grids
      g2s1 = magnitude(-30, -20);  // q near the half ulp above 1
      sv = rng() % 2 ? 1e-10f : sv;
    }
    check_island<float>(num, [&](auto&& f) { return float_vif::num_log_arg_f64(g2s1, sv, nsq, f); }, "float_vif num");
    check_island<float>(float_nsq ? den : den_double,
                        [&](auto&& f) { return float_vif::den_log_arg_f64(s1, nsq, f); }, "float_vif den");
    check_island<bool>(below, [&](auto&& f) { return float_vif::below_nsq_f64(s1, nsq, f); }, "float_vif below");
  }
  std::printf("float_vif num_log_arg %.2e, den_log_arg %.2e (nsq not a float: %.2e), below_nsq %.2e undecided\n",
              num.rate(), den.rate(), den_double.rate(), below.rate());
  EXPECT_LT(num.rate(), 1e-4);  // on pairs (island)
  EXPECT_LT(den.rate(), 1e-4);
  EXPECT_GT(den_double.rate(), 1e-3);  // hence Sf64 (exact_island) there
  EXPECT_LT(below.rate(), 1e-4);
}

// to_f32 next to a power of two: the rounding boundary away from zero is half
// an ulp of the binade away, the one toward zero a quarter; the same distance
// is decided above 1.0 and not below it.
TEST(Fp32Pair, ToFloatUsesTheBoundaryOnItsSide) {
  const float err = 0x1p-40f, d = 0x1.fffffp-26f;  // just inside a quarter ulp of 1.0
  for (float sign : {1.0f, -1.0f}) {
    Fp32PairF64 above, below, tie;
    EXPECT_EQ(above.to_f32(PairF64{sign * 1.0f, sign * d, err}), sign * 1.0f);
    EXPECT_FALSE(above.undecided);
    EXPECT_EQ(below.to_f32(PairF64{sign * 1.0f, -sign * d, err}), sign * 1.0f);
    EXPECT_TRUE(below.undecided);
    (void)tie.to_f32(PairF64{sign * 1.0f, sign * 0x1p-24f, err});  // on the midpoint above
    EXPECT_TRUE(tie.undecided);
  }
}

// Quotients of floats that a pair holds exactly are exact (bound 0), so a
// float midpoint after them is a tie R resolves to even; inexact ones keep
// a bound.
TEST(Fp32Pair, ExactFloatQuotientsHaveNoBound) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const float b = std::ldexp(static_cast<float>(1 + rng() % 255), static_cast<int>(rng() % 40) - 20);
    const float q = std::ldexp(static_cast<float>(rng() % (1u << 16)), static_cast<int>(rng() % 40) - 20);
    const float a = q * b;  // exact: 16 + 8 bits
    const PairF64 z = PairF64(a) / PairF64(b);
    ASSERT_EQ(z.err, 0.0f) << std::hexfloat << a << " / " << b;
    ASSERT_EQ(static_cast<double>(z.hi) + static_cast<double>(z.lo), static_cast<double>(a) / static_cast<double>(b));
  }
  const PairF64 third = PairF64(1.0f) / PairF64(3.0f);
  EXPECT_GT(third.err, 0.0f);
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
