// ciede's SIMD kernel table (ciede_simd.hpp) against the scalar formula
// ciede2000<HostMath> bit for bit (support/simd_check.hpp's model): Lab pairs
// from random 8/10/12/16-bit colours through lab_from_yuv, raw random Lab
// floats in and beyond the formula's ranges, and edge cases (equal L, a or
// b, zero chroma, hues at the 0 / 2 pi and pi wraps, near-identical colours,
// tiny and huge values, signed zeros). The first difference is reported
// with the pair's floats in hex. Then whole runs on noise content at every
// SIMD level against scalar (the batching in ciede_cpu.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/simd.hpp"
#include "features/ciede/ciede_math.hpp"
#include "features/ciede/ciede_simd.hpp"
#include "support/simd_check.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

using ciede::Lab;

std::string hex(float x) { return fmt::format("{:a} (0x{:08x})", x, std::bit_cast<std::uint32_t>(x)); }

// Feeds pairs in batches to every SIMD table this CPU runs and compares each
// value with the scalar formula.
class PairChecker {
 public:
  PairChecker() {
    for (SimdLevel l : simd_levels()) {
      const ciede::Kernels* t = &ciede::kernels_for(l);
      if (t != &ciede::scalar_kernels() && (tables_.empty() || tables_.back() != t)) tables_.push_back(t);
    }
  }
  bool has_simd() const { return !tables_.empty(); }
  // Batch sizes in turn: full batches and partial ones whose last pairs
  // (n % lanes) run in a padded vector.
  static constexpr std::size_t kSizes[] = {ciede::kBatch, ciede::kBatch - 1, 5, 77, 1, 8, 3, 120};
  void vary_sizes() { vary_sizes_ = true; }

  void add(const Lab& r, const Lab& d) {
    if (failed_) return;
    batch_.l1[n_] = r.l;
    batch_.a1[n_] = r.a;
    batch_.b1[n_] = r.b;
    batch_.l2[n_] = d.l;
    batch_.a2[n_] = d.a;
    batch_.b2[n_] = d.b;
    if (++n_ == (vary_sizes_ ? kSizes[size_index_ % std::size(kSizes)] : ciede::kBatch)) {
      flush();
      ++size_index_;
    }
  }
  void flush() {
    if (n_ == 0 || failed_) return;
    float want[ciede::kBatch], got[ciede::kBatch];
    ciede::HostMath m;
    for (std::size_t i = 0; i < n_; ++i)
      want[i] = ciede::ciede2000(Lab{batch_.l1[i], batch_.a1[i], batch_.b1[i]},
                                 Lab{batch_.l2[i], batch_.a2[i], batch_.b2[i]}, m);
    for (const ciede::Kernels* t : tables_) {
      scalar_ += t->delta_e(batch_, n_, got);
      for (std::size_t i = 0; i < n_ && !failed_; ++i) {
        if (std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(want[i])) continue;
        failed_ = true;
        ADD_FAILURE() << t->name << " differs from the scalar formula at pair " << compared_ + i << ": ref Lab ("
                      << hex(batch_.l1[i]) << ", " << hex(batch_.a1[i]) << ", " << hex(batch_.b1[i]) << "), dist Lab ("
                      << hex(batch_.l2[i]) << ", " << hex(batch_.a2[i]) << ", " << hex(batch_.b2[i]) << "): "
                      << hex(got[i]) << " vs scalar " << hex(want[i]);
      }
    }
    compared_ += n_;
    n_ = 0;
  }
  std::uint64_t compared() const { return compared_; }
  // Of the pairs compared (per table), those the vector code left undecided.
  double undecided_fraction() const {
    return compared_ == 0 ? 0.0 : static_cast<double>(scalar_) / static_cast<double>(compared_ * tables_.size());
  }
  bool failed() const { return failed_; }

 private:
  std::vector<const ciede::Kernels*> tables_;
  ciede::LabPairs batch_{};
  std::size_t n_ = 0;
  std::size_t size_index_ = 0;
  bool vary_sizes_ = false;
  std::uint64_t compared_ = 0, scalar_ = 0;
  bool failed_ = false;
};

// Pairs from random colours through lab_from_yuv: random pairs, nearby
// pairs (the distorted colour a few codes away, as in video), and greys.
void add_yuv_pairs(PairChecker& check, unsigned bpc, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const ciede::LabScale s = ciede::lab_scale(bpc);
  const unsigned maxv = (1u << bpc) - 1, mid = 1u << (bpc - 1);
  std::uniform_int_distribution<unsigned> any(0, maxv), step(0, 8 << (bpc - 8));
  ciede::HostMath m;
  for (int i = 0; i < count; ++i) {
    unsigned c[6];
    for (auto& v : c) v = any(rng);
    if (i % 3 == 1)
      for (int k = 0; k < 3; ++k) c[3 + k] = std::min(maxv, c[k] + step(rng));
    if (i % 7 == 2) c[1] = c[2] = c[4] = c[5] = mid;
    if (i % 11 == 3) c[1] = c[4] = mid;  // u at the centre: a, b from v only
    const Lab a = ciede::lab_from_yuv(c[0], c[1], c[2], s, m), b = ciede::lab_from_yuv(c[3], c[4], c[5], s, m);
    check.add(a, b);
  }
}

float next_up(float x, int ulps) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(x)) + ulps));
}

// Raw Lab floats: the formula's ranges, beyond them, and their edges.
void add_lab_pairs(PairChecker& check, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> lum(0.0f, 100.0f), chroma(-128.0f, 128.0f), wide(-1000.0f, 1000.0f),
      tiny(-1e-3f, 1e-3f);
  std::uniform_int_distribution<int> ulps(-4, 4), pick(0, 15);
  const float specials[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 1e-19f, -1e-19f,
                            1e-6f, -1e-6f, 128.0f, -128.0f, 1e4f, -1e4f, 1e19f, -1e19f};
  auto special = [&] { return specials[pick(rng)]; };
  for (int i = 0; i < count; ++i) {
    Lab r{lum(rng), chroma(rng), chroma(rng)}, d{lum(rng), chroma(rng), chroma(rng)};
    switch (i % 16) {
      case 0: break;
      case 1: d.l = r.l; break;                       // equal L
      case 2: d.a = r.a; d.b = r.b; break;           // equal a, b
      case 3: r.a = 0.0f; d.b = 0.0f; break;         // a or b zero
      case 4: r.a = r.b = 0.0f; break;               // zero chroma on one side
      case 5: r.a = r.b = d.a = d.b = 0.0f; break;   // both
      case 6: r.b = tiny(rng); d.b = -tiny(rng); r.a = std::abs(r.a); d.a = std::abs(d.a); break;  // hue near 0 / 2 pi
      case 7: r.b = tiny(rng); d.b = -tiny(rng); r.a = -std::abs(r.a); d.a = -std::abs(d.a); break;  // near pi
      case 8: d = {next_up(r.l, ulps(rng)), next_up(r.a, ulps(rng)), next_up(r.b, ulps(rng))}; break;  // near-identical
      case 9: d = r; d.b = next_up(r.b, 1); break;
      case 10: r = {wide(rng), wide(rng), wide(rng)}; d = {wide(rng), wide(rng), wide(rng)}; break;
      case 11: r.a = special(); r.b = special(); break;
      case 12: r.a = special(); d.b = special(); d.a = special(); break;
      case 13: r.l = special(); d.l = special(); break;
      case 14: r.a = -0.0f; r.b = 0.0f; d.a = 0.0f; d.b = -0.0f; break;
      default: r = {tiny(rng), tiny(rng), tiny(rng)}; d = {tiny(rng), tiny(rng), tiny(rng)}; break;
    }
    check.add(r, d);
  }
}

TEST(CiedeSimd, BatchKernelEqualsScalarFormula) {
  PairChecker check;
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU (ciede has an AVX2 kernel)";
  add_yuv_pairs(check, 8, 400000, 1);
  add_yuv_pairs(check, 10, 200000, 2);
  add_yuv_pairs(check, 12, 50000, 3);
  add_yuv_pairs(check, 16, 50000, 4);
  add_lab_pairs(check, 400000, 5);
  check.flush();
  ASSERT_FALSE(check.failed());
  EXPECT_EQ(check.compared(), 1100000u);
  std::printf("[ simd ] %llu pairs bit for bit; undecided (scalar formula): %.5f %%\n",
              static_cast<unsigned long long>(check.compared()), 100.0 * check.undecided_fraction());
  // The edge-case pairs (a quarter of the raw ones) go to the scalar formula
  // more often; the shortcuts decide almost every pair of real colours.
  EXPECT_LT(check.undecided_fraction(), 0.05);
}

TEST(CiedeSimd, YuvColoursAreAlmostAllDecided) {
  PairChecker check;
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU (ciede has an AVX2 kernel)";
  add_yuv_pairs(check, 8, 100000, 11);
  check.flush();
  ASSERT_FALSE(check.failed());
  std::printf("[ simd ] 8-bit colour pairs: undecided %.5f %%\n", 100.0 * check.undecided_fraction());
  EXPECT_LT(check.undecided_fraction(), 0.001);
}

// The Lab kernels (lab_from_yuv's shortcut in vectors, used without the
// 8-bit table) against the scalar function, bit for bit: random samples of
// every bit depth, the range's ends and the limited range's edges, in
// batches of every size from 1 to kBatch.
TEST(CiedeSimd, LabBatchEqualsScalarLab) {
  std::vector<const ciede::Kernels*> tables;
  for (SimdLevel l : simd_levels()) {
    const ciede::Kernels* t = &ciede::kernels_for(l);
    if (t != &ciede::scalar_kernels() && (tables.empty() || tables.back() != t)) tables.push_back(t);
  }
  if (tables.empty()) GTEST_SKIP() << "no SIMD level on this CPU (ciede has AVX2 and AVX-512 kernels)";
  std::mt19937 rng(31);
  std::uint64_t compared = 0, scalar = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const ciede::LabScale s = ciede::lab_scale(bpc);
    const unsigned max = (1u << bpc) - 1, k = 1u << (bpc - 8);
    const unsigned edges[] = {0u, max, 16 * k, 235 * k, 240 * k, 128 * k, 16 * k - 1, 240 * k + 1};
    for (int round = 0; round < 2000; ++round) {
      const std::size_t n = 1 + static_cast<std::size_t>(round) % ciede::kBatch;
      std::uint32_t y[ciede::kBatch], u[ciede::kBatch], v[ciede::kBatch];
      for (std::size_t i = 0; i < n; ++i) {
        const bool edge = rng() % 8 == 0;
        y[i] = edge ? edges[rng() % 8] : rng() % (max + 1);
        u[i] = edge ? edges[rng() % 8] : rng() % (max + 1);
        v[i] = edge ? edges[rng() % 8] : rng() % (max + 1);
      }
      float l[ciede::kBatch], a[ciede::kBatch], b[ciede::kBatch];
      ciede::HostMath m;
      for (const ciede::Kernels* t : tables) {
        scalar += t->lab(y, u, v, n, s, l, a, b);
        for (std::size_t i = 0; i < n; ++i) {
          const ciede::Lab want = ciede::lab_from_yuv(y[i], u[i], v[i], s, m);
          ASSERT_TRUE(std::bit_cast<std::uint32_t>(l[i]) == std::bit_cast<std::uint32_t>(want.l) &&
                      std::bit_cast<std::uint32_t>(a[i]) == std::bit_cast<std::uint32_t>(want.a) &&
                      std::bit_cast<std::uint32_t>(b[i]) == std::bit_cast<std::uint32_t>(want.b))
              << t->name << " " << bpc << "-bit (" << y[i] << ", " << u[i] << ", " << v[i] << "): " << hex(l[i]) << " "
              << hex(a[i]) << " " << hex(b[i]) << " against " << hex(want.l) << " " << hex(want.a) << " "
              << hex(want.b);
        }
        compared += n;
      }
    }
  }
  std::printf("[ simd ] %llu colours bit for bit; scalar (undecided lanes): %.3f %%\n",
              static_cast<unsigned long long>(compared), 100.0 * static_cast<double>(scalar) / static_cast<double>(compared));
  EXPECT_GT(compared, 500000u);
  EXPECT_LT(static_cast<double>(scalar), 0.01 * static_cast<double>(compared));  // padded tails: no scalar Lab
}

// Partial batches: the pairs past the last whole vector (n % lanes) run in a
// vector padded with the batch's first pair (127, 77, 5, 3 and 1 leave 1 to
// 31 of them).
TEST(CiedeSimd, PartialBatchesEqualScalarFormula) {
  PairChecker check;
  if (!check.has_simd()) GTEST_SKIP() << "no SIMD level on this CPU (ciede has an AVX2 kernel)";
  check.vary_sizes();
  add_yuv_pairs(check, 8, 50000, 21);
  add_lab_pairs(check, 50000, 22);
  check.flush();
  ASSERT_FALSE(check.failed());
  EXPECT_EQ(check.compared(), 100000u);
}

// Whole runs (the worker's batches, the pair cache, the 8-bit table and
// the direct Lab path) at every SIMD level give the scalar level's bits.
TEST(CiedeSimd, RunsAtEveryLevelEqualScalar) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  for (unsigned bpc : {8u, 10u}) {
    for (const char* feature : {"ciede", "ciede=lab_table=false:pair_cache=false"}) {
      VideoFormat fmt;
      fmt.width = 67;
      fmt.height = 35;
      fmt.bitdepth = bpc;
      fmt.pix_fmt = PixelFormat::yuv420;
      const RampNoiseContent content{(1u << bpc) - 1, fmt.width, 0};
      expect_levels_agree([&] { return run_synthetic_pair(fmt, content, 3, {feature}, {}); },
                          fmt::format("{} {}-bit", feature, bpc));
    }
  }
}

}  // namespace
}  // namespace exactvmaf::test
