// Comparing a run with a golden libvmaf JSON file, value by value and bit for
// bit (every frame, pooled and aggregate value).
#pragma once
#include <algorithm>
#include <cctype>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/fixtures.hpp"

namespace exactvmaf::test {

// Distance in units in the last place (0: same bits).
inline std::int64_t ulp_distance(double a, double b) {
  auto key = [](double x) {
    const auto u = std::bit_cast<std::int64_t>(x);
    return u < 0 ? std::numeric_limits<std::int64_t>::min() - u : u;
  };
  const std::int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

// How a golden file was made: libvmaf --feature arguments and run options.
struct GoldenRun {
  std::vector<std::string> features;
  unsigned subsample = 1;
  std::uint64_t frame_cnt = 0;
  unsigned threads = 0;
};

// One golden file: tests/golden/{r,upstream}/<pair>/<run>.json.
struct GoldenCase {
  std::string pair, run;
};

// The (pair, run) combinations of `runs` that have an R golden file.
template <class Runs>
std::vector<GoldenCase> golden_cases_for(const Runs& runs) {
  std::vector<GoldenCase> out;
  for (const auto& pair : fixture_pairs())
    for (const auto& [run, _] : runs)
      if (std::filesystem::exists(golden_dir() / "r" / pair.name / (run + ".json"))) out.push_back({pair.name, run});
  return out;
}

// Runs `run` on the fixture pair the way the golden was made.
inline RunResult run_golden(const FixturePair& pair, const GoldenRun& run) {
  RunOptions opts;
  opts.subsample = run.subsample;
  opts.frame_cnt = run.frame_cnt;
  opts.threads = run.threads;
  return run_fixture(pair, run.features, opts);
}

// How gtest prints a case (instead of its bytes).
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.pair << "/" << c.run; }

// Test-name suffix of a golden case: "<pair>__<run>" in [A-Za-z0-9_].
inline std::string golden_case_name(const GoldenCase& c) {
  std::string n = c.pair + "__" + c.run;
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// Asserts that `features` give the same bits (every frame value and
// aggregate, same names in the same order) at 2, 3 and 8 threads as at 1.
inline void expect_thread_invariant(const FixturePair& pair, const std::vector<std::string>& features) {
  RunOptions one;
  one.threads = 1;
  const RunResult base = run_fixture(pair, features, one);
  for (unsigned t : {2u, 3u, 8u}) {
    RunOptions o;
    o.threads = t;
    o.read_ahead = 1;
    const RunResult r = run_fixture(pair, features, o);
    ASSERT_EQ(r.frames, base.frames) << pair.name;
    ASSERT_EQ(r.scores.metric_count(), base.scores.metric_count());
    for (std::size_t id = 0; id < base.scores.metric_count(); ++id) {
      ASSERT_EQ(r.scores.metric_name(id), base.scores.metric_name(id));
      for (std::uint64_t f = 0; f < base.frames; ++f)
        ASSERT_TRUE(same_bits(*r.scores.get(id, f), *base.scores.get(id, f)))
            << pair.name << " threads " << t << " frame " << f << " " << base.scores.metric_name(id);
    }
    ASSERT_EQ(r.scores.aggregates().size(), base.scores.aggregates().size());
    for (std::size_t a = 0; a < base.scores.aggregates().size(); ++a)
      ASSERT_TRUE(same_bits(r.scores.aggregates()[a].second, base.scores.aggregates()[a].second))
          << pair.name << " threads " << t << " " << base.scores.aggregates()[a].first;
  }
}

struct GoldenComparison {
  std::size_t values = 0, differing = 0;
  std::int64_t max_ulps = 0;
  std::string first_difference;
};

// Compares every frame, pooled and aggregate value of `golden` with `ours`;
// pooled values over frames 0..frames-1 with libvmaf's subsample rule.
inline GoldenComparison compare_with_golden(const nlohmann::json& golden, const RunResult& ours,
                                            unsigned subsample) {
  GoldenComparison c;
  auto check = [&](const std::string& where, const nlohmann::json& g, std::optional<double> o) {
    ++c.values;
    const auto gv = json_number(g);
    bool same;
    if (!o) same = false;
    else if (!gv) same = !std::isfinite(*o);
    else same = same_bits(*gv, *o);
    if (!same) {
      ++c.differing;
      if (gv && o) c.max_ulps = std::max(c.max_ulps, ulp_distance(*gv, *o));
      else c.max_ulps = std::numeric_limits<std::int64_t>::max();
      if (c.first_difference.empty())
        c.first_difference = where + ": golden " + g.dump() + " ours " +
                             (o ? fmt::format("{:.17g}", *o) : std::string("missing"));
    }
  };
  const auto& table = ours.scores;
  for (const auto& frame : golden.at("frames")) {
    const std::uint64_t i = frame.at("frameNum");
    for (const auto& [name, v] : frame.at("metrics").items()) {
      const auto id = table.find_metric(name);
      check(fmt::format("frame {} {}", i, name), v, id ? table.get(*id, i) : std::nullopt);
    }
  }
  const std::uint64_t last = ours.frames ? ours.frames - 1 : 0;
  for (const auto& [name, pools] : golden.at("pooled_metrics").items()) {
    const auto id = table.find_metric(name);
    for (const auto& [method, v] : pools.items()) {
      const PoolMethod m = method == "min"    ? PoolMethod::min
                           : method == "max"  ? PoolMethod::max
                           : method == "mean" ? PoolMethod::mean
                                              : PoolMethod::harmonic_mean;
      check(fmt::format("pooled {} {}", name, method), v,
            id ? table.pooled(*id, m, 0, last, subsample) : std::nullopt);
    }
  }
  if (golden.contains("aggregate_metrics")) {
    for (const auto& [name, v] : golden.at("aggregate_metrics").items()) {
      std::optional<double> o;
      for (const auto& [n, val] : table.aggregates())
        if (n == name) o = val;
      check("aggregate " + name, v, o);
    }
  }
  return c;
}

// The metric names of a run, in output order.
inline std::vector<std::string> metric_names(const RunResult& r) {
  std::vector<std::string> names(r.scores.metric_count());
  for (std::size_t id = 0; id < names.size(); ++id) names[id] = r.scores.metric_name(id);
  return names;
}

// Records and prints a case's measured distance to plain upstream.
inline void report_upstream_distance(const GoldenCase& gc, const GoldenComparison& d) {
  ::testing::Test::RecordProperty("upstream_differing", static_cast<int>(d.differing));
  std::printf("[ distance ] %s/%s: %zu of %zu values differ from upstream (max %lld ulp)\n", gc.pair.c_str(),
              gc.run.c_str(), d.differing, d.values, static_cast<long long>(d.max_ulps));
}

// The metric names of a golden file's first frame, in file order (libvmaf's
// order; nlohmann::json would sort them).
inline std::vector<std::string> golden_metric_names(const std::filesystem::path& golden) {
  std::ifstream in(golden);
  const auto j = nlohmann::ordered_json::parse(in);
  std::vector<std::string> names;
  for (const auto& [name, v] : j.at("frames").at(0).at("metrics").items()) names.push_back(name);
  return names;
}

// Two golden files of one run, value by value (every frame value, then every
// pooled value), bit for bit (null equals null).
struct FileDistance {
  std::size_t frame_values = 0, frame_differing = 0, pooled_values = 0, pooled_differing = 0;
  double max_abs = 0;
  std::int64_t max_ulps = 0;
};
inline FileDistance file_distance(const nlohmann::json& a, const nlohmann::json& b) {
  FileDistance d;
  auto cmp = [&](const nlohmann::json& x, const nlohmann::json& y, std::size_t& values, std::size_t& differing) {
    ++values;
    const auto xv = json_number(x), yv = json_number(y);
    if (!xv && !yv) return;
    if (xv && yv && same_bits(*xv, *yv)) return;
    ++differing;
    if (xv && yv) {
      d.max_abs = std::max(d.max_abs, std::fabs(*xv - *yv));
      d.max_ulps = std::max(d.max_ulps, ulp_distance(*xv, *yv));
    } else {
      d.max_abs = INFINITY;
    }
  };
  const auto& fa = a.at("frames");
  const auto& fb = b.at("frames");
  EXPECT_EQ(fa.size(), fb.size());
  for (std::size_t i = 0; i < std::min(fa.size(), fb.size()); ++i)
    for (const auto& [name, v] : fa[i].at("metrics").items())
      cmp(v, fb[i].at("metrics").at(name), d.frame_values, d.frame_differing);
  for (const auto& [name, pools] : a.at("pooled_metrics").items())
    for (const auto& [method, v] : pools.items())
      cmp(v, b.at("pooled_metrics").at(name).at(method), d.pooled_values, d.pooled_differing);
  return d;
}

}  // namespace exactvmaf::test
