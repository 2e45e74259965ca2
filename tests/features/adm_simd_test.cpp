// Integer ADM's SIMD kernels (adm_simd.hpp) against the scalar row functions
// of adm_math.hpp, bit for bit: every kernel on random rows of many widths
// with full-range, small and extreme (min/max checkerboard) values, which
// reach the int16/int32 wrapping paths; then the whole feature at every SIMD
// level on random frames of odd sizes and bit depths, and on every fixture
// pair with the golden option sets.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>
#include <vector>

#include "exactvmaf/simd.hpp"
#include "features/adm/adm_math.hpp"
#include "features/adm/adm_simd.hpp"
#include "support/simd_limit.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

using adm::i16;
using adm::i32;
using adm::i64;
using adm::u32;
using adm::u64;

enum class Fill { full, small, extreme, mixed };
const Fill all_fills[] = {Fill::full, Fill::small, Fill::extreme, Fill::mixed};

template <class T>
std::vector<T> random_values(std::size_t n, Fill fill, std::mt19937_64& rng, i64 lo, i64 hi) {
  std::vector<T> v(n);
  std::uniform_int_distribution<i64> full(lo, hi), small(-300, 300), coin(0, 3);
  for (std::size_t k = 0; k < n; ++k) {
    i64 x = 0;
    switch (fill) {
      case Fill::full: x = full(rng); break;
      case Fill::small: x = small(rng); break;
      case Fill::extreme: x = ((k + k / 7) & 1) ? hi : lo; break;
      case Fill::mixed: {
        const i64 c = coin(rng);
        x = c == 0 ? full(rng) : c == 1 ? small(rng) : c == 2 ? (full(rng) & 1 ? hi : lo) : 0;
        break;
      }
    }
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    v[k] = static_cast<T>(x);
  }
  return v;
}

const int widths[] = {1, 5, 9, 16, 17, 33, 40, 63, 64, 65, 100, 131, 257, 600};

TEST(AdmSimdKernels, Dwt0EqualsScalar) {
  const auto levels = simd_levels();
  if (levels.empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  const adm::Kernels& s = adm::scalar_kernels();
  std::mt19937_64 rng(1);
  for (SimdLevel level : levels) {
    const adm::Kernels& k = adm::kernels_for(level);
    for (unsigned bpc : {8u, 10u, 12u, 16u}) {
      const i64 max = (i64{1} << bpc) - 1;
      for (int w : {5, 9, 17, 33, 40, 64, 65, 131, 257}) {
        const int h = 9;
        for (Fill fill : all_fills) {
          const auto stride = static_cast<std::ptrdiff_t>(w + 3);
          const auto plane = random_values<std::uint16_t>(static_cast<std::size_t>(stride * h), fill, rng, 0, max);
          std::vector<std::uint8_t> plane8(plane.begin(), plane.end());
          for (int i = 0; i < adm::band_size(h); ++i) {
            std::vector<i16> lo_s(w), hi_s(w), lo_k(w), hi_k(w);
            for (bool with_hi : {true, false}) {
              if (bpc == 8) {
                s.dwt0_vertical_u8(plane8.data(), stride, w, h, i, bpc, lo_s.data(), with_hi ? hi_s.data() : nullptr);
                k.dwt0_vertical_u8(plane8.data(), stride, w, h, i, bpc, lo_k.data(), with_hi ? hi_k.data() : nullptr);
              } else {
                s.dwt0_vertical_u16(plane.data(), stride, w, h, i, bpc, lo_s.data(), with_hi ? hi_s.data() : nullptr);
                k.dwt0_vertical_u16(plane.data(), stride, w, h, i, bpc, lo_k.data(), with_hi ? hi_k.data() : nullptr);
              }
              ASSERT_EQ(lo_s, lo_k) << k.name << " bpc " << bpc << " w " << w << " row " << i;
              ASSERT_EQ(hi_s, hi_k) << k.name << " bpc " << bpc << " w " << w << " row " << i;
            }
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
        for (bool with_hi : {true, false}) {
          std::vector<i16> out_s(4 * bw, 7), out_k(4 * bw, 7);
          s.dwt0_horizontal(lo.data(), with_hi ? hi.data() : nullptr, w, out_s.data(), out_s.data() + bw,
                            out_s.data() + 2 * bw, out_s.data() + 3 * bw);
          k.dwt0_horizontal(lo.data(), with_hi ? hi.data() : nullptr, w, out_k.data(), out_k.data() + bw,
                            out_k.data() + 2 * bw, out_k.data() + 3 * bw);
          ASSERT_EQ(out_s, out_k) << k.name << " w " << w;
        }
      }
    }
  }
}

TEST(AdmSimdKernels, DwtScales123EqualScalar) {
  const auto levels = simd_levels();
  if (levels.empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  const adm::Kernels& s = adm::scalar_kernels();
  std::mt19937_64 rng(2);
  for (SimdLevel level : levels) {
    const adm::Kernels& k = adm::kernels_for(level);
    for (int scale = 1; scale <= 3; ++scale)
      for (int w : widths) {
        if (w < 5) continue;
        for (Fill fill : all_fills) {
          const int h = 7;
          const auto stride = static_cast<std::ptrdiff_t>(w + 1);
          const auto plane =
              random_values<i32>(static_cast<std::size_t>(stride * h), fill, rng, INT32_MIN, INT32_MAX);
          for (int i = 0; i < adm::band_size(h); ++i) {
            std::vector<i32> lo_s(w), hi_s(w), lo_k(w), hi_k(w);
            s.dwt_vertical(plane.data(), stride, w, h, i, scale, lo_s.data(), hi_s.data());
            k.dwt_vertical(plane.data(), stride, w, h, i, scale, lo_k.data(), hi_k.data());
            ASSERT_EQ(lo_s, lo_k) << k.name << " scale " << scale << " w " << w;
            ASSERT_EQ(hi_s, hi_k) << k.name << " scale " << scale << " w " << w;
            const auto bw = static_cast<std::size_t>(adm::band_size(w));
            std::vector<i32> out_s(4 * bw), out_k(4 * bw);
            s.dwt_horizontal(lo_s.data(), hi_s.data(), w, scale, out_s.data(), out_s.data() + bw,
                             out_s.data() + 2 * bw, out_s.data() + 3 * bw);
            k.dwt_horizontal(lo_s.data(), hi_s.data(), w, scale, out_k.data(), out_k.data() + bw,
                             out_k.data() + 2 * bw, out_k.data() + 3 * bw);
            ASSERT_EQ(out_s, out_k) << k.name << " scale " << scale << " w " << w;
          }
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

TEST(AdmSimdKernels, DecoupleEqualsScalar) {
  const auto levels = simd_levels();
  if (levels.empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  const adm::Kernels& s = adm::scalar_kernels();
  const i32* lookup = lookup_table();
  std::mt19937_64 rng(3);
  for (SimdLevel level : levels) {
    const adm::Kernels& k = adm::kernels_for(level);
    for (int w : widths)
      for (Fill fill : all_fills)
        for (double gain : {1.0, 1.1, 1.2, 100.0, 1.7}) {
          const int h = 3;
          {
            const auto ref = random_bands<i16>(w, h, fill, rng, -32768, 32767);
            const auto dis = (w & 1) ? near(ref, rng, -32768, 32767) : random_bands<i16>(w, h, fill, rng, -32768, 32767);
            auto rs = random_bands<i16>(w, h, Fill::small, rng, 0, 0), as = rs, rk = rs, ak = rs;
            for (int i = 0; i < h; ++i) {
              s.decouple0(ref.cview(), dis.cview(), i, 0, w, gain, lookup, rs.view(), as.view());
              k.decouple0(ref.cview(), dis.cview(), i, 0, w, gain, lookup, rk.view(), ak.view());
            }
            ASSERT_TRUE(rs.h == rk.h && rs.v == rk.v && rs.d == rk.d) << k.name << " w " << w << " gain " << gain;
            ASSERT_TRUE(as.h == ak.h && as.v == ak.v && as.d == ak.d) << k.name << " w " << w << " gain " << gain;
          }
          for (i64 range : {i64{1} << 20, i64{1} << 31}) {
            const auto ref = random_bands<i32>(w, h, fill, rng, -range, range - 1);
            const auto dis = (w & 1) ? near(ref, rng, -range, range - 1) : random_bands<i32>(w, h, fill, rng, -range, range - 1);
            auto rs = random_bands<i32>(w, h, Fill::small, rng, 0, 0), as = rs, rk = rs, ak = rs;
            for (int i = 0; i < h; ++i) {
              s.decouple_s123(ref.cview(), dis.cview(), i, 1, w, gain, lookup, rs.view(), as.view());
              k.decouple_s123(ref.cview(), dis.cview(), i, 1, w, gain, lookup, rk.view(), ak.view());
            }
            ASSERT_TRUE(rs.h == rk.h && rs.v == rk.v && rs.d == rk.d) << k.name << " w " << w << " gain " << gain;
            ASSERT_TRUE(as.h == ak.h && as.v == ak.v && as.d == ak.d) << k.name << " w " << w << " gain " << gain;
          }
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

TEST(AdmSimdKernels, CsfCmAndDenominatorEqualScalar) {
  const auto levels = simd_levels();
  if (levels.empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  const adm::Kernels& s = adm::scalar_kernels();
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<u32> any32;
  for (SimdLevel level : levels) {
    const adm::Kernels& k = adm::kernels_for(level);
    for (int w : widths)
      for (Fill fill : all_fills) {
        const int h = 5;
        // Scale 0: uint16 factors (default ones, the largest, random).
        for (const u32 f0 : {36453u, 65535u, any32(rng) & 0xffffu, 1u}) {
          const u32 rf[3] = {f0, f0 == 36453u ? 36453u : any32(rng) & 0xffffu, f0 == 36453u ? 49417u : f0};
          const auto src = random_bands<i16>(w, h, fill, rng, -32768, 32767);
          auto dst_s = random_bands<i16>(w, h, Fill::small, rng, 0, 0), flt_s = dst_s, dst_k = dst_s, flt_k = dst_s;
          for (int b = 0; b < 3; ++b)
            for (int i = 0; i < h; ++i) {
              const std::ptrdiff_t off = i * src.stride;
              const i16* in = (b == 0 ? src.h : b == 1 ? src.v : src.d).data() + off;
              auto pick = [&](TestBands<i16>& t) { return (b == 0 ? t.h : b == 1 ? t.v : t.d).data() + off; };
              s.csf0(in, rf[b], b, 0, w, pick(dst_s), pick(flt_s));
              k.csf0(in, rf[b], b, 0, w, pick(dst_k), pick(flt_k));
            }
          ASSERT_TRUE(dst_s.h == dst_k.h && dst_s.v == dst_k.v && dst_s.d == dst_k.d) << k.name << " w " << w;
          ASSERT_TRUE(flt_s.h == flt_k.h && flt_s.v == flt_k.v && flt_s.d == flt_k.d) << k.name << " w " << w;
          const auto scored = random_bands<i16>(w, h, fill, rng, -32768, 32767);
          // Cube shifts of a 1024-wide band: each term stays below 2^56, so the
          // scalar int64 sums of the column windows below cannot overflow
          // even for extreme values (they would over whole rows).
          const adm::Cm0Shifts cs = adm::cm0_shifts(1024);
          for (int i = 0; i < h; ++i)
            for (const auto& [j0, j1] : column_windows(w)) {
              const adm::CmRowSums a = s.cm0(scored.cview(), dst_s.cview(), flt_s.cview(), rf, w, h, i, j0, j1, cs);
              const adm::CmRowSums b = k.cm0(scored.cview(), dst_s.cview(), flt_s.cview(), rf, w, h, i, j0, j1, cs);
              ASSERT_TRUE(a.h == b.h && a.v == b.v && a.d == b.d)
                  << k.name << " w " << w << " row " << i << " columns " << j0 << ".." << j1;
            }
          for (int i = 0; i < h; ++i) {
            const adm::DenRowSums a = s.den0(src.cview(), i, 0, w), b = k.den0(src.cview(), i, 0, w);
            ASSERT_TRUE(a.h == b.h && a.v == b.v && a.d == b.d) << k.name << " w " << w;
          }
        }
        // Scales 1..3: uint32 factors (csf mode 1 has some above 2^31).
        for (const u32 f0 : {0x9a3c0000u, 0xffffffffu, any32(rng), 12345u}) {
          const u32 rf[3] = {f0, any32(rng), any32(rng) >> 3};
          for (i64 range : {i64{1} << 16, i64{1} << 31}) {
            const auto src = random_bands<i32>(w, h, fill, rng, -range, range - 1);
            auto dst_s = random_bands<i32>(w, h, Fill::small, rng, 0, 0), flt_s = dst_s, dst_k = dst_s,
                 flt_k = dst_s;
            for (int b = 0; b < 3; ++b)
              for (int i = 0; i < h; ++i) {
                const std::ptrdiff_t off = i * src.stride;
                const i32* in = (b == 0 ? src.h : b == 1 ? src.v : src.d).data() + off;
                auto pick = [&](TestBands<i32>& t) { return (b == 0 ? t.h : b == 1 ? t.v : t.d).data() + off; };
                s.csf_s123(in, rf[b], 0, w, pick(dst_s), pick(flt_s));
                k.csf_s123(in, rf[b], 0, w, pick(dst_k), pick(flt_k));
              }
            ASSERT_TRUE(dst_s.h == dst_k.h && dst_s.v == dst_k.v && dst_s.d == dst_k.d) << k.name << " w " << w;
            ASSERT_TRUE(flt_s.h == flt_k.h && flt_s.v == flt_k.v && flt_s.d == flt_k.d) << k.name << " w " << w;
            // Masking inputs straight from the random generator too (any int32 threshold terms).
            const auto scored = random_bands<i32>(w, h, fill, rng, -range, range - 1);
            const auto ang = random_bands<i32>(w, h, fill, rng, INT32_MIN, INT32_MAX);
            const auto flt = random_bands<i32>(w, h, fill, rng, -range, range - 1);
            const u32 shift_cub = adm::ceil_log2(static_cast<u64>(w < 64 ? 64 : w));  // terms < 2^56, as above
            const i64 add_cub = adm::half_of_pow2(shift_cub);
            for (int i = 0; i < h; ++i) {
              for (int source = 0; source < 2; ++source) {
                const TestBands<i32>* fl = source == 0 ? &flt_s : &flt;
                const TestBands<i32>& an = source == 0 ? dst_s : ang;
                for (const auto& [j0, j1] : column_windows(w)) {
                  const adm::CmRowSums a =
                      s.cm_s123(scored.cview(), an.cview(), fl->cview(), rf, w, h, i, j0, j1, shift_cub, add_cub);
                  const adm::CmRowSums b =
                      k.cm_s123(scored.cview(), an.cview(), fl->cview(), rf, w, h, i, j0, j1, shift_cub, add_cub);
                  ASSERT_TRUE(a.h == b.h && a.v == b.v && a.d == b.d) << k.name << " w " << w << " row " << i;
                }
              }
              for (u32 shift_sq : {30u, 31u}) {
                const adm::DenRowSums a = s.den_s123(src.cview(), i, 0, w, shift_sq, shift_cub, u64(add_cub));
                const adm::DenRowSums b = k.den_s123(src.cview(), i, 0, w, shift_sq, shift_cub, u64(add_cub));
                ASSERT_TRUE(a.h == b.h && a.v == b.v && a.d == b.d) << k.name << " w " << w;
              }
            }
          }
        }
      }
  }
}

// ---- the whole feature --------------------------------------------------------------

// Runs `feature` on the two readers at every SIMD level and requires the
// same bits as scalar.
template <class MakeReaders>
void expect_levels_agree(MakeReaders make, const std::vector<std::string>& features, const std::string& what) {
  RunResult scalar;
  {
    SimdLimit cap(SimdLevel::scalar);
    auto [ref, dist] = make();
    std::vector<FeatureRequest> req;
    for (const auto& f : features) req.push_back(parse_feature_request(f));
    scalar = run(*ref, *dist, std::move(req), {});
  }
  for (SimdLevel level : simd_levels()) {
    SimdLimit cap(level);
    auto [ref, dist] = make();
    std::vector<FeatureRequest> req;
    for (const auto& f : features) req.push_back(parse_feature_request(f));
    const RunResult r = run(*ref, *dist, std::move(req), {});
    ASSERT_EQ(r.frames, scalar.frames);
    ASSERT_EQ(r.scores.metric_count(), scalar.scores.metric_count());
    for (std::size_t id = 0; id < r.scores.metric_count(); ++id)
      for (std::uint64_t f = 0; f < r.frames; ++f)
        ASSERT_TRUE(same_bits(*r.scores.get(id, f), *scalar.scores.get(id, f)))
            << what << " " << simd_level_name(level) << " " << r.scores.metric_name(id) << " frame " << f << ": "
            << *r.scores.get(id, f) << " vs " << *scalar.scores.get(id, f);
  }
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
        expect_levels_agree(make,
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
    expect_levels_agree(make, option_sets, pair.name);
  }
}

}  // namespace
}  // namespace exactvmaf::test
