// Integer ADM's SIMD kernels (adm_simd.hpp) against the scalar row functions
// of adm_math.hpp, bit for bit, through the kernel-table harness
// (support/simd_check.hpp): every entry on random rows of many widths with
// full-range, small and extreme (min/max checkerboard) values, which reach
// the int16/int32 wrapping paths; then the whole feature at every SIMD level
// on random frames of odd sizes and bit depths, and on every fixture pair with
// the golden option sets.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <tuple>

#include <fmt/format.h>
#include <vector>

#include "exactvmaf/simd.hpp"
#include "features/adm/adm_math.hpp"
#include "features/adm/adm_simd.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/simd_check.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

using adm::i16;
using adm::i32;
using adm::i64;
using adm::u32;
using adm::u64;

const int widths[] = {1, 5, 9, 16, 17, 33, 40, 63, 64, 65, 100, 131, 257, 600};

using Check = KernelTableCheck<adm::Kernels>;

void check_dwt0(Check& check, std::mt19937_64& rng) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const i64 max = (i64{1} << bpc) - 1;
    for (int w : {5, 9, 17, 33, 40, 64, 65, 131, 257}) {
      const int h = 9;
      for (Fill fill : all_fills) {
        const auto stride = static_cast<std::ptrdiff_t>(w + 3);
        const auto plane = random_values<std::uint16_t>(static_cast<std::size_t>(stride * h), fill, rng, 0, max);
        std::vector<std::uint8_t> plane8(plane.begin(), plane.end());
        for (int i = 0; i < adm::band_size(h); ++i)
          for (bool with_hi : {true, false}) {
            const std::string what = fmt::format("bpc {} w {} row {} hi {}", bpc, w, i, with_hi);
            const auto run = [&](auto fn, const auto* src) {
              std::vector<i16> lo(w), hi(w);
              fn(src, stride, w, h, i, bpc, lo.data(), with_hi ? hi.data() : nullptr);
              return std::make_tuple(lo, hi);
            };
            if (bpc == 8)
              ASSERT_TRUE(check.check("dwt0_vertical_u8", &adm::Kernels::dwt0_vertical_u8, what,
                                      [&](auto fn) { return run(fn, plane8.data()); }));
            else
              ASSERT_TRUE(check.check("dwt0_vertical_u16", &adm::Kernels::dwt0_vertical_u16, what,
                                      [&](auto fn) { return run(fn, plane.data()); }));
          }
      }
    }
  }
  // Horizontal pass on arbitrary int16 rows.
  for (int w : widths) {
    if (w < 5) continue;
    for (Fill fill : all_fills) {
      const auto lo = random_values<i16>(static_cast<std::size_t>(w), fill, rng, -32768, 32767);
      const auto hi = random_values<i16>(static_cast<std::size_t>(w), fill, rng, -32768, 32767);
      const auto bw = static_cast<std::size_t>(adm::band_size(w));
      for (bool with_hi : {true, false})
        ASSERT_TRUE(check.check("dwt0_horizontal", &adm::Kernels::dwt0_horizontal, fmt::format("w {}", w),
                                [&](auto fn) {
                                  std::vector<i16> out(4 * bw, 7);
                                  fn(lo.data(), with_hi ? hi.data() : nullptr, w, out.data(), out.data() + bw,
                                     out.data() + 2 * bw, out.data() + 3 * bw);
                                  return out;
                                }));
    }
  }
}

void check_dwt_s123(Check& check, std::mt19937_64& rng) {
  for (int scale = 1; scale <= 3; ++scale)
    for (int w : widths) {
      if (w < 5) continue;
      for (Fill fill : all_fills) {
        const int h = 7;
        const auto stride = static_cast<std::ptrdiff_t>(w + 1);
        const auto plane = random_values<i32>(static_cast<std::size_t>(stride * h), fill, rng, INT32_MIN, INT32_MAX);
        for (int i = 0; i < adm::band_size(h); ++i) {
          const std::string what = fmt::format("scale {} w {} row {}", scale, w, i);
          std::vector<i32> lo(w), hi(w);
          adm::dwt_vertical_row(plane.data(), stride, w, h, i, scale, lo.data(), hi.data());
          ASSERT_TRUE(check.check("dwt_vertical", &adm::Kernels::dwt_vertical, what, [&](auto fn) {
            std::vector<i32> l(w), r(w);
            fn(plane.data(), stride, w, h, i, scale, l.data(), r.data());
            return std::make_tuple(l, r);
          }));
          const auto bw = static_cast<std::size_t>(adm::band_size(w));
          ASSERT_TRUE(check.check("dwt_horizontal", &adm::Kernels::dwt_horizontal, what, [&](auto fn) {
            std::vector<i32> out(4 * bw);
            fn(lo.data(), hi.data(), w, scale, out.data(), out.data() + bw, out.data() + 2 * bw, out.data() + 3 * bw);
            return out;
          }));
        }
      }
    }
}

// Scale 1's vertical pass read from the int16 approximation band equals
// dwt_vertical_row on the same samples widened to int32, at every level
// (scalar included), over the full int16 range.
TEST(AdmSimdKernels, Dwt1FromInt16EqualsScalar) {
  std::vector<const adm::Kernels*> tables = {&adm::scalar_kernels()};
  for (SimdLevel level : simd_levels()) tables.push_back(&adm::kernels_for(level));
  std::mt19937_64 rng(5);
  for (const adm::Kernels* k : tables)
    for (int w : {5, 9, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 131, 257, 600, 961}) {
      for (Fill fill : all_fills) {
        const int h = 9;
        const auto stride = static_cast<std::ptrdiff_t>(w + 3);
        const auto plane16 = random_values<i16>(static_cast<std::size_t>(stride * h), fill, rng, -32768, 32767);
        const std::vector<i32> plane32(plane16.begin(), plane16.end());
        for (int i = 0; i < adm::band_size(h); ++i) {
          std::vector<i32> lo_s(w), hi_s(w), lo_k(w, 7), hi_k(w, 7);
          adm::dwt_vertical_row(plane32.data(), stride, w, h, i, 1, lo_s.data(), hi_s.data());
          k->dwt1_vertical_i16(plane16.data(), stride, w, h, i, lo_k.data(), hi_k.data());
          ASSERT_EQ(lo_s, lo_k) << k->name << " w " << w << " row " << i;
          ASSERT_EQ(hi_s, hi_k) << k->name << " w " << w << " row " << i;
        }
      }
    }
}

void check_dwt1(Check& check, std::mt19937_64& rng) {
  for (int w : {5, 17, 32, 33, 65, 131, 600}) {
    const int h = 9;
    const auto stride = static_cast<std::ptrdiff_t>(w + 3);
    const auto plane = random_values<i16>(static_cast<std::size_t>(stride * h), Fill::mixed, rng, -32768, 32767);
    for (int i = 0; i < adm::band_size(h); ++i)
      ASSERT_TRUE(check.check("dwt1_vertical_i16", &adm::Kernels::dwt1_vertical_i16,
                              fmt::format("w {} row {}", w, i), [&](auto fn) {
                                std::vector<i32> lo(w, 7), hi(w, 7);
                                fn(plane.data(), stride, w, h, i, lo.data(), hi.data());
                                return std::make_tuple(lo, hi);
                              }));
  }
}

// Three bands of w x h samples (h rows, stride w + 2).
template <class T>
struct TestBands {
  std::vector<T> h, v, d;
  std::ptrdiff_t stride;
  adm::Bands3<const T> cview() const { return {h.data(), v.data(), d.data(), stride}; }
  adm::Bands3<T> view() { return {h.data(), v.data(), d.data(), stride}; }
};

template <class T>
TestBands<T> random_bands(int w, int h, Fill fill, std::mt19937_64& rng, i64 lo, i64 hi) {
  const auto stride = static_cast<std::ptrdiff_t>(w + 2);
  const auto n = static_cast<std::size_t>(stride * h);
  return {random_values<T>(n, fill, rng, lo, hi), random_values<T>(n, fill, rng, lo, hi),
          random_values<T>(n, fill, rng, lo, hi), stride};
}

// A distorted band set near the reference (angles below 1 degree occur).
template <class T>
TestBands<T> near(const TestBands<T>& ref, std::mt19937_64& rng, i64 lo, i64 hi) {
  TestBands<T> out = ref;
  std::uniform_int_distribution<i64> d(-3, 3), mode(0, 3);
  for (auto* band : {&out.h, &out.v, &out.d})
    for (auto& x : *band) {
      const i64 m = mode(rng);
      i64 y = m == 0 ? i64{x} + d(rng) : m == 1 ? i64{x} * 2 + d(rng) : m == 2 ? -i64{x} : i64{x} / 2;
      y = y < lo ? lo : (y > hi ? hi : y);
      x = static_cast<T>(y);
    }
  return out;
}

const adm::i32* lookup_table() {
  static const std::vector<i32> t = [] {
    std::vector<i32> v(adm::div_lookup_size);
    for (int i = 0; i < adm::div_lookup_size; ++i) v[static_cast<std::size_t>(i)] = adm::div_lookup_entry(i);
    return v;
  }();
  return t.data();
}

// Bands of +-(2^e + d), e in [0, 31), d in [-2, 2], clamped to int32.
TestBands<i32> power_bands(int w, int h, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> e(0, 30), d(-2, 2), sign(0, 1);
  auto out = random_bands<i32>(w, h, Fill::small, rng, 0, 0);
  for (auto* band : {&out.h, &out.v, &out.d})
    for (auto& x : *band) {
      const i64 v = (i64{1} << e(rng)) + d(rng);
      const i64 y = sign(rng) ? -v : v;
      x = static_cast<i32>(y < INT32_MIN ? INT32_MIN : (y > INT32_MAX ? INT32_MAX : y));
    }
  return out;
}

void check_decouple(Check& check, std::mt19937_64& rng) {
  const i32* lookup = lookup_table();
  for (int w : widths)
    for (Fill fill : all_fills)
      for (double gain : {1.0, 1.1, 1.2, 100.0, 1.7, 0.0, 2147483648.0}) {
        const int h = 3;
        const std::string what = fmt::format("w {} gain {}", w, gain);
        {
          const auto ref = random_bands<i16>(w, h, fill, rng, -32768, 32767);
          const auto dis = (w & 1) ? near(ref, rng, -32768, 32767) : random_bands<i16>(w, h, fill, rng, -32768, 32767);
          const auto zero = random_bands<i16>(w, h, Fill::small, rng, 0, 0);
          ASSERT_TRUE(check.check("decouple0", &adm::Kernels::decouple0, what, [&](auto fn) {
            auto r = zero, a = zero;
            for (int i = 0; i < h; ++i) fn(ref.cview(), dis.cview(), i, 0, w, gain, lookup, r.view(), a.view());
            return std::make_tuple(r.h, r.v, r.d, a.h, a.v, a.d);
          }));
        }
        for (i64 range : {i64{1} << 20, i64{1} << 31, i64{0}}) {
          // range 0: powers of two and their neighbours (the reciprocal's
          // shift and rounding edges, int64 -> float rounding edges).
          const i64 lo = range ? -range : INT32_MIN, hi = range ? range - 1 : INT32_MAX;
          const auto any = [&] { return range ? random_bands<i32>(w, h, fill, rng, lo, hi) : power_bands(w, h, rng); };
          const auto ref = any();
          const auto dis = (w & 1) ? near(ref, rng, lo, hi) : any();
          const auto zero = random_bands<i32>(w, h, Fill::small, rng, 0, 0);
          ASSERT_TRUE(check.check("decouple_s123", &adm::Kernels::decouple_s123, what, [&](auto fn) {
            auto r = zero, a = zero;
            for (int i = 0; i < h; ++i) fn(ref.cview(), dis.cview(), i, 1, w, gain, lookup, r.view(), a.view());
            return std::make_tuple(r.h, r.v, r.d, a.h, a.v, a.d);
          }));
        }
      }
}

// Column windows covering a row: the left edge column, then 32 columns at a
// time (vector bodies of both levels with the right edge in the last one).
std::vector<std::pair<int, int>> column_windows(int w) {
  std::vector<std::pair<int, int>> out{{0, 1}};
  for (int j = 1; j < w; j += 32) out.emplace_back(j, j + 32 < w ? j + 32 : w);
  if (w > 3) out.emplace_back(2, w - 1 < 36 ? w - 1 : 36);
  return out;
}

void check_csf_cm_den(Check& check, std::mt19937_64& rng) {
  std::uniform_int_distribution<u32> any32;
  const auto band_of = [](auto& t, int b) -> auto& { return b == 0 ? t.h : b == 1 ? t.v : t.d; };
  for (int w : widths)
    for (Fill fill : all_fills) {
      const int h = 5;
      // Scale 0: uint16 factors (default ones, the largest, random).
      for (const u32 f0 : {36453u, 65535u, any32(rng) & 0xffffu, 1u}) {
        const u32 rf[3] = {f0, f0 == 36453u ? 36453u : any32(rng) & 0xffffu, f0 == 36453u ? 49417u : f0};
        const auto src = random_bands<i16>(w, h, fill, rng, -32768, 32767);
        const auto zero = random_bands<i16>(w, h, Fill::small, rng, 0, 0);
        const auto csf = [&](auto fn) {
          auto dst = zero, flt = zero;
          for (int b = 0; b < 3; ++b)
            for (int i = 0; i < h; ++i) {
              const std::ptrdiff_t off = i * src.stride;
              fn(band_of(src, b).data() + off, rf[b], b, 0, w, band_of(dst, b).data() + off,
                 band_of(flt, b).data() + off);
            }
          return std::make_tuple(dst.h, dst.v, dst.d, flt.h, flt.v, flt.d);
        };
        ASSERT_TRUE(check.check("csf0", &adm::Kernels::csf0, fmt::format("w {}", w), csf));
        // The scalar CSF's bands feed the masking.
        auto dst_s = zero, flt_s = zero;
        std::tie(dst_s.h, dst_s.v, dst_s.d, flt_s.h, flt_s.v, flt_s.d) = csf(adm::scalar_kernels().csf0);
        const auto scored = random_bands<i16>(w, h, fill, rng, -32768, 32767);
        // Cube shifts of a 1024-wide band: each term stays below 2^56, so the
        // scalar int64 sums of the column windows below cannot overflow
        // even for extreme values (they would over whole rows).
        const adm::Cm0Shifts cs = adm::cm0_shifts(1024);
        for (int i = 0; i < h; ++i)
          for (const auto& [j0, j1] : column_windows(w))
            ASSERT_TRUE(check.check("cm0", &adm::Kernels::cm0, fmt::format("w {} row {} columns {}..{}", w, i, j0, j1),
                                    [&](auto fn) {
                                      const adm::CmRowSums r = fn(scored.cview(), dst_s.cview(), flt_s.cview(), rf, w,
                                                                  h, i, j0, j1, cs);
                                      return std::make_tuple(r.h, r.v, r.d);
                                    }));
        for (int i = 0; i < h; ++i)
          ASSERT_TRUE(check.check("den0", &adm::Kernels::den0, fmt::format("w {} row {}", w, i), [&](auto fn) {
            const adm::DenRowSums r = fn(src.cview(), i, 0, w);
            return std::make_tuple(r.h, r.v, r.d);
          }));
      }
      // Scales 1..3: uint32 factors (csf mode 1 has some above 2^31).
      for (const u32 f0 : {0x9a3c0000u, 0xffffffffu, any32(rng), 12345u}) {
        const u32 rf[3] = {f0, any32(rng), any32(rng) >> 3};
        for (i64 range : {i64{1} << 16, i64{1} << 31}) {
          const auto src = random_bands<i32>(w, h, fill, rng, -range, range - 1);
          const auto zero = random_bands<i32>(w, h, Fill::small, rng, 0, 0);
          const auto csf = [&](auto fn) {
            auto dst = zero, flt = zero;
            for (int b = 0; b < 3; ++b)
              for (int i = 0; i < h; ++i) {
                const std::ptrdiff_t off = i * src.stride;
                fn(band_of(src, b).data() + off, rf[b], 0, w, band_of(dst, b).data() + off,
                   band_of(flt, b).data() + off);
              }
            return std::make_tuple(dst.h, dst.v, dst.d, flt.h, flt.v, flt.d);
          };
          ASSERT_TRUE(check.check("csf_s123", &adm::Kernels::csf_s123, fmt::format("w {}", w), csf));
          auto dst_s = zero, flt_s = zero;
          std::tie(dst_s.h, dst_s.v, dst_s.d, flt_s.h, flt_s.v, flt_s.d) = csf(adm::scalar_kernels().csf_s123);
          // Masking inputs straight from the random generator too (any int32 threshold terms).
          const auto scored = random_bands<i32>(w, h, fill, rng, -range, range - 1);
          const auto ang = random_bands<i32>(w, h, fill, rng, INT32_MIN, INT32_MAX);
          const auto flt = random_bands<i32>(w, h, fill, rng, -range, range - 1);
          const u32 shift_cub = adm::ceil_log2(static_cast<u64>(w < 64 ? 64 : w));  // terms < 2^56, as above
          const i64 add_cub = adm::half_of_pow2(shift_cub);
          for (int i = 0; i < h; ++i) {
            for (int source = 0; source < 2; ++source) {
              const TestBands<i32>& fl = source == 0 ? flt_s : flt;
              const TestBands<i32>& an = source == 0 ? dst_s : ang;
              for (const auto& [j0, j1] : column_windows(w))
                ASSERT_TRUE(check.check("cm_s123", &adm::Kernels::cm_s123, fmt::format("w {} row {}", w, i),
                                        [&](auto fn) {
                                          const adm::CmRowSums r = fn(scored.cview(), an.cview(), fl.cview(), rf, w,
                                                                      h, i, j0, j1, shift_cub, add_cub);
                                          return std::make_tuple(r.h, r.v, r.d);
                                        }));
            }
            for (u32 shift_sq : {30u, 31u})
              ASSERT_TRUE(check.check("den_s123", &adm::Kernels::den_s123, fmt::format("w {} row {}", w, i),
                                      [&](auto fn) {
                                        const adm::DenRowSums r =
                                            fn(src.cview(), i, 0, w, shift_sq, shift_cub, u64(add_cub));
                                        return std::make_tuple(r.h, r.v, r.d);
                                      }));
          }
        }
      }
    }
}

// Every entry of every SIMD table against the scalar table (the harness
// fails if an entry is left out).
TEST(AdmSimdKernels, EveryEntryEqualsScalar) {
  Check check(&adm::kernels_for);
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU";
  std::mt19937_64 rng(1);
  check_dwt0(check, rng);
  check_dwt_s123(check, rng);
  check_dwt1(check, rng);
  check_decouple(check, rng);
  check_csf_cm_den(check, rng);
  std::printf("[ simd ] %llu adm table checks\n", static_cast<unsigned long long>(check.checks()));
}

// ---- the whole feature --------------------------------------------------------------

// `features` on the two readers of make() at every SIMD level: the bits of scalar.
template <class MakeReaders>
void expect_features_agree(MakeReaders make, const std::vector<std::string>& features, const std::string& what) {
  expect_levels_agree(
      [&] {
        auto [ref, dist] = make();
        std::vector<FeatureRequest> req;
        for (const auto& f : features) req.push_back(parse_feature_request(f));
        return run(*ref, *dist, std::move(req), {});
      },
      what);
}

TEST(AdmSimdFeature, RandomFramesEveryLevelSameBits) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  struct Size {
    unsigned w, h;
  };
  const Size sizes[] = {{33, 33}, {35, 47}, {64, 36}, {97, 61}, {161, 90}, {300, 200}};
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size sz : sizes)
      for (int pattern = 0; pattern < 3; ++pattern) {
        const VideoFormat fmt{sz.w, sz.h, PixelFormat::yuv420, bpc};
        const unsigned max = (1u << bpc) - 1;
        // 0: random noise vs a noisier copy; 1: 0/max checkerboards (wrapping paths); 2: smooth gradients.
        const auto sample = [=](std::uint64_t frame, unsigned plane, unsigned x, unsigned y, bool dist) -> unsigned {
          std::uint64_t hsh = (frame * 0x9e3779b97f4a7c15ull) ^ (x * 0xbf58476d1ce4e5b9ull) ^
                              (y * 0x94d049bb133111ebull) ^ plane;
          hsh ^= hsh >> 29;
          hsh *= 0xbf58476d1ce4e5b9ull;
          hsh ^= hsh >> 32;
          if (pattern == 0) {
            const unsigned v = static_cast<unsigned>(hsh % (max + 1u));
            return dist ? (v + static_cast<unsigned>((hsh >> 20) % 9u)) % (max + 1u) : v;
          }
          if (pattern == 1) {
            const bool on = ((x + y + (dist ? (hsh >> 40) % 2 : 0)) & 1) != 0;
            return on ? max : 0u;
          }
          const unsigned v = (x * 37u + y * 11u + static_cast<unsigned>(frame) * 5u) % (max + 1u);
          return dist ? (v + static_cast<unsigned>(hsh % 3u)) % (max + 1u) : v;
        };
        const auto make = [&] {
          return std::make_pair(
              std::make_unique<SyntheticReader>("ref", fmt, 2,
                                                [=](auto f, auto p, auto x, auto y) { return sample(f, p, x, y, false); }),
              std::make_unique<SyntheticReader>("dist", fmt, 2,
                                                [=](auto f, auto p, auto x, auto y) { return sample(f, p, x, y, true); }));
        };
        expect_features_agree(make,
                            {"adm=debug=true", "adm=adm_enhn_gain_limit=1.2:adm_csf_mode=1:debug=true",
                             "adm=adm_enhn_gain_limit=1.0:adm_csf_mode=3:adm_skip_scale0=true"},
                            fmt::format("{}x{} {}-bit pattern {}", sz.w, sz.h, bpc, pattern));
      }
}

TEST(AdmSimdFeature, FixturesWithGoldenOptionSetsSameBits) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  const std::vector<std::string> option_sets = {
      "adm",
      "adm=debug=true",
      "adm=adm_enhn_gain_limit=1.0",
      "adm=adm_enhn_gain_limit=1.2:debug=true",
      "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=1.5:"
      "adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2",
      "adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=3.0:"
      "adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2",
      "adm=adm_skip_scale0=true:adm_skip_aim=true:debug=true",
      "adm=adm_csf_mode=1",
      "adm=adm_csf_mode=3:adm_csf_scale=1.5:adm_csf_diag_scale=0.8"};
  const auto pairs = fixture_pairs();
  ASSERT_FALSE(pairs.empty());
  for (const auto& pair : pairs) {
    const auto make = [&] { return std::make_pair(open_fixture(pair, true), open_fixture(pair, false)); };
    expect_features_agree(make, option_sets, pair.name);
  }
}

}  // namespace
}  // namespace exactvmaf::test
