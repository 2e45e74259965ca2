// docs/design.md §2 rule 5: a caller that turned on flush-to-zero and
// denormals-are-zero (MXCSR FTZ|DAZ) gets the same bits from R's math
// library when it calls through exactvmaf::FpEnvGuard as with FTZ/DAZ off;
// the guard restores the caller's MXCSR afterwards.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "numeric/cr_exp.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/cr_pow.hpp"
#include "numeric/cr_trig.hpp"
#include "numeric/exact_sum.hpp"
#include "numeric/fpenv.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define PROBE_HAVE_MXCSR 1
#endif

namespace {

using namespace exactvmaf::rmath;

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

struct Call {
  std::string name;
  std::function<double()> fn;
};

// Calls whose arguments or results are subnormal, or that go through MPFR.
std::vector<Call> calls() {
  return {
      {"cr_atan2(1e-310, 1)", [] { return cr_atan2(1e-310, 1.0); }},
      {"cr_atan2(3e-320, -2)", [] { return cr_atan2(3e-320, -2.0); }},
      {"cr_atan2(1e-300, 1e10)", [] { return cr_atan2(1e-300, 1e10); }},
      {"cr_atan2(5, 1e-310)", [] { return cr_atan2(5.0, 1e-310); }},
      {"cr_sin(1e-310)", [] { return cr_sin(1e-310); }},
      {"cr_cos(1e-310)", [] { return cr_cos(1e-310); }},
      {"cr_sin(1e22)", [] { return cr_sin(1e22); }},
      {"cr_cos(3.0)", [] { return cr_cos(3.0); }},
      {"cr_log(1e-310)", [] { return cr_log(1e-310); }},
      {"cr_log2(4.9e-324)", [] { return cr_log2(4.9e-324); }},
      {"cr_log10(4e-320)", [] { return cr_log10(4e-320); }},
      {"cr_exp(-740)", [] { return cr_exp(-740.0); }},
      {"cr_exp(-708.5)", [] { return cr_exp(-708.5); }},
      {"cr_pow(2, -1070)", [] { return cr_pow(2.0, -1070.0); }},
      {"cr_pow(1e-160, 2)", [] { return cr_pow(1e-160, 2.0); }},
      {"cr_log2f(1e-40f)", [] { return static_cast<double>(cr_log2f(1e-40f)); }},
      {"cr_powf(1e-20f, 2)", [] { return static_cast<double>(cr_powf(1e-20f, 2.0f)); }},
      {"cr_powf(3e-39f, 1)", [] { return static_cast<double>(cr_powf(3e-39f, 1.0f)); }},
      {"ExactSumF64 subnormal", [] {
         ExactSumF64 s{};
         s.add(1e-310);
         s.add(-3e-311);
         return s.round_to_double();
       }},
      {"ExactSumF32 subnormal", [] {
         ExactSumF32 s{};
         s.add(1e-40f);
         s.add(1e-41f);
         return s.round_to_double();
       }},
  };
}

#if PROBE_HAVE_MXCSR
constexpr unsigned kFtzDaz = (1u << 15) | (1u << 6);

TEST(ProbeFtz, GuardedResultsIgnoreCallerFtzDaz) {
  std::vector<double> reference;
  {
    exactvmaf::FpEnvGuard guard;  // the reference environment
    for (const Call& c : calls()) reference.push_back(c.fn());
  }
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | kFtzDaz);
  // The environment really flushes: a subnormal operand reads as zero.
  volatile double tiny = 1e-310;
  const double flushed = tiny * 3.0;  // subnormal in, subnormal out
  int unguarded_differs = 0;
  std::vector<double> guarded;
  const std::vector<Call> cs = calls();
  for (const Call& c : cs) {
    if (bits(c.fn()) != bits(reference[guarded.size()])) ++unguarded_differs;
    {
      exactvmaf::FpEnvGuard guard;
      guarded.push_back(c.fn());
    }
    // The caller's FTZ|DAZ is back after the guard.
    EXPECT_EQ(_mm_getcsr() & kFtzDaz, kFtzDaz) << c.name;
  }
  _mm_setcsr(saved);
  EXPECT_EQ(flushed, 0.0);
  // Control: without the guard some of these calls do change (so the test
  // below can fail); with it, none does.
  EXPECT_GT(unguarded_differs, 0);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    EXPECT_EQ(bits(guarded[i]), bits(reference[i])) << cs[i].name;
  }
}
#else
TEST(ProbeFtz, GuardedResultsIgnoreCallerFtzDaz) { GTEST_SKIP() << "no MXCSR on this architecture"; }
#endif

}  // namespace
