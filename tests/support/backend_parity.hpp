// Comparing two runs of the same input on two backends bit for bit.
#pragma once
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exactvmaf/cuda.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"

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
// the first differing frame and metric.
inline std::size_t expect_same_bits(const RunResult& cpu, const RunResult& gpu, const std::string& what) {
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

}  // namespace exactvmaf::test
