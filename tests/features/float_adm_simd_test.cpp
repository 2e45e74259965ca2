// Float ADM's SIMD row kernels (float_adm_simd.hpp) against the scalar ones
// of float_adm_math.hpp, bit for bit: random rows of many widths and value
// classes (normal, tiny, subnormal, +-0, large, inf, NaN), p = 3 and other
// p-norms, masking on and bypassed; and whole runs with the SIMD level capped
// to scalar against the default level on the fixtures and synthetic frames.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/simd.hpp"
#include "features/float_adm/float_adm_simd.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

using float_adm::Bands3;
using float_adm::PNorm;
using float_adm::RowSums;

struct SimdLimit {
  explicit SimdLimit(SimdLevel l) { set_simd_limit(l); }
  ~SimdLimit() { set_simd_limit(SimdLevel::avx512); }
};

bool have_avx2() {
  SimdLimit cap(SimdLevel::avx2);
  return simd_level() == SimdLevel::avx2;
}

// Same bits, or both NaN: which NaN payload and sign propagates through an
// addition of two NaNs depends on the operand order the compiler picks for a
// commutative instruction. (NaN cannot arise from integer samples: the DWT
// values are finite and the decouple's divisor is never 0; the tests feed
// NaN and infinities to check everything else.)
bool same(float a, float b) {
  if (a != a) return b != b;
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// Values of one class mix: 0 band-like, 1 tiny and subnormal, 2 with zeros
// of both signs, large values, infinities and NaN.
std::vector<float> random_plane(std::size_t n, int mix, std::mt19937_64& rng) {
  std::vector<float> v(n);
  std::uniform_real_distribution<float> band(-300.0f, 300.0f);
  std::uniform_int_distribution<int> coin(0, 15);
  for (auto& x : v) {
    x = band(rng);
    if (mix == 1) x = std::ldexp(x, -(130 + coin(rng)));
    if (mix == 2) {
      const int c = coin(rng);
      if (c == 0) x = 0.0f;
      if (c == 1) x = -0.0f;
      if (c == 2) x = 3e38f;
      if (c == 3) x = std::numeric_limits<float>::infinity();
      if (c == 4) x = std::numeric_limits<float>::quiet_NaN();
      if (c == 5) x = -std::numeric_limits<float>::quiet_NaN();
    }
  }
  return v;
}

const int widths[] = {2, 3, 7, 8, 9, 10, 16, 17, 18, 31, 33, 64, 65, 100, 257};

TEST(FloatAdmSimdKernels, RowsEqualScalar) {
  if (!have_avx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  const auto& scalar = float_adm::scalar_kernels();
  const auto& simd = float_adm::avx2_kernels();
  std::mt19937_64 rng(11);
  const float rf[3] = {0.37f, 1.9f, 0.05f};
  std::size_t compared = 0;
  for (int w : widths)
    for (int h : {2, 3, 5})
      for (int mix : {0, 1, 2}) {
        const auto n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
        std::vector<std::vector<float>> p(9);
        for (auto& q : p) q = random_plane(n, mix, rng);
        const Bands3<const float> src{p[0].data(), p[1].data(), p[2].data(), w};
        const Bands3<const float> ang{p[3].data(), p[4].data(), p[5].data(), w};
        // flt as the CSF makes it (non-negative), from ang.
        std::vector<float> fh(n), fv(n), fd(n), dummy(n);
        for (int i = 0; i < h; ++i) {
          float_adm::csf_row(p[3].data() + i * w, 1.0f, 0, w, dummy.data() + i * w, fh.data() + i * w);
          float_adm::csf_row(p[4].data() + i * w, 1.0f, 0, w, dummy.data() + i * w, fv.data() + i * w);
          float_adm::csf_row(p[5].data() + i * w, 1.0f, 0, w, dummy.data() + i * w, fd.data() + i * w);
        }
        const Bands3<const float> flt{fh.data(), fv.data(), fd.data(), w};
        for (int i = 0; i < h; ++i) {
          // dwt vertical
          std::vector<float> lo1(static_cast<std::size_t>(w)), hi1(lo1), lo2(lo1), hi2(lo1);
          scalar.dwt_vertical_row(p[0].data(), w, w, h, i < (h + 1) / 2 ? i : 0, lo1.data(), hi1.data());
          simd.dwt_vertical_row(p[0].data(), w, w, h, i < (h + 1) / 2 ? i : 0, lo2.data(), hi2.data());
          for (int j = 0; j < w; ++j) {
            ASSERT_TRUE(same(lo1[static_cast<std::size_t>(j)], lo2[static_cast<std::size_t>(j)])) << w << " " << j << " mix " << mix << " " << lo1[static_cast<std::size_t>(j)] << " " << lo2[static_cast<std::size_t>(j)];
            ASSERT_TRUE(same(hi1[static_cast<std::size_t>(j)], hi2[static_cast<std::size_t>(j)])) << w << " " << j;
          }
          // csf
          std::vector<float> d1(static_cast<std::size_t>(w)), f1(d1), d2(d1), f2(d1);
          scalar.csf_row(p[1].data() + i * w, 0.7f, 0, w, d1.data(), f1.data());
          simd.csf_row(p[1].data() + i * w, 0.7f, 0, w, d2.data(), f2.data());
          for (int j = 0; j < w; ++j) {
            ASSERT_TRUE(same(d1[static_cast<std::size_t>(j)], d2[static_cast<std::size_t>(j)]));
            ASSERT_TRUE(same(f1[static_cast<std::size_t>(j)], f2[static_cast<std::size_t>(j)]));
          }
          for (double pnorm : {3.0, 2.5, 1.0}) {
            const PNorm pn = float_adm::p_norm(pnorm);
            for (int j0 : {0, 1, 2})
              for (int j1 : {w, w - 1, w - 2}) {
                if (j0 >= j1) continue;
                bool u1 = false, u2 = false;
                const RowSums a = scalar.den_row(src, rf, i, j0, j1, pn, &u1);
                const RowSums b = simd.den_row(src, rf, i, j0, j1, pn, &u2);
                ASSERT_TRUE(same(a.h, b.h) && same(a.v, b.v) && same(a.d, b.d)) << "den w " << w << " mix " << mix;
                for (bool bypass : {false, true}) {
                  const RowSums c = scalar.cm_row(src, ang, flt, rf, w, h, i, j0, j1, bypass, pn, &u1);
                  const RowSums d = simd.cm_row(src, ang, flt, rf, w, h, i, j0, j1, bypass, pn, &u2);
                  ASSERT_TRUE(same(c.h, d.h) && same(c.v, d.v) && same(c.d, d.d))
                      << "cm w " << w << " h " << h << " i " << i << " mix " << mix << " p " << pnorm << " j0 " << j0
                      << " j1 " << j1 << " bypass " << bypass;
                  ++compared;
                }
              }
          }
        }
      }
  EXPECT_GT(compared, 1000u);
}

TEST(FloatAdmSimdKernels, HorizontalDwtAndDecoupleEqualScalar) {
  if (!have_avx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  const auto& scalar = float_adm::scalar_kernels();
  const auto& simd = float_adm::avx2_kernels();
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<float> scale(0.2f, 1.8f);
  std::size_t flagged = 0;
  for (int w : {2, 3, 9, 17, 18, 33, 34, 35, 36, 64, 100, 257, 600})
    for (int mix : {0, 1, 2}) {
      const auto n = static_cast<std::size_t>(w);
      const auto lo = random_plane(n, mix, rng), hi = random_plane(n, mix, rng);
      const int bw = float_adm::band_size(w);
      std::vector<float> o1(4 * n), o2(4 * n);
      scalar.dwt_horizontal_row(lo.data(), hi.data(), w, &o1[0], &o1[n], &o1[2 * n], &o1[3 * n]);
      simd.dwt_horizontal_row(lo.data(), hi.data(), w, &o2[0], &o2[n], &o2[2 * n], &o2[3 * n]);
      for (int b = 0; b < 4; ++b)
        for (int j = 0; j < bw; ++j) {
          const std::size_t k = static_cast<std::size_t>(b) * n + static_cast<std::size_t>(j);
          ASSERT_TRUE(same(o1[k], o2[k])) << "dwt h w " << w << " band " << b << " j " << j;
        }
      // Decouple: distorted = reference scaled (angle within 1 degree: the
      // gain clamp), rotated or random, per sample.
      std::vector<std::vector<float>> ref(3), dis(3);
      for (int b = 0; b < 3; ++b) {
        ref[static_cast<std::size_t>(b)] = random_plane(n, mix, rng);
        dis[static_cast<std::size_t>(b)] = random_plane(n, mix, rng);
      }
      for (std::size_t j = 0; j < n; ++j) {
        const int kind = static_cast<int>(rng() % 4);
        const float f = scale(rng);
        for (int b = 0; b < 3; ++b) {
          float& t = dis[static_cast<std::size_t>(b)][j];
          const float o = ref[static_cast<std::size_t>(b)][j];
          if (kind == 0) t = o * f;
          if (kind == 1) t = o * f + ((rng() & 1) ? 1e-3f : -1e-3f) * o;
          if (kind == 2) t = o;
        }
      }
      const Bands3<const float> rb{ref[0].data(), ref[1].data(), ref[2].data(), w};
      const Bands3<const float> db{dis[0].data(), dis[1].data(), dis[2].data(), w};
      std::vector<float> r_gain1;
      for (double gain : {1.0, 1.2, 100.0, 1.0000001}) {
        std::vector<float> r1(3 * n), a1(3 * n), r2(3 * n), a2(3 * n);
        const Bands3<float> R1{&r1[0], &r1[n], &r1[2 * n], w}, A1{&a1[0], &a1[n], &a1[2 * n], w};
        const Bands3<float> R2{&r2[0], &r2[n], &r2[2 * n], w}, A2{&a2[0], &a2[n], &a2[2 * n], w};
        for (int j0 : {0, 1, 3}) {
          if (j0 >= w) continue;
          scalar.decouple_row(rb, db, 0, j0, w, gain, R1, A1);
          simd.decouple_row(rb, db, 0, j0, w, gain, R2, A2);
          for (std::size_t k = 0; k < 3 * n; ++k) {
            if (static_cast<int>(k % n) < j0) continue;
            ASSERT_TRUE(same(r1[k], r2[k]) && same(a1[k], a2[k]))
                << "decouple w " << w << " mix " << mix << " gain " << gain << " k " << k;
          }
        }
        if (gain == 1.0) r_gain1 = r1;
        if (gain == 100.0)
          for (std::size_t k = 0; k < 3 * n; ++k) flagged += !same(r1[k], r_gain1[k]);
      }
    }
  EXPECT_GT(flagged, 100u) << "the gain clamp (angle test passed) was exercised";
}

// Whole runs: the scalar cap gives the bits of the default level.
void expect_levels_agree(const FixturePair& pair, const std::vector<std::string>& features) {
  RunResult base;
  {
    SimdLimit cap(SimdLevel::scalar);
    base = run_fixture(pair, features);
  }
  const RunResult simd = run_fixture(pair, features);
  ASSERT_EQ(base.scores.metric_count(), simd.scores.metric_count());
  for (std::size_t id = 0; id < base.scores.metric_count(); ++id)
    for (std::uint64_t f = 0; f < base.frames; ++f)
      ASSERT_TRUE(same_bits(*base.scores.get(id, f), *simd.scores.get(id, f)))
          << pair.name << " frame " << f << " " << base.scores.metric_name(id);
}

TEST(FloatAdmSimdFeature, FixturesScalarCapSameBits) {
  if (!have_avx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (const auto& pair : fixture_pairs()) {
    expect_levels_agree(pair, {"float_adm=debug=true"});
    expect_levels_agree(pair, {"float_adm=adm_p_norm=2.5:adm_enhn_gain_limit=1.2:debug=true"});
    expect_levels_agree(pair, {"float_adm=adm_bypass_cm=1:adm_csf_mode=2"});
  }
}

}  // namespace
}  // namespace exactvmaf::test
