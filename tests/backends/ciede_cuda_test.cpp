// ciede on the CUDA backend against the CPU, bit for bit: every fixture pair
// with 1 and 4 threads, Lab table on and off (and against R's goldens where
// they are R's numbers), the host replay of undecided pixels (forced with
// the cuda_replay_every test switch, within and beyond the queue), odd
// sizes (pixels whose chroma only the host has), 4:2:2 and 4:4:4, every bit
// depth, graphs off, and the device's per-pixel function on random colour
// pairs. A test that needs a GPU and finds none skips with
// "no CUDA device: <problem>". The 10^8-pair and exhaustive checks are in
// ciede_cuda_long_test.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "exactvmaf/cuda.hpp"
#include "features/ciede/ciede_cuda.hpp"
#include "features/ciede/ciede_math.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

class CudaCiedeGolden : public ::testing::TestWithParam<std::string> {};

// Lab table on and off against the CPU's (table on) run.
TEST_P(CudaCiedeGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const std::string& name = GetParam();
  expect_cuda_equals_cpu_and_r({name, "ciede"}, GoldenRun{{"ciede"}}, !ciede_golden_is_not_r(name),
                               {{"ciede"}, {"ciede=lab_table=false"}});
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaCiedeGolden, ::testing::ValuesIn(ciede_golden_pairs()), [](const auto& i) {
  std::string n = i.param;
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaCiedeGolden);

TEST(CudaCiedeGoldenSet, IsPresent) { EXPECT_GE(ciede_golden_pairs().size(), 16u); }

TEST(CudaCiede, WorkerExistsInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("ciede", VideoFormat{64, 48, PixelFormat::yuv420, 8});
}

// The host's replay of queued pixels: every 101st or 997th pixel (within
// the queue of 1024 on the small pairs; beyond it on s01 for 101) and every
// pixel (the queue overflows: the host computes the frame, and counts it in
// RunResult::cuda_host_frames).
TEST(CudaCiede, HostReplayOfQueuedPixels) {
  REQUIRE_CUDA_DEVICE();
  for (const char* name : {"c01_176x144_8b_420", "c03_176x144_10b_420", "s01_576x324_8b_420", "c02_175x97_8b_420"}) {
    const auto pair = fixture_pair(name);
    if (!pair) continue;
    const RunResult cpu = run_fixture(*pair, {"ciede"}, backend_run_options(Backend::cpu, 1));
    for (const char* f : {"ciede=cuda_replay_every=101", "ciede=cuda_replay_every=997:pair_cache=false",
                          "ciede=cuda_replay_every=1:lab_table=false"}) {
      const RunResult gpu = run_fixture(*pair, {f}, backend_run_options(Backend::cuda, 2));
      // Every 997th pixel stays within the queue; every pixel overflows it, and
      // the host's whole frames are counted.
      const bool every_pixel = std::string(f).find("every=1:") != std::string::npos;
      const bool may_overflow = every_pixel || std::string(f).find("every=101") != std::string::npos;
      EXPECT_GT(expect_same_bits(cpu, gpu, fmt::format("{} {}", name, f), may_overflow), 0u);
      if (every_pixel) {
        EXPECT_GT(gpu.cuda_host_frames, 0u) << name << " " << f;
      }
    }
  }
}

// ---- synthetic frames ----------------------------------------------------------

// kind 0: smooth content against a noisy copy with unchanged patches
// (identical pixels); 1: independent noise; 2: extremes and the cancelling
// colour Y=68 U=54 V=80 (scaled) against the neutral axis.
struct Content {
  unsigned bpc;
  int kind;
  unsigned maxv() const { return (1u << bpc) - 1; }
  unsigned ref(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const std::uint32_t n = mix((f << 40) ^ (std::uint64_t{p} << 36) ^ (std::uint64_t{y} << 18) ^ x);
    const unsigned s = bpc - 8;
    if (kind == 1) return n & maxv();
    if (kind == 2) {
      switch (n % 4) {
        case 0: return (n >> 8) & 1 ? maxv() : 0u;
        case 1: return (p == 0 ? 68u : p == 1 ? 54u : 80u) << s;
        case 2: return 1u << (bpc - 1);
        default: return n & maxv();
      }
    }
    return static_cast<unsigned>(((x * 3 + y * 5 + f * 7 + p * 40) << s) + (n & 7u)) & maxv();
  }
  unsigned dist(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const unsigned v = ref(f, p, x, y);
    if (kind == 1) return mix((f << 41) ^ (std::uint64_t{p} << 37) ^ (std::uint64_t{y} << 19) ^ x ^ 0x9e37u) & maxv();
    if (kind == 2) return p == 0 ? v : 1u << (bpc - 1);
    if (((x / 8) + (y / 8)) % 3 == 0) return v;  // unchanged patches
    const unsigned d = mix(x * 131u + y * 7u + f + p * 1000003u) % 9u;
    const unsigned w = v + d;
    return w > maxv() ? maxv() : w;
  }
};

RunResult run_synthetic(const VideoFormat& fmt, const Content& c, const std::string& feature, const RunOptions& o) {
  return run_synthetic_pair(fmt, c, 2, {feature}, o);
}

TEST(CudaCiede, SyntheticFramesEveryFormatOddSizes) {
  REQUIRE_CUDA_DEVICE();
  struct Size {
    unsigned w, h;
  };
  // 1x1 (no chroma on the device for 4:2:0), odd widths and heights (the
  // host's last column/row), more than one 256-column strip.
  const Size sizes[] = {{1, 1}, {3, 2}, {37, 23}, {257, 17}, {300, 77}};
  for (PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444})
    for (unsigned bpc : {8u, 10u, 12u, 16u})
      for (const Size& s : sizes)
        for (int kind : {0, 1, 2}) {
          const VideoFormat fmt{s.w, s.h, pf, bpc};
          const Content c{bpc, kind};
          const RunResult cpu = run_synthetic(fmt, c, "ciede", backend_run_options(Backend::cpu, 1));
          const std::string what = fmt::format("{} kind {}", fmt.describe(), kind);
          const RunResult gpu = run_synthetic(fmt, c, "ciede", backend_run_options(Backend::cuda, 2));
          EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u);
          if (bpc == 8) {
            const RunResult no_table =
                run_synthetic(fmt, c, "ciede=lab_table=false", backend_run_options(Backend::cuda, 1));
            EXPECT_GT(expect_same_bits(cpu, no_table, what + " no table"), 0u);
          }
        }
}

TEST(CudaCiede, GraphsOffAndFullHd) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u}) {
    const VideoFormat fmt{1920, 1080, PixelFormat::yuv420, bpc};
    const Content c{bpc, 0};
    const RunResult cpu = run_synthetic(fmt, c, "ciede", backend_run_options(Backend::cpu, 2));
    const RunResult graphs_off = run_synthetic(fmt, c, "ciede", backend_run_options(Backend::cuda, 3, false));
    EXPECT_GT(expect_same_bits(cpu, graphs_off, "graphs off"), 0u);
    const RunResult graphs_on = run_synthetic(fmt, c, "ciede", backend_run_options(Backend::cuda, 3, true));
    EXPECT_GT(expect_same_bits(cpu, graphs_on, "graphs on"), 0u);
  }
}

// The device's per-pixel function against R's on random pairs (10^5 per
// bit depth here; 10^8 in ciede_cuda_long_test).
TEST(CudaCiede, PixelFunctionOnRandomPairs) {
  REQUIRE_CUDA_DEVICE();
  constexpr std::size_t n = 100000;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    std::mt19937 rng(bpc);
    std::uniform_int_distribution<unsigned> any(0, (1u << bpc) - 1);
    std::vector<std::uint16_t> pairs(6 * n);
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 6; ++k) pairs[6 * i + k] = static_cast<std::uint16_t>(any(rng));
      if (i % 4 == 0) {  // near-identical: the distorted luma one step away (or identical at the top)
        for (int k = 0; k < 3; ++k) pairs[6 * i + 3 + k] = pairs[6 * i + k];
        if (pairs[6 * i + 3] < (1u << bpc) - 1) ++pairs[6 * i + 3];
      }
    }
    for (bool table : {false, true}) {
      if (table && bpc != 8) continue;
      std::vector<float> values(n);
      std::vector<std::uint8_t> undecided(n);
      const ciede::DeviceCheckCounts counts =
          ciede::device_pair_values(bpc, table, pairs.data(), n, values.data(), undecided.data());
      const ciede::LabScale s = ciede::lab_scale(bpc);
      std::size_t mismatches = 0, compared = 0;
      ciede::HostMath m;
      for (std::size_t i = 0; i < n; ++i) {
        if (undecided[i]) continue;
        const std::uint16_t* p = &pairs[6 * i];
        const float host = ciede::pixel_delta_e(p[0], p[1], p[2], p[3], p[4], p[5], s, m);
        ++compared;
        if (std::bit_cast<std::uint32_t>(host) != std::bit_cast<std::uint32_t>(values[i])) {
          if (mismatches++ == 0)
            ADD_FAILURE() << bpc << "-bit pair " << i << ": host " << host << " device " << values[i];
        }
      }
      EXPECT_EQ(mismatches, 0u) << bpc << "-bit, table " << table;
      EXPECT_GT(compared, n / 2);
      std::printf("[ undecided ] %u-bit%s: %llu of %zu pairs\n", bpc, table ? " (table)" : "",
                  static_cast<unsigned long long>(counts.undecided), n);
    }
  }
}

}  // namespace
}  // namespace exactvmaf::test
