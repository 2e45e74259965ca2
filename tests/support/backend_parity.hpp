// Comparing two runs of the same input on two backends bit for bit.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "backends/cuda/cuda_feature.hpp"  // the complete FeatureWorker type
#include "exactvmaf/cuda.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"
#include "support/synthetic.hpp"

namespace exactvmaf::test {

// Empty when a CUDA device can run this build's kernels; otherwise why not.
inline const std::string& device_problem() {
  static const std::string problem = [] {
    const CudaStatus s = cuda_status();
    if (!s.devices.empty()) return std::string();
    return s.problem.empty() ? std::string("none found") : s.problem;
  }();
  return problem;
}

#define REQUIRE_CUDA_DEVICE() \
  if (!device_problem().empty()) GTEST_SKIP() << "no CUDA device: " << device_problem()

// A golden run's options on `backend` with `threads` workers.
inline RunOptions golden_run_options(const GoldenRun& run, Backend backend, unsigned threads) {
  RunOptions o;
  o.subsample = run.subsample;
  o.frame_cnt = run.frame_cnt;
  o.threads = threads;
  o.backend = backend;
  return o;
}

// Every frame value and aggregate, same names in the same order. Returns the
// number of values compared (so a vacuous comparison is caught) and reports
// the first differing frame and metric. A CUDA run must have computed every
// frame on the device (no host recomputation that would make "CUDA equals
// CPU" a comparison of the CPU with itself) unless the test forces host
// frames.
inline std::size_t expect_same_bits(const RunResult& cpu, const RunResult& gpu, const std::string& what,
                                    bool host_frames_forced = false) {
  if (gpu.backend == Backend::cuda && !host_frames_forced) {
    EXPECT_EQ(gpu.cuda_host_frames, 0u) << what << ": " << gpu.cuda_host_frames << " of " << gpu.frames
                                        << " frames were computed on the host, not the device";
  }
  EXPECT_EQ(gpu.frames, cpu.frames) << what;
  EXPECT_EQ(gpu.scores.metric_count(), cpu.scores.metric_count()) << what;
  std::size_t compared = 0, differing = 0;
  std::string first;
  for (std::size_t id = 0; id < std::min(cpu.scores.metric_count(), gpu.scores.metric_count()); ++id) {
    EXPECT_EQ(gpu.scores.metric_name(id), cpu.scores.metric_name(id)) << what;
    for (std::uint64_t f = 0; f < std::min(cpu.frames, gpu.frames); ++f) {
      const auto a = cpu.scores.get(id, f), b = gpu.scores.get(id, f);
      EXPECT_EQ(a.has_value(), b.has_value()) << what << " frame " << f << " " << cpu.scores.metric_name(id);
      if (!a || !b) continue;
      ++compared;
      if (!same_bits(*a, *b)) {
        ++differing;
        if (first.empty())
          first = fmt::format("frame {} {}: cpu {:.17g} cuda {:.17g}", f, cpu.scores.metric_name(id), *a, *b);
      }
    }
  }
  EXPECT_EQ(differing, 0u) << what << ": " << differing << " of " << compared << " values differ; first " << first;
  EXPECT_EQ(gpu.scores.aggregates().size(), cpu.scores.aggregates().size()) << what;
  for (std::size_t a = 0; a < std::min(cpu.scores.aggregates().size(), gpu.scores.aggregates().size()); ++a)
    EXPECT_TRUE(same_bits(gpu.scores.aggregates()[a].second, cpu.scores.aggregates()[a].second))
        << what << " aggregate " << cpu.scores.aggregates()[a].first;
  return compared;
}

// Options for `threads` workers on `backend`, CUDA graphs on or off.
inline RunOptions backend_run_options(Backend backend, unsigned threads, bool cuda_graphs = true) {
  RunOptions o;
  o.backend = backend;
  o.threads = threads;
  o.cuda_graphs = cuda_graphs;
  return o;
}

// A golden case on CUDA with 1 and 4 threads: the same bits as the CPU with
// 1 thread and, where compare_with_r, R's golden numbers. cuda_feature_sets:
// feature lists that must each give the CPU run's bits on CUDA (default: the
// run's own features).
inline void expect_cuda_equals_cpu_and_r(const GoldenCase& c, const GoldenRun& run, bool compare_with_r = true,
                                         std::vector<std::vector<std::string>> cuda_feature_sets = {}) {
  const auto pair = fixture_pair(c.pair);
  ASSERT_TRUE(pair) << c.pair << " missing from tests/fixtures/manifest.json";
  const RunResult cpu = run_fixture(*pair, run.features, golden_run_options(run, Backend::cpu, 1));
  const auto r = read_json(golden_dir() / "r" / c.pair / (c.run + ".json"));
  const bool own_features = cuda_feature_sets.empty();
  if (own_features) cuda_feature_sets.push_back(run.features);
  for (const auto& features : cuda_feature_sets)
    for (unsigned threads : {1u, 4u}) {
      const std::string what = own_features ? fmt::format("{}/{} threads {}", c.pair, c.run, threads)
                                            : fmt::format("{}/{} as {} threads {}", c.pair, c.run,
                                                          fmt::join(features, " "), threads);
      const RunResult gpu = run_fixture(*pair, features, golden_run_options(run, Backend::cuda, threads));
      EXPECT_EQ(gpu.backend, Backend::cuda) << what;
      EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u);
      if (!compare_with_r) continue;
      const GoldenComparison vs_r = compare_with_golden(r, gpu, run.subsample);
      EXPECT_GT(vs_r.values, 0u) << what;
      EXPECT_EQ(vs_r.differing, 0u) << what << ": " << vs_r.differing << " of " << vs_r.values
                                    << " values differ from R; first: " << vs_r.first_difference;
    }
}

// The extractor of `feature` offers a CUDA worker exactly in CUDA builds, and
// its FeatureInfo says so (asking makes no CUDA call, so this runs in every
// build).
inline void expect_cuda_worker_exactly_in_cuda_builds(const std::string& feature, const VideoFormat& fmt) {
  const FeatureRequest req = parse_feature_request(feature);
  auto extractor = req.info->create(req.options);
  extractor->init(fmt);
  const bool has_worker = extractor->make_cuda_worker() != nullptr;
  EXPECT_EQ(has_worker, cuda_status().built) << feature;
  EXPECT_EQ(req.info->has_cuda, has_worker) << feature << ": FeatureInfo::has_cuda disagrees with the extractor";
}

// One feature on RampNoiseContent of `kind`: CUDA with 2 threads gives the
// bits of the CPU with 1. Teeth: outside the near-flat kind 3, the CPU's
// metric `quotient_metric` (a per-scale quotient) of the first frame is a
// real quotient, not the 1 of identical or flat frames.
inline void expect_cuda_equals_cpu_on_ramp_noise(const VideoFormat& fmt, int kind, const std::string& feature,
                                                 std::size_t quotient_metric, std::uint64_t frames) {
  const RampNoiseContent c{(1u << fmt.bitdepth) - 1, fmt.width, kind};
  const std::vector<std::string> features = {feature};
  const RunResult cpu = run_synthetic_pair(fmt, c, frames, features, backend_run_options(Backend::cpu, 1));
  const RunResult gpu = run_synthetic_pair(fmt, c, frames, features, backend_run_options(Backend::cuda, 2));
  const std::string what = fmt::format("{} kind {} {}", fmt.describe(), kind, feature);
  EXPECT_GT(expect_same_bits(cpu, gpu, what), 0u) << what;
  const auto v = cpu.scores.get(quotient_metric, 0);
  ASSERT_TRUE(v) << what;
  if (kind != 3) {
    EXPECT_NE(*v, 1.0) << what;
  }
}

// Flat frames (every sample 100, 8-bit 4:2:0 65x40, 2 frames): CUDA gives the
// CPU's bits. Returns the CPU run.
inline RunResult expect_cuda_equals_cpu_on_flat_frames(const std::string& feature) {
  const VideoFormat fmt{65, 40, PixelFormat::yuv420, 8};
  auto flat = [](std::uint64_t, unsigned, unsigned, unsigned) { return 100u; };
  SyntheticReader ref("ref", fmt, 2, flat), dist("dist", fmt, 2, flat);
  SyntheticReader ref2("ref", fmt, 2, flat), dist2("dist", fmt, 2, flat);
  RunOptions cpu_opts, gpu_opts;
  gpu_opts.backend = Backend::cuda;
  RunResult cpu = run(ref, dist, {parse_feature_request(feature)}, cpu_opts);
  const RunResult gpu = run(ref2, dist2, {parse_feature_request(feature)}, gpu_opts);
  EXPECT_GT(expect_same_bits(cpu, gpu, "flat"), 0u);
  return cpu;
}

// CUDA graphs on and off give the CPU's bits: `features` together in one run
// on 5 frames of 10-bit RampNoiseContent kind 0 (3 threads), and
// `fixture_feature` alone on every fixture pair without graphs (2 threads).
inline void expect_cuda_equals_cpu_graphs_on_and_off(const std::vector<std::string>& features,
                                                     const std::string& fixture_feature) {
  const VideoFormat fmt{200, 90, PixelFormat::yuv420, 10};
  const RampNoiseContent c{1023, fmt.width, 0};
  const RunResult cpu = run_synthetic_pair(fmt, c, 5, features, backend_run_options(Backend::cpu, 1));
  EXPECT_GT(expect_same_bits(cpu, run_synthetic_pair(fmt, c, 5, features, backend_run_options(Backend::cuda, 3, true)),
                             "graphs on"),
            0u);
  EXPECT_GT(expect_same_bits(cpu, run_synthetic_pair(fmt, c, 5, features, backend_run_options(Backend::cuda, 3, false)),
                             "graphs off"),
            0u);
  for (const auto& pair : fixture_pairs()) {
    RunOptions cpu_opts, direct;
    cpu_opts.threads = 1;
    direct.backend = Backend::cuda;
    direct.cuda_graphs = false;
    direct.threads = 2;
    expect_same_bits(run_fixture(pair, {fixture_feature}, cpu_opts), run_fixture(pair, {fixture_feature}, direct),
                     pair.name + " without graphs");
  }
}

}  // namespace exactvmaf::test
