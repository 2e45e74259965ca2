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
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/simd.hpp"
#include "features/float_adm/float_adm_simd.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/simd_check.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

using float_adm::Bands3;
using float_adm::PNorm;
using float_adm::RowSums;

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

using Check = KernelTableCheck<float_adm::Kernels>;

std::tuple<float, float, float> sums(const RowSums& r) { return {r.h, r.v, r.d}; }

void check_rows(Check& check) {
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
        const auto wn = static_cast<std::size_t>(w);
        for (int i = 0; i < h; ++i) {
          const std::string what = fmt::format("w {} h {} i {} mix {}", w, h, i, mix);
          ASSERT_TRUE(check.check("dwt_vertical_row", &float_adm::Kernels::dwt_vertical_row, what, [&](auto fn) {
            std::vector<float> lo(wn), hi(wn);
            fn(p[0].data(), w, w, h, i < (h + 1) / 2 ? i : 0, lo.data(), hi.data());
            return std::make_tuple(lo, hi);
          }));
          ASSERT_TRUE(check.check("csf_row", &float_adm::Kernels::csf_row, what, [&](auto fn) {
            std::vector<float> d(wn), f(wn);
            fn(p[1].data() + i * w, 0.7f, 0, w, d.data(), f.data());
            return std::make_tuple(d, f);
          }));
          for (double pnorm : {3.0, 2.5, 1.0}) {
            const PNorm pn = float_adm::p_norm(pnorm);
            for (int j0 : {0, 1, 2})
              for (int j1 : {w, w - 1, w - 2}) {
                if (j0 >= j1) continue;
                const std::string cols = fmt::format("{} p {} j0 {} j1 {}", what, pnorm, j0, j1);
                ASSERT_TRUE(check.check("den_row", &float_adm::Kernels::den_row, cols, [&](auto fn) {
                  bool undecided = false;
                  return sums(fn(src, rf, i, j0, j1, pn, &undecided));
                }));
                for (bool bypass : {false, true}) {
                  ASSERT_TRUE(check.check("cm_row", &float_adm::Kernels::cm_row,
                                          fmt::format("{} bypass {}", cols, bypass), [&](auto fn) {
                                            bool undecided = false;
                                            return sums(fn(src, ang, flt, rf, w, h, i, j0, j1, bypass, pn,
                                                           &undecided));
                                          }));
                  ++compared;
                }
              }
          }
        }
      }
  EXPECT_GT(compared, 1000u);
}

void check_horizontal_dwt_and_decouple(Check& check) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<float> scale(0.2f, 1.8f);
  std::size_t flagged = 0;
  for (int w : {2, 3, 9, 17, 18, 33, 34, 35, 36, 64, 100, 257, 600})
    for (int mix : {0, 1, 2}) {
      const auto n = static_cast<std::size_t>(w);
      const auto lo = random_plane(n, mix, rng), hi = random_plane(n, mix, rng);
      ASSERT_TRUE(check.check("dwt_horizontal_row", &float_adm::Kernels::dwt_horizontal_row,
                              fmt::format("w {} mix {}", w, mix), [&](auto fn) {
                                std::vector<float> o(4 * n);
                                fn(lo.data(), hi.data(), w, &o[0], &o[n], &o[2 * n], &o[3 * n]);
                                return o;
                              }));
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
        const auto decouple = [&](auto fn, int j0) {
          std::vector<float> r(3 * n), a(3 * n);
          const Bands3<float> R{&r[0], &r[n], &r[2 * n], w}, A{&a[0], &a[n], &a[2 * n], w};
          fn(rb, db, 0, j0, w, gain, R, A);
          return std::make_tuple(r, a);
        };
        for (int j0 : {0, 1, 3}) {
          if (j0 >= w) continue;
          ASSERT_TRUE(check.check("decouple_row", &float_adm::Kernels::decouple_row,
                                  fmt::format("w {} mix {} gain {} j0 {}", w, mix, gain, j0),
                                  [&](auto fn) { return decouple(fn, j0); }));
        }
        const std::vector<float> r1 = std::get<0>(decouple(float_adm::scalar_kernels().decouple_row, 0));
        if (gain == 1.0) r_gain1 = r1;
        if (gain == 100.0)
          for (std::size_t k = 0; k < 3 * n; ++k) flagged += !same(r1[k], r_gain1[k]);
      }
    }
  EXPECT_GT(flagged, 100u) << "the gain clamp (angle test passed) was exercised";
}

// Every entry of every SIMD table against the scalar table (the harness
// fails if an entry is left out).
TEST(FloatAdmSimdKernels, EveryEntryEqualsScalar) {
  Check check(&float_adm::kernels_for);
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU";
  check_rows(check);
  check_horizontal_dwt_and_decouple(check);
}

TEST(FloatAdmSimdFeature, FixturesScalarCapSameBits) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  for (const auto& pair : fixture_pairs())
    for (const char* f : {"float_adm=debug=true", "float_adm=adm_p_norm=2.5:adm_enhn_gain_limit=1.2:debug=true",
                          "float_adm=adm_bypass_cm=1:adm_csf_mode=2"})
      expect_levels_agree([&] { return run_fixture(pair, {f}); }, pair.name + " " + f);
}

}  // namespace
}  // namespace exactvmaf::test
