// SpEED (speed_chroma, speed_temporal) on the CUDA backend against the CPU,
// bit for bit: every golden option set on every fixture pair it fits with 1
// and 4 threads (and against R's golden numbers), synthetic frames swept
// across the regular/singular decision, 10/12/16-bit and odd sizes, 1080p,
// graphs off, and 8K (the chains' plane staged in several bands). A test that
// needs a GPU and finds none skips with
// "no CUDA device: <problem>"; the CPU-side checks of the synthetic sweep run
// in every build.
#include <gtest/gtest.h>

#include <map>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/cuda.hpp"
#include "features/speed/speed_math.hpp"
#include "io/warnings.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

std::vector<GoldenCase> speed_cases() { return golden_cases_for(speed_golden_runs()); }

// ---- every golden option set on every fixture pair ---------------------------

class CudaSpeedGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaSpeedGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_equals_cpu_and_r(GetParam(), speed_golden_runs().at(GetParam().run));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaSpeedGolden, ::testing::ValuesIn(speed_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaSpeedGolden);

TEST(CudaSpeedGoldenSet, IsPresent) { EXPECT_GE(speed_cases().size(), 60u); }

// ---- the extractors offer a CUDA worker exactly in CUDA builds (every build) --

TEST(CudaSpeed, WorkerExistsInCudaBuilds) {
  for (const char* f : {"speed_chroma", "speed_temporal=speed_use_ref_diff=true"})
    expect_cuda_worker_exactly_in_cuda_builds(f, VideoFormat{320, 240, PixelFormat::yuv420, 10});
}

// ---- synthetic frames ----------------------------------------------------------

// Near-flat planes: mid-grey plus sparse +amp deviations (density 1/every), so
// that the covariance matrices' smallest eigenvalues sit around the 1e-6
// threshold for small amp at 16 bits (a sample step is 1/256 after
// picture_copy). kind 1: smooth gradient plus noise (regular everywhere).
struct Content {
  unsigned bpc, amp, every;
  int kind;
  unsigned mid() const { return 1u << (bpc - 1); }
  unsigned ref(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const std::uint32_t n = mix((f << 40) ^ (std::uint64_t{p} << 36) ^ (std::uint64_t{y} << 18) ^ x);
    if (kind == 1) {
      const unsigned maxv = (1u << bpc) - 1;
      return static_cast<unsigned>(((x * 5 + y * 3 + f * 17) * (maxv / 255) + (n & (maxv >> 4))) & maxv);
    }
    return mid() + (n % every == 0 ? amp : 0u);
  }
  unsigned dist(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    const unsigned v = ref(f, p, x, y);
    const std::uint32_t n = mix((f << 41) ^ (std::uint64_t{p} << 37) ^ (std::uint64_t{y} << 20) ^ x ^ 0x5bd1e995);
    if (kind == 1) return v > 0 && n % 7 == 0 ? v - 1 : v;
    return v + (n % (2 * every) == 0 ? amp : 0u);
  }
};

struct SyntheticRun {
  RunResult result;
  std::vector<std::string> warnings;
};

SyntheticRun run_synthetic(const VideoFormat& fmt, const Content& c, std::uint64_t frames,
                           const std::vector<std::string>& features, Backend backend, unsigned threads,
                           bool graphs = true) {
  SyntheticRun out;
  const io::WarningHandler previous =
      io::set_warning_handler([&out](const std::string& m) { out.warnings.push_back(m); });
  try {
    out.result = run_synthetic_pair(fmt, c, frames, features, backend_run_options(backend, threads, graphs));
  } catch (...) {
    io::set_warning_handler(previous);
    throw;
  }
  io::set_warning_handler(previous);
  return out;
}

bool any_singular(const SyntheticRun& r) {
  for (const auto& w : r.warnings)
    if (w.find("covariance matrix is singular") != std::string::npos) return true;
  return false;
}

const std::vector<std::string> kBoth = {"speed_chroma", "speed_temporal"};

// The sweep of deviation amplitudes used below crosses the singular decision
// on the CPU: some runs have a singular covariance matrix, some none. (Runs
// in every build: it gives the GPU comparison its teeth.)
TEST(SpeedSynthetic, SweepCrossesTheSingularDecision) {
  const VideoFormat fmt{352, 336, PixelFormat::yuv444, 16};
  unsigned singular = 0, regular = 0;
  for (unsigned amp : {1u, 2u, 4u, 8u, 16u, 64u, 256u}) {
    const SyntheticRun r = run_synthetic(fmt, Content{16, amp, 9, 0}, 3, kBoth, Backend::cpu, 1);
    (any_singular(r) ? singular : regular) += 1;
    std::printf("[ sweep ] amp %u: %s\n", amp, any_singular(r) ? "some matrix singular" : "all regular");
  }
  EXPECT_GT(singular, 0u);
  EXPECT_GT(regular, 0u);
}

void expect_cuda_equals_cpu(const VideoFormat& fmt, const Content& c, const std::vector<std::string>& features,
                            unsigned frames = 3, unsigned threads = 2) {
  const SyntheticRun cpu = run_synthetic(fmt, c, frames, features, Backend::cpu, 1);
  const SyntheticRun gpu = run_synthetic(fmt, c, frames, features, Backend::cuda, threads);
  const std::string what = fmt::format("{} amp {} every {} kind {}", fmt.describe(), c.amp, c.every, c.kind);
  EXPECT_GT(expect_same_bits(cpu.result, gpu.result, what), 0u) << what;
  EXPECT_EQ(any_singular(cpu), any_singular(gpu)) << what;
}

TEST(CudaSpeed, SyntheticFramesAcrossTheSingularDecision) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{352, 336, PixelFormat::yuv444, 16};
  // every = 9 flips between amp 64 (some matrix singular) and 256 (all
  // regular) on the CPU (SpeedSynthetic above); the steps bracket the flip.
  for (unsigned amp : {1u, 4u, 16u, 48u, 64u, 80u, 96u, 112u, 128u, 160u, 192u, 224u, 256u, 512u})
    for (unsigned every : {5u, 9u, 31u}) expect_cuda_equals_cpu(fmt, Content{16, amp, every, 0}, kBoth);
}

TEST(CudaSpeed, BitDepthsFormatsAndOptions) {
  REQUIRE_CUDA_DEVICE();
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (PixelFormat pf : {PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444})
      expect_cuda_equals_cpu({331, 325, pf, bpc}, Content{bpc, 1, 3, 1}, kBoth);
  const std::vector<std::string> options = {
      "speed_chroma=speed_prescale=0.5:speed_prescale_method=bilinear:speed_weight_var_mode=5",
      "speed_chroma=speed_prescale=1.5:speed_prescale_method=lanczos4:speed_kernelscale=0.5",
      "speed_chroma=speed_prescale=0.7:speed_prescale_method=bicubic:speed_kernelscale=2.0",
      "speed_chroma=speed_prescale=0.9:speed_weight_var_mode=3",
      "speed_temporal=speed_prescale=0.8:speed_prescale_method=bilinear:speed_use_ref_diff=true",
      "speed_temporal=speed_kernelscale=3.0:speed_sigma_nn=1.5:speed_nn_floor=0.5"};
  for (const auto& o : options) expect_cuda_equals_cpu({331, 325, PixelFormat::yuv444, 10}, Content{10, 1, 3, 1}, {o});
}

TEST(CudaSpeed, FullHdFramesAndGraphsOff) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{1920, 1080, PixelFormat::yuv420, 8};
  expect_cuda_equals_cpu(fmt, Content{8, 1, 3, 1}, kBoth, 4, 4);
  const SyntheticRun cpu = run_synthetic(fmt, Content{8, 1, 3, 1}, 4, kBoth, Backend::cpu, 1);
  const SyntheticRun direct = run_synthetic(fmt, Content{8, 1, 3, 1}, 4, kBoth, Backend::cuda, 3, false);
  EXPECT_GT(expect_same_bits(cpu.result, direct.result, "graphs off"), 0u);
}

// The chain kernels stage their plane in shared memory a band of rows at a
// time (at most 96 KiB per block): an 8K luma plane takes several bands in
// both kernels (more than two even as floats). speed_temporal and
// speed_chroma run side by side: the kernels' shared-memory attribute is
// set by both workers, so their bands must agree with it.
TEST(CudaSpeed, EightKPlanesInSeveralBands) {
  REQUIRE_CUDA_DEVICE();
  const VideoFormat fmt{7680, 4320, PixelFormat::yuv420, 8};
  const speed::Dims luma = speed::make_dims(fmt.width, fmt.height, 1.0);
  EXPECT_GT(std::size_t{luma.trunc_w} * luma.trunc_h * sizeof(float), 2u * 96 * 1024);
  expect_cuda_equals_cpu(fmt, Content{8, 1, 3, 1}, kBoth, 3, 2);
}

}  // namespace
}  // namespace exactvmaf::test
