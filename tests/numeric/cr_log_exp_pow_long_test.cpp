// Long tier (LABELS long) for cr_log, cr_log2, cr_log10, cr_log2f, cr_exp,
// cr_pow, cr_powf: N arguments per function (default 10^8; override with
// the environment variable EXACTVMAF_LONG_N), the feature ranges and the
// full domain interleaved, bit for bit against MPFR. Prints, per function,
// the count of wrong roundings (must be 0) and of undecided fast-path calls.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "dd_test_support.hpp"
#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"

namespace exactvmaf::rmath {
namespace {

using testing::check_d;
using testing::check_f;
using testing::Gen;
using testing::Tally;

long long_n() {
  const char* s = std::getenv("EXACTVMAF_LONG_N");
  return s ? std::atol(s) : 100000000L;
}

void report(const char* name, const Tally& t) {
  std::printf("%-8s n=%ld wrong_fast=%ld wrong_host=%ld undecided=%ld (rate %.3g)\n", name, t.n, t.wrong_fast,
              t.wrong_host, t.undecided, t.undecided_rate());
  std::fflush(stdout);
  ::testing::Test::RecordProperty(std::string(name) + "_n", std::to_string(t.n));
  ::testing::Test::RecordProperty(std::string(name) + "_undecided", std::to_string(t.undecided));
  EXPECT_EQ(t.wrong_fast, 0) << t.first_failure;
  EXPECT_EQ(t.wrong_host, 0) << t.first_failure;
}

template <typename Fast, typename Host>
void log_family(const char* name, MpfrFn fn, Fast fast, Host host, std::uint64_t seed) {
  Gen g(seed);
  Tally t;
  const long n = long_n();
  for (long i = 0; i < n; ++i) {
    double x;
    switch (i % 4) {
      case 0: x = g.log_uniform(1e-16, 1e12); break;                                     // psnr ratios
      case 1: x = static_cast<double>(1 + (g.rng() >> (20 + g.rng() % 44))); break;      // integers
      case 2: x = g.any_bits(); break;                                                   // full domain
      default: x = 1.0 + static_cast<double>(static_cast<std::int64_t>(g.rng() >> 40) - (1 << 23)) * 0x1p-45;
    }
    check_d(t, fn, fast, host, x);
  }
  report(name, t);
}

TEST(CrLongTier, Log) {
  log_family("log", MpfrFn::kLog, [](double x, double, double* r) { return cr_log_fast(x, r); },
             [](double x, double) { return cr_log(x); }, 1001);
}
TEST(CrLongTier, Log2) {
  log_family("log2", MpfrFn::kLog2, [](double x, double, double* r) { return cr_log2_fast(x, r); },
             [](double x, double) { return cr_log2(x); }, 1002);
}
TEST(CrLongTier, Log10) {
  log_family("log10", MpfrFn::kLog10, [](double x, double, double* r) { return cr_log10_fast(x, r); },
             [](double x, double) { return cr_log10(x); }, 1003);
}

TEST(CrLongTier, Log2f) {
  Gen g(1004);
  Tally t;
  const long n = long_n();
  auto fast = [](float x, float, float* r) { return cr_log2f_fast(x, r); };
  auto host = [](float x, float) { return cr_log2f(x); };
  for (long i = 0; i < n; ++i) {
    float x;
    switch (i % 3) {
      case 0: x = static_cast<float>(1.0 + g.log_uniform(1e-10, 1e10)); break;  // VIF: 1 + ratio
      case 1: x = g.any_bits_f(); break;
      default: x = static_cast<float>(g.log_uniform(1e-30, 1e30));
    }
    check_f(t, MpfrFn::kLog2, fast, host, x);
  }
  report("log2f", t);
}

TEST(CrLongTier, Exp) {
  Gen g(1005);
  Tally t;
  const long n = long_n();
  auto fast = [](double x, double, double* r) { return cr_exp_fast(x, r); };
  auto host = [](double x, double) { return cr_exp(x); };
  for (long i = 0; i < n; ++i) {
    double x;
    switch (i % 4) {
      case 0: x = g.uniform(-700.0, 700.0); break;
      case 1: x = -g.uniform(0.0, 50.0); break;  // SVM RBF kernel
      case 2: x = g.any_bits(); break;
      default: x = g.uniform(-746.0, 710.0);
    }
    check_d(t, MpfrFn::kExp, fast, host, x);
  }
  report("exp", t);
}

TEST(CrLongTier, Pow) {
  Gen g(1006);
  Tally t;
  const long n = long_n();
  auto fast = [](double x, double y, double* r) { return cr_pow_fast(x, y, r); };
  auto host = [](double x, double y) { return cr_pow(x, y); };
  for (long i = 0; i < n; ++i) {
    double x, y;
    switch (i % 6) {
      case 0: x = g.unit(); y = 2.4; break;
      case 1: x = g.unit(); y = 1.0 / 3.0; break;
      case 2: x = g.uniform(0.0, 150.0); y = 7.0; break;
      case 3: x = g.uniform(0.0, 2.0); y = 1.0 / g.uniform(1.0, 5.0); break;
      case 4: x = g.log_uniform(1e-6, 1e6); y = g.uniform(-8.0, 8.0); break;
      default: x = g.any_bits(); y = g.any_bits();
    }
    check_d(t, MpfrFn::kPow, fast, host, x, y);
  }
  report("pow", t);
}

TEST(CrLongTier, Powf) {
  Gen g(1007);
  Tally t;
  const long n = long_n();
  auto fast = [](float x, float y, float* r) { return cr_powf_fast(x, y, r); };
  auto host = [](float x, float y) { return cr_powf(x, y); };
  for (long i = 0; i < n; ++i) {
    float x, y;
    switch (i % 5) {
      case 0: x = static_cast<float>(g.uniform(0.01, 150.0)); y = 7.0f; break;  // ciede
      case 1: x = static_cast<float>(g.log_uniform(1e-8, 1e4)); y = 3.0f; break;  // ADM p_norm
      case 2: x = static_cast<float>(g.log_uniform(1e-12, 1e12)); y = 1.0f / 3.0f; break;
      case 3: x = static_cast<float>(g.uniform(0.0, 10.0)); y = static_cast<float>(g.uniform(-10.0, 10.0)); break;
      default: x = g.any_bits_f(); y = g.any_bits_f();
    }
    check_f(t, MpfrFn::kPow, fast, host, x, y);
  }
  report("powf", t);
}

}  // namespace
}  // namespace exactvmaf::rmath
