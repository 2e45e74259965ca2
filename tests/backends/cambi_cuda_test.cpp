// cambi on the CUDA backend against the CPU, bit for bit: every cambi golden
// run on every fixture pair it fits, with 1 and 4 frames in flight and with
// graphs off (against the CPU and R's goldens; heat maps byte for byte); the
// VMAF v1.0.16 models and their HFR variants (cambi, speed_chroma, adm and
// motion together on the device) against the CPU and R; and synthetic
// adversarial pictures: banding of 1..4 levels across wide bands, noise with
// flat islands, hundreds of distinct flat levels within one window, all flat
// and no flat pixel, the extremes of each bit depth (12- and 16-bit samples
// that round to 1024), 8/10/12/16-bit input, sizes at cambi's minimum and odd
// ones, 1080p and 4K, every option (max_log_contrast, window_size, topk, the
// tvi and visibility thresholds, the EOTF, the encode size and bit depth, the
// high-resolution speed-up, full_ref with a source size, heat maps), several
// frames in flight, graphs off, --subsample, and out-of-range samples. Every
// CUDA run must have computed all its frames on the device
// (RunResult::cuda_host_frames 0). A test that needs a GPU and finds none
// skips with "no CUDA device: <problem>"; the worker's presence, the auto
// backend choice, the synthetic cases' options and the synthetic content's
// teeth (on the CPU) are checked in every build.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"
#include "support/backend_parity.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/golden_runs.hpp"
#include "support/model_run.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {
namespace {

namespace fs = std::filesystem;

// ---- helpers ---------------------------------------------------------------------

// An empty temporary directory path (not created: cambi creates it).
fs::path fresh_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / fmt::format("exactvmaf_cambi_cuda_{}_{}", ::getpid(), name);
  fs::remove_all(d);
  return d;
}

// `features` with HEATMAPS (runs.json's placeholder) replaced by `dir`.
std::vector<std::string> with_heatmaps(std::vector<std::string> features, const fs::path& dir) {
  for (auto& f : features)
    if (const auto at = f.find("HEATMAPS"); at != std::string::npos) f.replace(at, 8, dir.string());
  return features;
}

bool has_heatmaps(const std::vector<std::string>& features) {
  return std::any_of(features.begin(), features.end(),
                     [](const std::string& f) { return f.find("heatmaps_path=") != std::string::npos; });
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The files of a heat-map directory: name -> bytes.
std::map<std::string, std::string> heatmap_files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.emplace(e.path().filename().string(), slurp(e.path()));
  return out;
}

std::string fnv1a64(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return fmt::format("{:016x}", h);
}

// The CUDA run's heat maps are the CPU run's byte for byte: the same five
// files, the same sizes, the same bytes (the first difference reported as a
// uint16 sample index). Returns the number of non-zero bytes the CPU wrote
// (a comparison of empty maps has no teeth).
std::size_t expect_same_heatmaps(const fs::path& cpu_dir, const fs::path& gpu_dir, const std::string& what) {
  const auto cpu = heatmap_files(cpu_dir), gpu = heatmap_files(gpu_dir);
  EXPECT_EQ(cpu.size(), 5u) << what << ": the CPU wrote " << cpu.size() << " heat-map files into " << cpu_dir;
  EXPECT_EQ(gpu.size(), cpu.size()) << what << ": CUDA wrote " << gpu.size() << " heat-map files into " << gpu_dir;
  std::size_t nonzero = 0;
  for (const auto& [name, bytes] : cpu) {
    nonzero += static_cast<std::size_t>(std::count_if(bytes.begin(), bytes.end(), [](char c) { return c != 0; }));
    const auto it = gpu.find(name);
    if (it == gpu.end()) {
      ADD_FAILURE() << what << ": CUDA wrote no " << name;
      continue;
    }
    const std::string& other = it->second;
    EXPECT_EQ(other.size(), bytes.size()) << what << ": " << name;
    const std::size_t n = std::min(other.size(), bytes.size());
    std::size_t differing = 0, first = n;
    for (std::size_t i = 0; i < n; ++i)
      if (other[i] != bytes[i]) {
        if (differing++ == 0) first = i;
      }
    if (differing) {
      const std::size_t s = first / 2 * 2;
      auto sample = [&](const std::string& b) {
        return static_cast<unsigned>(static_cast<unsigned char>(b[s])) |
               (s + 1 < b.size() ? static_cast<unsigned>(static_cast<unsigned char>(b[s + 1])) << 8 : 0u);
      };
      ADD_FAILURE() << what << ": " << name << ": " << differing << " of " << n
                    << " bytes differ; first in uint16 sample " << s / 2 << ": cpu " << sample(bytes) << " cuda "
                    << sample(other);
    }
  }
  for (const auto& [name, _] : gpu)
    if (!cpu.count(name)) ADD_FAILURE() << what << ": CUDA wrote an extra file " << name;
  return nonzero;
}

// The heat maps of `dir` against a golden's sizes and FNV-1a checksums
// (tests/golden/r/<pair>/<run>.heatmaps, R's and upstream's files).
void expect_heatmaps_equal_golden(const fs::path& dir, const fs::path& golden, const std::string& what) {
  const auto files = read_json(golden).at("files");
  const auto ours = heatmap_files(dir);
  EXPECT_EQ(ours.size(), files.size()) << what;
  for (const auto& [name, bytes] : ours) {
    if (!files.contains(name)) {
      ADD_FAILURE() << what << ": unexpected heat map " << name;
      continue;
    }
    EXPECT_EQ(bytes.size(), files.at(name).at("bytes").get<std::size_t>()) << what << ": " << name;
    EXPECT_EQ(fnv1a64(bytes), files.at(name).at("fnv1a64").get<std::string>())
        << what << ": " << name << " differs from R's";
  }
}

// A CUDA run did its work on the device: it ran on cuda, every one of its
// `frames` frames, none of them computed on the host.
void expect_device_did_the_work(const RunResult& gpu, std::uint64_t frames, const std::string& what) {
  EXPECT_EQ(gpu.backend, Backend::cuda) << what;
  EXPECT_EQ(gpu.frames, frames) << what;
  EXPECT_EQ(gpu.cuda_host_frames, 0u) << what << ": " << gpu.cuda_host_frames << " of " << gpu.frames
                                      << " frames were computed on the host";
  EXPECT_EQ(gpu.frames - std::min(gpu.frames, gpu.cuda_host_frames), frames)
      << what << ": frames the device computed";
}

// The CUDA configurations every golden case runs: frames in flight and graphs.
struct CudaConfig {
  unsigned threads;
  bool graphs;
  std::string describe() const { return fmt::format("cuda threads {}{}", threads, graphs ? "" : " graphs off"); }
  std::string tag() const { return fmt::format("t{}{}", threads, graphs ? "" : "_nograph"); }
};
const CudaConfig kCudaConfigs[] = {{1, true}, {4, true}, {2, false}};

RunOptions cuda_options(const CudaConfig& k, unsigned subsample = 1, std::uint64_t frame_cnt = 0) {
  RunOptions o = backend_run_options(Backend::cuda, k.threads, k.graphs);
  o.subsample = subsample;
  o.frame_cnt = frame_cnt;
  return o;
}

// ---- every cambi golden run on every fixture pair -------------------------------------

std::vector<GoldenCase> cambi_cases() { return golden_cases_for(cambi_golden_runs()); }

class CudaCambiGolden : public ::testing::TestWithParam<GoldenCase> {};

// CPU with 1 thread, then CUDA at 1 and 4 frames in flight and without graphs:
// the CPU's bits and R's, the CPU's heat maps byte for byte (and R's).
TEST_P(CudaCambiGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GoldenCase& gc = GetParam();
  const GoldenRun& run = cambi_golden_runs().at(gc.run);
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const auto r = read_json(golden_dir() / "r" / gc.pair / (gc.run + ".json"));
  const fs::path heat_golden = golden_dir() / "r" / gc.pair / (gc.run + ".heatmaps");
  const bool heat = has_heatmaps(run.features);
  const fs::path cpu_dir = fresh_dir(golden_case_name(gc) + "_cpu");
  const RunResult cpu =
      run_fixture(*pair, with_heatmaps(run.features, cpu_dir), golden_run_options(run, Backend::cpu, 1));
  for (const CudaConfig& k : kCudaConfigs) {
    const std::string what = fmt::format("{}/{} {}", gc.pair, gc.run, k.describe());
    const fs::path gpu_dir = fresh_dir(golden_case_name(gc) + "_" + k.tag());
    const RunResult gpu =
        run_fixture(*pair, with_heatmaps(run.features, gpu_dir), cuda_options(k, run.subsample, run.frame_cnt));
    expect_device_did_the_work(gpu, cpu.frames, what);
    EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
    const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
    EXPECT_GT(vs_r.values, 0u) << what;
    EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
    if (heat) {
      expect_same_heatmaps(cpu_dir, gpu_dir, what);
      if (fs::exists(heat_golden)) expect_heatmaps_equal_golden(gpu_dir, heat_golden, what);
    }
    fs::remove_all(gpu_dir);
  }
  fs::remove_all(cpu_dir);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaCambiGolden, ::testing::ValuesIn(cambi_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaCambiGolden);

// Every cambi run on the four pairs cambi accepts (s01, s04, b01 10-bit, b02
// 1080p, where the high-resolution speed-up is on), the extra runs on s01,
// heat maps among them.
TEST(CudaCambiGoldenSet, IsPresent) {
  const auto cases = cambi_cases();
  EXPECT_GE(cases.size(), 67u);
  std::size_t heat = 0;
  bool hrs_at_1080p = false;
  for (const auto& c : cases) {
    heat += has_heatmaps(cambi_golden_runs().at(c.run).features) ? 1 : 0;
    hrs_at_1080p = hrs_at_1080p || (c.pair == "b02_1920x1080_8b_420" && c.run == "cambi_v1016");
  }
  EXPECT_GE(heat, 9u);
  EXPECT_TRUE(hrs_at_1080p);
}

// ---- the VMAF v1.0.16 models --------------------------------------------------------

std::vector<GoldenCase> model_cases() { return golden_cases_for(vmaf_v1_golden_runs()); }

class CudaCambiModelGolden : public ::testing::TestWithParam<GoldenCase> {};

// Every feature and model output, every frame, the CPU's bits and R's.
TEST_P(CudaCambiModelGolden, SameBitsAsCpuAndR) {
  REQUIRE_CUDA_DEVICE();
  const GoldenCase& gc = GetParam();
  const GoldenRunArgs& g = vmaf_v1_golden_runs().at(gc.run);
  const auto pair = fixture_pair(gc.pair);
  ASSERT_TRUE(pair) << gc.pair << " missing from tests/fixtures/manifest.json";
  const auto r = read_json(golden_dir() / "r" / gc.pair / (gc.run + ".json"));
  const RunResult cpu = run_models(*pair, g.models, g.run.features, golden_run_options(g.run, Backend::cpu, 1));
  for (const CudaConfig& k : kCudaConfigs) {
    const std::string what = fmt::format("{}/{} {}", gc.pair, gc.run, k.describe());
    const RunResult gpu = run_models(*pair, g.models, g.run.features, cuda_options(k, g.run.subsample, g.run.frame_cnt));
    expect_device_did_the_work(gpu, cpu.frames, what);
    EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
    const GoldenComparison vs_r = compare_with_golden(r, gpu, g.run.subsample);
    EXPECT_GT(vs_r.values, 0u) << what;
    EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                  << " values differ from R; first: " << vs_r.first_difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaCambiModelGolden, ::testing::ValuesIn(model_cases()),
                         [](const auto& i) { return golden_case_name(i.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaCambiModelGolden);

// Every v1.0.16 model (and HFR variant) has golden cases, one on the 1080p pair.
TEST(CudaCambiModelGoldenSet, CoversEveryV1Model) {
  const auto cases = model_cases();
  EXPECT_GE(cases.size(), 30u);
  for (const char* m : {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_1d5h_2160",
                        "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr_3d0h_2160",
                        "vmaf_v1.0.16_hfr_1d5h_2160"}) {
    bool hd = false;
    for (const auto& c : cases) hd = hd || (c.run == m && c.pair == "b02_1920x1080_8b_420");
    EXPECT_TRUE(hd) << m << " has no golden case on b02_1920x1080_8b_420";
  }
}

// ---- every build: the worker exists in CUDA builds; auto picks CUDA -------------------

TEST(CudaCambi, WorkerExistsInCudaBuilds) {
  expect_cuda_worker_exactly_in_cuda_builds("cambi", VideoFormat{320, 240, PixelFormat::yuv420, 10});
  expect_cuda_worker_exactly_in_cuda_builds("cambi=full_ref=true:enc_width=300:enc_height=225:enc_bitdepth=8",
                                            VideoFormat{320, 240, PixelFormat::yuv420, 10});
  expect_cuda_worker_exactly_in_cuda_builds(
      "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
      VideoFormat{1920, 1080, PixelFormat::yuv420, 8});
  expect_cuda_worker_exactly_in_cuda_builds("cambi=max_log_contrast=5:window_size=127:topk=1.0",
                                            VideoFormat{333, 217, PixelFormat::yuv444, 16});
}

// --backend auto with a v1.0.16 model: every feature it needs has a CUDA
// version, so with a device the whole run is on CUDA without a warning;
// without one it is on the CPU with one warning. Either way the CPU's bits.
TEST(CudaCambi, AutoBackendRunsV1ModelOnCudaWithADevice) {
  const auto pair = fixture_pair("s01_576x324_8b_420");
  ASSERT_TRUE(pair);
  const std::vector<std::string> model = {"version=vmaf_v1.0.16_3d0h"};
  const RunResult cpu = run_models(*pair, model, {}, backend_run_options(Backend::cpu, 1));
  std::vector<std::string> warnings;
  RunOptions o;
  o.backend = Backend::automatic;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const RunResult r = run_models(*pair, model, {}, o);
  if (device_problem().empty()) {
    EXPECT_EQ(r.backend, Backend::cuda);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    expect_device_did_the_work(r, cpu.frames, "auto");
  } else {
    EXPECT_EQ(r.backend, Backend::cpu);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("--backend auto: running on the cpu"), std::string::npos) << warnings[0];
  }
  EXPECT_GT(expect_same_bits(cpu, r, "auto"), 0u);
}

// ---- synthetic content ---------------------------------------------------------------

enum Kind { banding, noise, many_levels, all_flat, no_flat, extremes, smooth, num_kinds };

const char* kind_name(int k) {
  static const char* const names[] = {"banding", "noise", "many_levels", "all_flat", "no_flat", "extremes", "smooth"};
  return names[k];
}

// Luma samples of one kind (chroma: mid-grey; cambi reads luma only), the
// reference (side 0) and the distorted picture (side 1) different:
//   banding: four horizontal stripes of bands 24..60 px wide stepping by 1..4
//     10-bit levels (the reference by 1), drifting with the frame, and noisy
//     32x32 blocks (the mask off there);
//   noise: noise over the band, with flat 16x16 islands;
//   many_levels: 8x8 flat tiles, each its own level (one step to the right, 37
//     down): several hundred distinct flat levels within a window;
//   all_flat: one value; no_flat: a ramp of 4 levels right, 8 down (no
//     sample equals its right or lower neighbour, also after the 2x2
//     average of the anti-dithering);
//   extremes: quadrants of 0..2, the maximum and the two below it, full-range
//     noise, and bands of 10-bit levels 1018..1023 (above 10 bits: rounding
//     to 1024);
//   smooth: a slow diagonal gradient, bands of one level, noise below.
// Above 10 bits the bits below the 10-bit step alternate between half a step
// (cambi's conversion rounds up) and just below it.
struct CambiContent {
  unsigned bpc;
  int kind;
  unsigned width, height;
  unsigned maxv() const { return (1u << bpc) - 1; }
  // A 10-bit level as a sample of bpc bits (`low`: the bits below the step).
  unsigned native(unsigned level, std::uint32_t low) const {
    if (bpc <= 10) return level >> (10 - bpc);
    const unsigned s = bpc - 10;
    return std::min(maxv(), (level << s) | (low & ((1u << s) - 1)));
  }
  unsigned luma(unsigned side, std::uint64_t f, unsigned x, unsigned y) const {
    const std::uint32_t n = mix((f << 44) ^ (std::uint64_t{side} << 42) ^ (std::uint64_t{y} << 20) ^ x);
    const std::uint32_t half = bpc > 10 ? 1u << (bpc - 11) : 0u;
    const std::uint32_t below = half ? half - 1 : 0u;
    const auto fr = static_cast<unsigned>(f);
    switch (kind) {
      case banding: {
        const unsigned stripe = y * 4 / height;
        const unsigned step = side == 0 ? 1 : 1 + stripe;
        const unsigned band = (x + 5 * fr) / (24 + 12 * stripe);
        unsigned level = 80 + step * (band % 48);
        const std::uint32_t b = mix((std::uint64_t{x / 32} << 32) ^ (y / 32) ^ (f << 50) ^ 0x1234567ull);
        if (b % 7 == 0) level += n % 3;
        return native(level, band & 1 ? half : below);
      }
      case noise: {
        const std::uint32_t b = mix((std::uint64_t{x / 16} << 32) ^ (y / 16) ^ (f << 50) ^ (std::uint64_t{side} << 60));
        const unsigned level = b % 3 == 0 ? 64 + b % 500 : 64 + n % 800;
        return native(level, b % 3 == 0 ? b >> 8 : n >> 12);
      }
      case many_levels: {
        const unsigned tx = x / 8 + fr, ty = y / 8;
        return native(64 + (tx + 37 * ty + 3 * side) % 860, ((tx ^ ty) & 1) ? half : below);
      }
      case all_flat: return native(200 + side + fr, half);
      case no_flat: return native(200 + 4 * ((x + 2 * y + fr + side) % 64), n);
      case extremes: {
        const unsigned q = (x * 2 / width) + 2 * (y * 2 / height);
        const unsigned k = (x / 40 + fr + side) % 3;
        if (q == 0) return k;
        if (q == 1) return maxv() - k;
        if (q == 2) return n & maxv();
        return native(1018 + (x / 30 + fr) % 6, (x / 30) & 1 ? half : below);
      }
      default: {  // smooth
        unsigned level = 70 + (x + 2 * y + 3 * fr) * 100 / (width + 2 * height);
        if (y > height / 2 && n % 4 == 0) level += 1 + side;
        return native(level, n >> 16);
      }
    }
  }
  unsigned ref(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    return p == 0 ? luma(0, f, x, y) : 1u << (bpc - 1);
  }
  unsigned dist(std::uint64_t f, unsigned p, unsigned x, unsigned y) const {
    return p == 0 ? luma(1, f, x, y) : 1u << (bpc - 1);
  }
};

// One synthetic run: a format, a content kind, --feature arguments, frames.
struct SynthCase {
  VideoFormat fmt;
  int kind;
  std::vector<std::string> features;
  unsigned frames = 2;
  std::string describe() const {
    return fmt::format("{} {} [{}] {} frames", fmt.describe(), kind_name(kind), fmt::join(features, " "), frames);
  }
};

RunResult run_case(const SynthCase& c, const RunOptions& o) {
  const CambiContent content{c.fmt.bitdepth, c.kind, c.fmt.width, c.fmt.height};
  return run_synthetic_pair(c.fmt, content, c.frames, c.features, o);
}

// The CPU with 1 thread and CUDA with `threads` frames in flight: the same
// bits, every frame on the device. Returns the CPU run.
RunResult expect_cuda_equals_cpu(const SynthCase& c, unsigned threads = 2, bool graphs = true,
                                 unsigned subsample = 1) {
  RunOptions cpu_opts = backend_run_options(Backend::cpu, 1), gpu_opts = backend_run_options(Backend::cuda, threads, graphs);
  cpu_opts.subsample = gpu_opts.subsample = subsample;
  const RunResult cpu = run_case(c, cpu_opts);
  const std::string what = fmt::format("{}, cuda threads {}{}{}", c.describe(), threads, graphs ? "" : " graphs off",
                                       subsample > 1 ? fmt::format(" subsample {}", subsample) : std::string());
  const RunResult gpu = run_case(c, gpu_opts);
  expect_device_did_the_work(gpu, c.frames, what);
  EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
  return cpu;
}

// The non-zero per-frame values of a run (every metric).
std::size_t nonzero_values(const RunResult& r) {
  std::size_t n = 0;
  for (std::size_t id = 0; id < r.scores.metric_count(); ++id)
    for (std::uint64_t f = 0; f < r.frames; ++f)
      if (const auto v = r.scores.get(id, f); v && *v != 0.0) ++n;
  return n;
}

constexpr PixelFormat k420 = PixelFormat::yuv420;

// Every kind at every bit depth on sizes at cambi's minimum (216 in one
// dimension) and odd ones; the pixel format cycles (cambi reads luma only).
std::vector<SynthCase> content_cases() {
  struct Size {
    unsigned w, h;
  };
  const Size sizes[] = {{216, 216}, {216, 150}, {333, 217}, {217, 333}, {1000, 216}};
  const PixelFormat pfs[] = {PixelFormat::yuv420, PixelFormat::yuv422, PixelFormat::yuv444};
  std::vector<SynthCase> out;
  unsigned i = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (const Size& s : sizes)
      for (int kind = 0; kind < num_kinds; ++kind)
        out.push_back({VideoFormat{s.w, s.h, pfs[i++ % 3], bpc}, kind, {"cambi"}});
  // A larger odd size, every kind, 8 and 10 bits.
  for (unsigned bpc : {8u, 10u})
    for (int kind = 0; kind < num_kinds; ++kind) out.push_back({VideoFormat{1279, 719, k420, bpc}, kind, {"cambi"}});
  return out;
}

// Every option on 333x217 (10-bit and, for the bit-depth options, 8-, 12-
// and 16-bit), three contents.
std::vector<SynthCase> option_cases() {
  const std::vector<std::vector<std::string>> options = {
      {"cambi=max_log_contrast=0"},
      {"cambi=max_log_contrast=1"},
      {"cambi=max_log_contrast=3"},
      {"cambi=max_log_contrast=5"},
      {"cambi=window_size=15"},
      {"cambi=window_size=33"},
      {"cambi=window_size=127"},
      {"cambi=topk=0.0001"},
      {"cambi=topk=0.1"},
      {"cambi=topk=1.0"},
      {"cambi=cambi_topk=0.3"},
      {"cambi=tvi_threshold=0.0001"},
      {"cambi=tvi_threshold=0.001"},
      {"cambi=tvi_threshold=0.2"},
      {"cambi=tvi_threshold=0.05:max_log_contrast=4"},
      {"cambi=cambi_vis_lum_threshold=0"},
      {"cambi=cambi_vis_lum_threshold=0.06"},
      {"cambi=cambi_vis_lum_threshold=10"},
      {"cambi=eotf=pq"},
      {"cambi=cambi_eotf=pq:cambi_vis_lum_threshold=1.5:max_log_contrast=5"},
      {"cambi=eotf=pq:tvi_threshold=0.2:cambi_vis_lum_threshold=20"},  // an empty band: 0
      {"cambi=cambi_max_val=0.5:full_ref=true"},
      {"cambi=enc_width=300:enc_height=200"},
      {"cambi=enc_width=216:enc_height=150"},
      {"cambi=enc_width=250:enc_height=217:max_log_contrast=5"},
      {"cambi=enc_bitdepth=8"},
      {"cambi=enc_bitdepth=6"},
      {"cambi=enc_bitdepth=9:enc_width=300:enc_height=200"},
      {"cambi=enc_bitdepth=12"},
      {"cambi=full_ref=true"},
      {"cambi=full_ref=true:src_width=320:src_height=210:enc_width=300:enc_height=200"},
      {"cambi=full_ref=true:enc_bitdepth=8:window_size=127:max_log_contrast=5"},
      {"cambi=cambi_high_res_speedup=1080"},  // not in effect at this size
      {"cambi=max_log_contrast=5:window_size=127:topk=1.0"},
      {"cambi=max_log_contrast=0:window_size=15:topk=0.0001"},
      {"cambi", "cambi=max_log_contrast=5:window_size=127", "cambi=full_ref=true:topk=0.1"},  // three at once
  };
  std::vector<SynthCase> out;
  for (const auto& o : options)
    for (int kind : {banding, many_levels, smooth}) out.push_back({VideoFormat{333, 217, k420, 10}, kind, o});
  for (unsigned bpc : {8u, 12u, 16u})
    for (const char* o : {"cambi=enc_bitdepth=8", "cambi=full_ref=true:enc_bitdepth=7",
                          "cambi=enc_width=300:enc_height=200:max_log_contrast=5", "cambi=tvi_threshold=0.001"})
      for (int kind : {banding, extremes}) out.push_back({VideoFormat{333, 217, k420, bpc}, kind, {o}});
  return out;
}

const char* const kV1016 = "cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17";

// 1920x1080: the speed-up, downscaled encodes, full_ref with a source size.
std::vector<SynthCase> full_hd_cases() {
  const std::vector<std::string> options = {
      "cambi",
      kV1016,
      "cambi=enc_width=1280:enc_height=720",
      "cambi=enc_width=961:enc_height=541",
      "cambi=enc_width=961:enc_height=541:enc_bitdepth=8",
      "cambi=enc_bitdepth=8",
      "cambi=full_ref=true:src_width=1280:src_height=720:enc_width=961:enc_height=541",
      "cambi=full_ref=true:cambi_high_res_speedup=1080:max_log_contrast=5",
      "cambi=cambi_high_res_speedup=1080:window_size=127:topk=0.0001",
      "cambi=window_size=15",  // a window of 7 (one pixel at the small sizes)
      "cambi=window_size=33:max_log_contrast=3",
  };
  std::vector<SynthCase> out;
  for (const auto& o : options) {
    out.push_back({VideoFormat{1920, 1080, k420, 8}, banding, {o}});
    out.push_back({VideoFormat{1920, 1080, k420, 10}, many_levels, {o}});
  }
  out.push_back({VideoFormat{1920, 1080, k420, 8}, smooth, {"cambi", kV1016}});
  return out;
}

// 3840x2160, 2 frames: the default, the v1.0.16 options (speed-up from 1080)
// and the 2160 speed-up with full_ref.
std::vector<SynthCase> ultra_hd_cases() {
  return {{VideoFormat{3840, 2160, k420, 8}, banding, {"cambi", kV1016}},
          {VideoFormat{3840, 2160, k420, 10}, smooth, {"cambi=cambi_high_res_speedup=2160:full_ref=true"}}};
}

// Every synthetic case's options are accepted for its format (every build:
// a case the CPU refused would only show on the GPU machine).
TEST(CambiCudaCases, EveryOptionSetIsAcceptedOnTheCpu) {
  std::size_t n = 0;
  for (const auto& cases : {content_cases(), option_cases(), full_hd_cases(), ultra_hd_cases()})
    for (const SynthCase& c : cases)
      for (const auto& f : c.features) {
        EXPECT_NO_THROW({
          const FeatureRequest req = parse_feature_request(f);
          req.info->create(req.options)->init(c.fmt);
        }) << c.describe();
        ++n;
      }
  EXPECT_GT(n, 300u);
}

// The content has teeth on the CPU (every build): banding, many levels and
// the smooth gradient band at every bit depth; all-flat pictures and
// pictures without a flat sample do not.
TEST(CambiCudaCases, SyntheticContentBandsWhereItShould) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    for (int kind = 0; kind < num_kinds; ++kind) {
      const SynthCase c{VideoFormat{333, 217, k420, bpc}, kind, {"cambi=full_ref=true"}};
      const RunResult r = run_case(c, backend_run_options(Backend::cpu, 2));
      ASSERT_EQ(r.frames, 2u);
      std::printf("[ content ] %2u-bit %-11s cambi %.6g %.6g, source %.6g %.6g\n", bpc, kind_name(kind),
                  *r.scores.get(0, 0), *r.scores.get(0, 1), *r.scores.get(1, 0), *r.scores.get(1, 1));
      if (kind == banding || kind == many_levels || kind == smooth) {
        EXPECT_GT(*r.scores.get(0, 0), 0.0) << c.describe();
        EXPECT_GT(*r.scores.get(0, 1), 0.0) << c.describe();
      }
      if (kind == all_flat || kind == no_flat) {
        EXPECT_EQ(nonzero_values(r), 0u) << c.describe();
      }
    }
  }
}

TEST(CudaCambi, SyntheticContentsBitDepthsAndSizes) {
  REQUIRE_CUDA_DEVICE();
  std::size_t nonzero = 0;
  for (const SynthCase& c : content_cases()) nonzero += nonzero_values(expect_cuda_equals_cpu(c));
  EXPECT_GT(nonzero, 100u);
}

TEST(CudaCambi, EveryOption) {
  REQUIRE_CUDA_DEVICE();
  std::size_t nonzero = 0;
  for (const SynthCase& c : option_cases()) nonzero += nonzero_values(expect_cuda_equals_cpu(c));
  EXPECT_GT(nonzero, 200u);
}

TEST(CudaCambi, FullHdSpeedupResamplingAndFullRef) {
  REQUIRE_CUDA_DEVICE();
  for (const SynthCase& c : full_hd_cases()) {
    const RunResult cpu = expect_cuda_equals_cpu(c, 4);
    EXPECT_GT(nonzero_values(cpu), 0u) << c.describe();
  }
}

TEST(CudaCambi, UltraHdFrames) {
  REQUIRE_CUDA_DEVICE();
  for (const SynthCase& c : ultra_hd_cases()) {
    const RunResult cpu = expect_cuda_equals_cpu(c, 2);
    EXPECT_GT(nonzero_values(cpu), 0u) << c.describe();
  }
}

// Frames in flight (1 to 16), graphs on and off, --subsample, over 9 frames.
TEST(CudaCambi, FramesInFlightGraphsAndSubsample) {
  REQUIRE_CUDA_DEVICE();
  const SynthCase c{VideoFormat{576, 324, k420, 10}, banding,
                    {"cambi=full_ref=true", "cambi=max_log_contrast=5:window_size=127:topk=0.1"}, 9};
  for (unsigned threads : {1u, 3u, 8u, 16u}) expect_cuda_equals_cpu(c, threads, true);
  for (unsigned threads : {1u, 4u}) expect_cuda_equals_cpu(c, threads, false);
  expect_cuda_equals_cpu(c, 4, true, 3);
  expect_cuda_equals_cpu(c, 2, false, 2);
}

// Heat maps: the five files CUDA writes are the CPU's byte for byte (values
// that wrap above 65535 at max_log_contrast 0 and 5, the one-pixel window of
// window_size 15 at 216x216, the speed-up's names, a downscaled encode,
// frames --subsample leaves out).
TEST(CudaCambi, HeatmapsEqualCpuByteForByte) {
  REQUIRE_CUDA_DEVICE();
  struct HeatCase {
    VideoFormat fmt;
    int kind;
    std::string options;  // after heatmaps_path=DIR
    unsigned frames, threads, subsample;
    bool zero = false;  // the maps are all zero (the CPU's too)
  };
  const HeatCase cases[] = {
      {{333, 217, k420, 10}, banding, "", 3, 2, 1},
      {{333, 217, k420, 10}, many_levels, ":max_log_contrast=0", 3, 3, 1},
      {{333, 217, k420, 12}, banding, ":max_log_contrast=5:window_size=127", 3, 2, 1},
      {{216, 216, k420, 8}, banding, ":window_size=15", 2, 2, 1, true},  // 65535 / 0: infinite scale
      {{576, 324, k420, 10}, smooth, ":full_ref=true", 5, 4, 2},
      {{1920, 1080, k420, 8}, banding, ":cambi_high_res_speedup=1080", 2, 2, 1},
      {{1920, 1080, k420, 10}, many_levels, ":enc_width=961:enc_height=541:enc_bitdepth=8", 2, 2, 1},
  };
  std::size_t i = 0;
  for (const HeatCase& h : cases) {
    const fs::path cpu_dir = fresh_dir(fmt::format("heat{}_cpu", i)), gpu_dir = fresh_dir(fmt::format("heat{}_cuda", i));
    ++i;
    auto make = [&](const fs::path& dir) {
      return SynthCase{h.fmt, h.kind, {"cambi=heatmaps_path=" + dir.string() + h.options}, h.frames};
    };
    RunOptions cpu_opts = backend_run_options(Backend::cpu, 1), gpu_opts = backend_run_options(Backend::cuda, h.threads);
    cpu_opts.subsample = gpu_opts.subsample = h.subsample;
    const SynthCase cpu_case = make(cpu_dir);
    const std::string what = fmt::format("{} heatmaps{} cuda threads {} subsample {}", h.fmt.describe(), h.options,
                                         h.threads, h.subsample);
    const RunResult cpu = run_case(cpu_case, cpu_opts);
    const RunResult gpu = run_case(make(gpu_dir), gpu_opts);
    expect_device_did_the_work(gpu, h.frames, what);
    EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
    const std::size_t nonzero = expect_same_heatmaps(cpu_dir, gpu_dir, what);
    if (h.zero) {
      EXPECT_EQ(nonzero, 0u) << what;
    } else {
      EXPECT_GT(nonzero, 0u) << what << ": the CPU's heat maps are all zero";
    }
    fs::remove_all(cpu_dir);
    fs::remove_all(gpu_dir);
  }
}

// A luma sample above the bit depth (10-bit 1024, 12-bit 4096, in the
// distorted frame 1 or, with full_ref, the reference) is refused on CUDA as
// on the CPU: an input Error naming the frame and the value, not an internal
// error, and no scores.
TEST(CudaCambi, OutOfRangeSamplesAreRefusedAsOnTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct BadCase {
    unsigned bpc;
    bool in_ref;
    const char* feature;
  };
  for (const BadCase& b : {BadCase{10, false, "cambi"}, BadCase{12, false, "cambi=enc_bitdepth=8"},
                           BadCase{10, true, "cambi=full_ref=true"}}) {
    const VideoFormat fmt{333, 217, k420, b.bpc};
    const CambiContent content{b.bpc, banding, fmt.width, fmt.height};
    const unsigned bad = 1u << b.bpc;
    auto side = [=](bool ref) {
      return [=](std::uint64_t f, unsigned p, unsigned x, unsigned y) -> unsigned {
        if (p == 0 && f == 1 && ref == b.in_ref && x == 100 && y == 50) return bad;
        return ref ? content.ref(f, p, x, y) : content.dist(f, p, x, y);
      };
    };
    auto message = [&](Backend backend) -> std::string {
      SyntheticReader ref("ref", fmt, 3, side(true)), dist("dist", fmt, 3, side(false));
      try {
        exactvmaf::run(ref, dist, {parse_feature_request(b.feature)}, backend_run_options(backend, 2));
      } catch (const InternalError& e) {
        return std::string("internal error: ") + e.what();
      } catch (const Error& e) {
        return e.what();
      }
      return "no error";
    };
    const std::string cpu = message(Backend::cpu), gpu = message(Backend::cuda);
    const std::string expected = fmt::format("frame 1 of the {} input has a luma sample of {}",
                                             b.in_ref ? "reference" : "distorted", bad);
    EXPECT_NE(cpu.find(expected), std::string::npos) << "cpu: " << cpu;
    EXPECT_NE(gpu.find(expected), std::string::npos) << b.bpc << "-bit " << b.feature << ": cpu: " << cpu
                                                     << "\ncuda: " << gpu;
  }
}

}  // namespace
}  // namespace exactvmaf::test
