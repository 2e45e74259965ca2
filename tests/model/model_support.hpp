// Helpers shared by the model tests: the model directory, temp files, the
// golden runs named vmaf*.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"

namespace exactvmaf::test {

// The repository's models/ folder (the same files are compiled into the library).
inline std::filesystem::path models_dir() { return std::filesystem::path(EXACTVMAF_SOURCE_DIR) / "models"; }

// The model files are part of the repository: a missing folder is a failure.
#define EXACTVMAF_REQUIRE_MODELS()                                                                \
  ASSERT_TRUE(std::filesystem::is_directory(models_dir()))                                        \
      << "model files not found in " << models_dir().string() << " (they belong to the repository)"

// Sets (or, with nullopt, unsets) an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline std::filesystem::path model_temp_dir() {
  static const auto dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("exactvmaf_model_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::filesystem::path write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The message of the Error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A golden run named vmaf* (tools/fixtures/run_goldens.py): -m arguments
// (MODELS stands for the model directory), --feature arguments, --subsample.
struct ModelRun {
  std::vector<std::string> models;
  std::vector<std::string> features;
  unsigned subsample = 1;
};

inline const std::map<std::string, ModelRun>& model_runs() {
  static const std::map<std::string, ModelRun> runs = {
      {"vmaf_v0.6.1", {{"path=MODELS/vmaf_v0.6.1.json"}, {}}},
      {"vmaf_v0.6.1neg", {{"path=MODELS/vmaf_v0.6.1neg.json"}, {}}},
      {"vmaf_4k_v0.6.1", {{"path=MODELS/vmaf_4k_v0.6.1.json"}, {}}},
      {"vmaf_b_v0.6.3", {{"path=MODELS/vmaf_b_v0.6.3.json"}, {}}},
      {"vmaf_two_models",
       {{"path=MODELS/vmaf_v0.6.1.json:name=vmaf", "path=MODELS/vmaf_v0.6.1neg.json:name=vmaf_neg"}, {}}},
      {"vmaf_v0.6.1_noclip_transform", {{"path=MODELS/vmaf_v0.6.1.json:disable_clip:enable_transform"}, {}}},
      {"vmaf_v0.6.1_subsample2", {{"path=MODELS/vmaf_v0.6.1.json"}, {}, 2}},
      {"vmaf_v0.6.1_psnr", {{"path=MODELS/vmaf_v0.6.1.json"}, {"psnr"}}},
      {"vmaf_v0.6.1_model_opt", {{"path=MODELS/vmaf_v0.6.1.json:adm.adm_enhn_gain_limit=1.1"}, {}}},
      {"vmaf_v1.0.16_3d0h", {{"path=MODELS/vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json"}, {}}},
      {"vmaf_v1.0.16_5d0h", {{"path=MODELS/vmaf_v1.0.16/vmaf_v1.0.16_5d0h.json"}, {}}},
      {"vmaf_v1.0.16_3d0h_2160", {{"path=MODELS/vmaf_v1.0.16/vmaf_v1.0.16_3d0h_2160.json"}, {}}},
      {"vmaf_v1.0.16_1d5h_2160", {{"path=MODELS/vmaf_v1.0.16/vmaf_v1.0.16_1d5h_2160.json"}, {}}},
      {"vmaf_v1.0.16_hfr_3d0h", {{"path=MODELS/vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h.json"}, {}}},
      {"vmaf_v1.0.16_hfr_5d0h", {{"path=MODELS/vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_5d0h.json"}, {}}},
      {"vmaf_v1.0.16_hfr_3d0h_2160", {{"path=MODELS/vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h_2160.json"}, {}}},
      {"vmaf_v1.0.16_hfr_1d5h_2160", {{"path=MODELS/vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_1d5h_2160.json"}, {}}},
      {"vmaf_v1.0.16_3d0h_model_opt",
       {{"path=MODELS/vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json:cambi.cambi_topk=0.3:motion.motion_five_frame_window=true"},
        {}}},
      {"vmaf_v1.0.16_3d0h_subsample2", {{"path=MODELS/vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json"}, {}, 2}},
  };
  return runs;
}

inline std::vector<ModelSpec> model_specs(const ModelRun& run) {
  std::vector<ModelSpec> specs;
  for (std::string m : run.models) {
    const auto at = m.find("MODELS");
    if (at != std::string::npos) m.replace(at, 6, models_dir().string());
    specs.push_back(parse_model_spec(m));
  }
  return specs;
}

}  // namespace exactvmaf::test
