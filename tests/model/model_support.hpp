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
#include "support/golden_runs.hpp"

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

// A golden run of group vmaf (tests/golden/runs.json): -m arguments (MODELS
// stands for the model directory), --feature arguments, --subsample.
struct ModelRun {
  std::vector<std::string> models;
  std::vector<std::string> features;
  unsigned subsample = 1;
};

inline const std::map<std::string, ModelRun>& model_runs() {
  static const std::map<std::string, ModelRun> runs = [] {
    std::map<std::string, ModelRun> out;
    for (const auto& [name, g] : all_golden_runs())
      if (g.group == "vmaf" || g.group == "vmaf_float") out.emplace(name, ModelRun{g.models, g.run.features, g.run.subsample});
    return out;
  }();
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
