// ciede, exhaustive checks (label long; a few minutes of CPU time, spread
// over the machine's cores):
//   - the lazily filled Lab table (filled through the Lab shortcut) returns
//     R's Lab (lab_from_yuv_r, R's functions for every call) for every colour;
//   - the formula gives exactly +0 for every colour against itself, which is
//     what lets identical pixel pairs skip it (docs/features/ciede.md);
//   - T's cosine shortcut equals R's T for every float hue in [0, 3 pi), and
//     R_T's 60 exp(-d^2) shortcut equals R's for every float d^2 in [0, 130];
//   - the formula with its shortcuts equals it without them on 10^7 pairs;
//   - on fp32 pairs (the fp64-free variant, PairMath): T and 60 exp(-d^2)
//     for every float hue and square as above (EXACTVMAF_PAIR_STRIDE: every
//     k-th float), R's value wherever decided, at most 1e-4 undecided.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "features/ciede/ciede_host.hpp"
#include "features/ciede/ciede_math.hpp"

namespace exactvmaf::test {
namespace {

// Runs same(bits) for every float bit pattern in [0, end) on every core;
// returns {checked, mismatches}.
template <class Same>
std::pair<std::uint64_t, std::uint64_t> count_float_mismatches(std::uint32_t end, Same same) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> mismatches{0}, checked{0};
  std::atomic<std::uint32_t> next{0};
  constexpr std::uint32_t kChunk = 1u << 16;
  auto work = [&] {
    ciede::HostMath m;
    std::uint64_t bad = 0, n = 0;
    for (std::uint32_t first; (first = next.fetch_add(kChunk)) < end;) {
      for (std::uint32_t b = first; b < std::min(end, first + kChunk); ++b) {
        bad += same(std::bit_cast<float>(b), m) ? 0 : 1;
        ++n;
      }
    }
    mismatches += bad;
    checked += n;
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return {checked.load(), mismatches.load()};
}

TEST(CiedeLong, LabTableAndIdenticalColoursOnEvery8BitColour) {
  ciede::LabTable8& table = ciede::LabTable8::instance();
  const ciede::LabScale s = ciede::lab_scale(8);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> table_mismatches{0}, nonzero{0}, checked{0};
  std::atomic<std::uint32_t> next{0};
  constexpr std::uint32_t kChunk = 1u << 14;
  auto work = [&] {
    ciede::HostMath m;
    ciede::HostMathNoShortcuts book;
    std::uint64_t bad = 0, nz = 0, n = 0;
    for (std::uint32_t first; (first = next.fetch_add(kChunk)) < ciede::kColours8;) {
      for (std::uint32_t c = first; c < first + kChunk; ++c) {
        const unsigned y = c >> 16, u = (c >> 8) & 255u, v = c & 255u;
        const ciede::Lab direct = ciede::lab_from_yuv_r(y, u, v, s, book);  // R's functions for every call
        const ciede::Lab t = table.get(y, u, v);
        bad += std::bit_cast<std::uint32_t>(direct.l) != std::bit_cast<std::uint32_t>(t.l) ||
               std::bit_cast<std::uint32_t>(direct.a) != std::bit_cast<std::uint32_t>(t.a) ||
               std::bit_cast<std::uint32_t>(direct.b) != std::bit_cast<std::uint32_t>(t.b);
        nz += std::bit_cast<std::uint32_t>(ciede::ciede2000(direct, direct, m)) != 0u ||
              std::bit_cast<std::uint32_t>(ciede::ciede2000(direct, direct, book)) != 0u;
        ++n;
      }
    }
    table_mismatches += bad;
    nonzero += nz;
    checked += n;
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  EXPECT_EQ(checked.load(), std::uint64_t{ciede::kColours8});
  EXPECT_EQ(table_mismatches.load(), 0u);
  EXPECT_EQ(nonzero.load(), 0u);
  EXPECT_EQ(table.filled_entries(), std::uint64_t{ciede::kColours8});
  std::printf("[ ciede ] %llu colours: table == direct, deltaE(c, c) == +0\n",
              static_cast<unsigned long long>(checked.load()));
}

// T (the four cosines of h_bar) through cos_approx and the rounding test
// equals T through R's cosines for every float h_bar in [0, 3 pi) (h_bar's
// whole range: a hue mean, plus pi when the hues are more than pi apart).
TEST(CiedeLong, UpcaseTShortcutOnEveryFloatHue) {
  const std::uint32_t end = std::bit_cast<std::uint32_t>(9.42477796f) + 1;
  const auto [checked, mismatches] = count_float_mismatches(end, [](float h, ciede::HostMath& m) {
    return std::bit_cast<std::uint32_t>(ciede::upcase_t(h, m)) == std::bit_cast<std::uint32_t>(ciede::upcase_t_r(h, m));
  });
  EXPECT_EQ(checked, std::uint64_t{end});
  EXPECT_EQ(mismatches, 0u);
  std::printf("[ ciede ] T shortcut: %llu floats, %llu mismatches\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(mismatches));
}

// The formula with the shortcuts against the formula without them (R's
// functions for every call) on EXACTVMAF_CIEDE_CPU_PAIRS random pairs
// (default 10^7) of 8 and 10 bits: independent, near-identical, neutral.
TEST(CiedeLong, FormulaWithShortcutsEqualsWithout) {
  const char* env = std::getenv("EXACTVMAF_CIEDE_CPU_PAIRS");
  const std::uint64_t pairs = env && *env ? std::strtoull(env, nullptr, 10) : 10000000ull;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> mismatches{0}, checked{0};
  std::atomic<std::uint64_t> next{0};
  constexpr std::uint64_t kChunk = 1u << 12;
  auto work = [&] {
    ciede::HostMath fast;
    ciede::HostMathNoShortcuts book;
    std::uint64_t bad = 0, n = 0;
    for (std::uint64_t first; (first = next.fetch_add(kChunk)) < pairs;) {
      for (std::uint64_t i = first; i < std::min(pairs, first + kChunk); ++i) {
        std::uint64_t st = i * 0x9e3779b97f4a7c15ull + 12345;
        auto rnd = [&st] {
          std::uint64_t z = (st += 0x9e3779b97f4a7c15ull);
          z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
          z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
          return z ^ (z >> 31);
        };
        const unsigned bpc = (i & 1) ? 10u : 8u, maxv = (1u << bpc) - 1, mid = 1u << (bpc - 1);
        unsigned c[6];
        for (auto& v : c) v = static_cast<unsigned>(rnd() & maxv);
        if (i % 3 == 1)
          for (int k = 0; k < 3; ++k) c[3 + k] = std::min(maxv, c[k] + static_cast<unsigned>(rnd() % 7));
        if (i % 3 == 2) c[1] = c[2] = c[4] = c[5] = mid + static_cast<unsigned>(rnd() % 2);
        const ciede::LabScale s = ciede::lab_scale(bpc);
        const ciede::Lab a = ciede::lab_from_yuv(c[0], c[1], c[2], s, fast), b = ciede::lab_from_yuv(c[3], c[4], c[5], s, fast);
        bad += std::bit_cast<std::uint32_t>(ciede::ciede2000(a, b, fast)) !=
               std::bit_cast<std::uint32_t>(ciede::ciede2000(a, b, book));
        ++n;
      }
    }
    mismatches += bad;
    checked += n;
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  EXPECT_EQ(checked.load(), pairs);
  EXPECT_EQ(mismatches.load(), 0u);
  std::printf("[ ciede ] shortcuts vs none: %llu pairs, %llu mismatches\n",
              static_cast<unsigned long long>(checked.load()), static_cast<unsigned long long>(mismatches.load()));
}

// f(60 exp(-d^2)) through exp_approx and the rounding test equals R's for
// every float d^2 in [0, 130] (d = (hue in degrees - 275) / 25 is within
// [-11, 11]).
// Runs result(float) for every stride-th float bit pattern in [0, end) on
// every core: 0 = R's value, 1 = another value, 2 = undecided.
struct PairCounts {
  std::uint64_t checked = 0, mismatches = 0, undecided = 0;
};
template <class Result>
PairCounts count_pair_decisions(std::uint32_t end, Result result) {
  const char* env = std::getenv("EXACTVMAF_PAIR_STRIDE");
  const std::uint32_t stride = env ? std::max(1u, static_cast<unsigned>(std::strtoul(env, nullptr, 10))) : 1u;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> mismatches{0}, checked{0}, undecided{0};
  std::atomic<std::uint32_t> next{0};
  const std::uint32_t chunk = stride << 12;
  auto work = [&] {
    std::uint64_t counts[3] = {0, 0, 0};
    for (std::uint32_t first; (first = next.fetch_add(chunk)) < end;)
      for (std::uint64_t b = first; b < std::min<std::uint64_t>(end, std::uint64_t{first} + chunk); b += stride)
        ++counts[result(std::bit_cast<float>(static_cast<std::uint32_t>(b)))];
    checked += counts[0] + counts[1] + counts[2];
    mismatches += counts[1];
    undecided += counts[2];
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return {checked.load(), mismatches.load(), undecided.load()};
}

// R's value wherever decided, at most 1e-4 undecided.
void expect_pair_counts(const char* what, const PairCounts& c) {
  std::printf("[ ciede ] %s: %llu floats, %llu mismatches, %llu undecided\n", what,
              static_cast<unsigned long long>(c.checked), static_cast<unsigned long long>(c.mismatches),
              static_cast<unsigned long long>(c.undecided));
  EXPECT_GT(c.checked, 0u) << what;
  EXPECT_EQ(c.mismatches, 0u) << what;
  EXPECT_LE(static_cast<double>(c.undecided), 1e-4 * static_cast<double>(c.checked)) << what;
}

// The mean hue is 0 or at least ~2^-30 (atan2 of a b of at least ~2^-21
// against an a' below ~300), so hues below 2^-40, whose arguments leave the
// pairs' range (undecided, replayed in Sf64), are not counted.
TEST(CiedeLong, UpcaseTPairsOnEveryFloatHue) {
  const std::uint32_t end = std::bit_cast<std::uint32_t>(9.42477796f) + 1;
  const PairCounts c = count_pair_decisions(end, [](float h) {
    if (h != 0.0f && h < 0x1p-40f) h = 0.0f;
    ciede::PairMath pm;
    const float v = ciede::upcase_t(h, pm);
    if (pm.undecided) return 2;
    ciede::HostMath m;
    return std::bit_cast<std::uint32_t>(v) == std::bit_cast<std::uint32_t>(ciede::upcase_t_r(h, m)) ? 0 : 1;
  });
  expect_pair_counts("T on pairs", c);
}

TEST(CiedeLong, SixtyExpPairsOnEveryFloatSquare) {
  const std::uint32_t end = std::bit_cast<std::uint32_t>(130.0f) + 1;
  const PairCounts c = count_pair_decisions(end, [](float d2) {
    ciede::PairMath pm;
    const float v = ciede::sixty_exp_to_float(rmath::PairF64(-d2), pm);
    if (pm.undecided) return 2;
    ciede::HostMath m;
    const float r = ciede::f(60.0 * m.exp_f64(-static_cast<double>(d2)));
    return std::bit_cast<std::uint32_t>(v) == std::bit_cast<std::uint32_t>(r) ? 0 : 1;
  });
  expect_pair_counts("60 exp on pairs", c);
}

TEST(CiedeLong, SixtyExpShortcutOnEveryFloatSquare) {
  const std::uint32_t end = std::bit_cast<std::uint32_t>(130.0f) + 1;
  const auto [checked, mismatches] = count_float_mismatches(end, [](float d2, ciede::HostMath& m) {
    const double x = -static_cast<double>(d2);
    return std::bit_cast<std::uint32_t>(ciede::sixty_exp_to_float(x, m)) ==
           std::bit_cast<std::uint32_t>(ciede::f(60.0 * m.exp_f64(x)));
  });
  EXPECT_EQ(checked, std::uint64_t{end});
  EXPECT_EQ(mismatches, 0u);
  std::printf("[ ciede ] 60 exp shortcut: %llu floats, %llu mismatches\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(mismatches));
}

}  // namespace
}  // namespace exactvmaf::test
