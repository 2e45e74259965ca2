// docs/design.md §2 rule 4: a*b + c written as one expression is not fused into
// an FMA on the host (this file is compiled with the project's flags). The
// operands come from volatile objects so nothing is constant-folded; they are
// chosen so that the fused and the unfused results differ.
#include <gtest/gtest.h>

#include <cmath>

namespace {

// (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: RN drops the 2^-60, so
// RN(RN(a*b) + c) = 0 with c = -(1 + 2^-29), while fma(a, b, c) = 2^-60.
volatile double g_a = 1.0 + 0x1p-30;
volatile double g_b = 1.0 + 0x1p-30;
volatile double g_c = -(1.0 + 0x1p-29);
// float: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, a tie that RN rounds to even
// (1 + 2^-11); fused: 2^-24.
volatile float g_af = 1.0f + 0x1p-12f;
volatile float g_cf = -(1.0f + 0x1p-11f);

double mul_add(double a, double b, double c) { return a * b + c; }
double add_mul(double a, double b, double c) { return c + a * b; }
double mul_sub(double a, double b, double c) { return a * b - (-c); }
float mul_add_f(float a, float b, float c) { return a * b + c; }

TEST(ProbeContraction, ProbeDistinguishesFusedFromUnfused) {
  const double a = g_a, b = g_b, c = g_c;
  EXPECT_EQ(std::fma(a, b, c), 0x1p-60);  // the probe's operands do tell an FMA apart
  const float af = g_af, cf = g_cf;
  EXPECT_EQ(std::fma(af, af, cf), 0x1p-24f);
}

TEST(ProbeContraction, HostExpressionsAreNotFused) {
  const double a = g_a, b = g_b, c = g_c;
  EXPECT_EQ(a * b + c, 0.0);
  EXPECT_EQ(mul_add(a, b, c), 0.0);
  EXPECT_EQ(add_mul(a, b, c), 0.0);
  EXPECT_EQ(mul_sub(a, b, c), 0.0);
  const float af = g_af, cf = g_cf;
  EXPECT_EQ(af * af + cf, 0.0f);
  EXPECT_EQ(mul_add_f(af, af, cf), 0.0f);
}

TEST(ProbeContraction, HostLoopsAreNotFused) {
  // A loop the compiler may vectorise (and, if allowed, contract).
  constexpr int kN = 1000;
  double a[kN], b[kN], c[kN], r[kN];
  float af[kN], cf[kN], rf[kN];
  for (int i = 0; i < kN; ++i) {
    a[i] = g_a;
    b[i] = g_b;
    c[i] = g_c;
    af[i] = g_af;
    cf[i] = g_cf;
  }
  for (int i = 0; i < kN; ++i) r[i] = a[i] * b[i] + c[i];
  for (int i = 0; i < kN; ++i) rf[i] = af[i] * af[i] + cf[i];
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(r[i], 0.0) << i;
    ASSERT_EQ(rf[i], 0.0f) << i;
  }
}

}  // namespace
