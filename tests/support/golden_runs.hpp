// The golden runs of tests/golden/runs.json (docs/design.md §8), the one list
// tools/fixtures/run_goldens.py made the goldens from: per group (the tests of
// one feature), run name -> --feature arguments and run options. Shared by the
// feature tests, the model tests and the CUDA tests.
#pragma once
#include <initializer_list>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/golden.hpp"

namespace exactvmaf::test {

// One run of runs.json as its libvmaf arguments say it: --feature values,
// -m values (MODELS still in them), --subsample, --frame_cnt, --threads.
struct GoldenRunArgs {
  std::string group;
  GoldenRun run;
  std::vector<std::string> models;
};

inline const std::map<std::string, GoldenRunArgs>& all_golden_runs() {
  static const std::map<std::string, GoldenRunArgs> runs = [] {
    std::map<std::string, GoldenRunArgs> out;
    const nlohmann::json file = read_json(golden_dir() / "runs.json");
    for (const auto& r : file.at("runs")) {
      GoldenRunArgs g;
      g.group = r.at("group").get<std::string>();
      const auto args = r.at("args").get<std::vector<std::string>>();
      for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
        const std::string& key = args[i];
        const std::string& value = args[i + 1];
        if (key == "--feature") g.run.features.push_back(value);
        else if (key == "-m") g.models.push_back(value);
        else if (key == "--subsample") g.run.subsample = static_cast<unsigned>(std::stoul(value));
        else if (key == "--frame_cnt") g.run.frame_cnt = std::stoull(value);
        else if (key == "--threads") g.run.threads = static_cast<unsigned>(std::stoul(value));
        else throw std::runtime_error("tests/golden/runs.json: run " + r.at("name").get<std::string>() +
                                      ": unknown argument " + key);
      }
      if (args.size() % 2 != 0)
        throw std::runtime_error("tests/golden/runs.json: run " + r.at("name").get<std::string>() +
                                 ": an argument without a value");
      out.emplace(r.at("name").get<std::string>(), std::move(g));
    }
    return out;
  }();
  return runs;
}

// The runs of one group of runs.json (a test that reads a group that does
// not exist fails at start-up).
inline const std::map<std::string, GoldenRun>& golden_runs_of(const std::string& group) {
  static const std::map<std::string, std::map<std::string, GoldenRun>> by_group = [] {
    std::map<std::string, std::map<std::string, GoldenRun>> out;
    for (const auto& [name, g] : all_golden_runs()) out[g.group].emplace(name, g.run);
    return out;
  }();
  const auto it = by_group.find(group);
  if (it == by_group.end()) throw std::runtime_error("tests/golden/runs.json has no run of group " + group);
  return it->second;
}

inline const std::map<std::string, GoldenRun>& psnr_golden_runs() { return golden_runs_of("psnr"); }
inline const std::map<std::string, GoldenRun>& motion_golden_runs() { return golden_runs_of("motion"); }
inline const std::map<std::string, GoldenRun>& adm_golden_runs() { return golden_runs_of("adm"); }
inline const std::map<std::string, GoldenRun>& float_adm_golden_runs() { return golden_runs_of("float_adm"); }
inline const std::map<std::string, GoldenRun>& vif_golden_runs() { return golden_runs_of("vif"); }
inline const std::map<std::string, GoldenRun>& speed_golden_runs() { return golden_runs_of("speed"); }

// cambi's runs (HEATMAPS: a directory the test chooses; the golden keeps the
// files' sizes and checksums).
inline const std::map<std::string, GoldenRun>& cambi_golden_runs() { return golden_runs_of("cambi"); }

// The runs of group vmaf for the VMAF v1.0.16 models and their HFR variants
// (names vmaf_v1.0.16*; their features: cambi, speed_chroma, adm, motion).
// The -m values keep MODELS (the repository's models/ folder).
inline const std::map<std::string, GoldenRunArgs>& vmaf_v1_golden_runs() {
  static const std::map<std::string, GoldenRunArgs> runs = [] {
    std::map<std::string, GoldenRunArgs> out;
    for (const auto& [name, g] : all_golden_runs())
      if (g.group == "vmaf" && name.rfind("vmaf_v1.0.16", 0) == 0) out.emplace(name, g);
    if (out.empty()) throw std::runtime_error("tests/golden/runs.json has no vmaf_v1.0.16 run");
    return out;
  }();
  return runs;
}

// The fixture pairs with a ciede golden (run "ciede", no options).
inline std::vector<std::string> ciede_golden_pairs() {
  std::vector<std::string> out;
  for (const auto& p : fixture_pairs())
    if (std::filesystem::exists(golden_dir() / "r" / p.name / "ciede.json")) out.push_back(p.name);
  return out;
}

// Pairs where R's ciede golden (upstream + correctly rounded libm) is not R's
// definition: c02 (upstream reads uninitialised chroma past its w>>1 x h>>1
// planes; its numbers change between runs) and 4:2:2 (upstream's mapping is
// wrong).
inline bool ciede_golden_is_not_r(const std::string& pair) {
  return pair == "c02_175x97_8b_420" || pair == "c05_176x144_8b_422" || pair == "c08_176x144_10b_422";
}

// A golden case of one group of runs.json, for tests that run several groups.
struct GroupCase {
  std::string group;
  GoldenCase golden;
};

inline std::vector<GroupCase> golden_cases_of_groups(std::initializer_list<const char*> groups) {
  std::vector<GroupCase> out;
  for (const char* group : groups)
    for (const auto& c : golden_cases_for(golden_runs_of(group))) out.push_back({group, c});
  return out;
}

// How gtest prints a case (instead of its bytes), and its name suffix.
inline void PrintTo(const GroupCase& c, std::ostream* os) { *os << c.group << ": " << c.golden.pair << "/" << c.golden.run; }
inline std::string group_case_name(const GroupCase& c) { return c.group + "_" + golden_case_name(c.golden); }

}  // namespace exactvmaf::test
