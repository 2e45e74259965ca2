// The feature-extractor interface and registry. A feature is one folder in
// src/features/ and one registry line in src/features/CMakeLists.txt
// (docs/design.md, "How to add a feature").
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "exactvmaf/format.hpp"
#include "exactvmaf/scores.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

namespace cuda {
class FeatureWorker;  // src/backends/cuda/cuda_feature.hpp
}

// ---- options ----------------------------------------------------------------
enum class OptionType { boolean, integer, real, string };
using OptionValue = std::variant<bool, std::int64_t, double, std::string>;

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::boolean;
  OptionValue default_value;
  double min = 0, max = 0;  // inclusive range for integer and real
  std::string help;
  // libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM: a value other than the default
  // adds a suffix to the feature's output names (feature_output_name).
  bool feature_param = false;
  std::string alias = {};  // the suffix's key; empty: the option's name
};

// Values of one feature's options after parsing "opt=val:opt=val".
class OptionValues {
 public:
  OptionValues() = default;
  explicit OptionValues(const std::vector<OptionSpec>* specs);
  bool get_bool(std::string_view name) const;
  std::int64_t get_int(std::string_view name) const;
  double get_real(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  bool is_default(std::string_view name) const;
  // Parses and range-checks one "name=value" pair; `feature` names the owner
  // in the error message.
  void set(std::string_view feature, std::string_view name, std::string_view value);
  const std::vector<OptionSpec>& specs() const { return *specs_; }

 private:
  std::size_t index_of(std::string_view name) const;
  const std::vector<OptionSpec>* specs_ = nullptr;
  std::vector<OptionValue> values_;
  std::vector<bool> set_;
};

// libvmaf's output name for `name` under `options`: for each feature_param
// option whose value is not the default, in strcmp order of option names,
// "_KEY" for a boolean and "_KEY_VALUE" otherwise (reals as printf "%g").
// `options` must have been made from a spec list (OptionValues(&specs)).
std::string feature_output_name(std::string_view name, const OptionValues& options);

// ---- per-frame interface ----------------------------------------------------
struct FrameInput {
  std::uint64_t index = 0;  // output frame number
  PictureView ref, dist;
  // The extractor's history() previous frames, most recent first; fewer at the
  // start of the clip.
  std::span<const PictureView> prev_ref, prev_dist;
};

// Values one extractor produces for one frame, by output slot (the position
// of the name in the list init() returned).
class FrameOutput {
 public:
  void set(unsigned slot, double value) { entries_.push_back({slot, value}); }
  struct Entry {
    unsigned slot;
    double value;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  void clear() { entries_.clear(); }

 private:
  std::vector<Entry> entries_;
};

// Per-thread state (scratch buffers). One worker is used by one thread at a
// time; different workers of one extractor run concurrently.
class FeatureWorker {
 public:
  virtual ~FeatureWorker() = default;
  virtual void extract(const FrameInput& in, FrameOutput& out) = 0;
};

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;
  // Called once with the clip's format; returns the per-frame output names
  // (in libvmaf's order), which define the slots of FrameOutput.
  virtual std::vector<std::string> init(const VideoFormat& fmt) = 0;
  virtual std::unique_ptr<FeatureWorker> make_worker() = 0;
  // Previous frames extract() needs (0: none).
  virtual unsigned history() const { return 0; }
  // After the last frame: derived per-frame values and aggregate metrics.
  virtual void flush(ScoreTable& table) { (void)table; }
  // The CUDA version of make_worker() (src/backends/cuda/cuda_feature.hpp),
  // called after init() once per pipeline thread; overridden exactly by the
  // features whose FeatureInfo::has_cuda is set. Default: nullptr.
  virtual std::unique_ptr<cuda::FeatureWorker> make_cuda_worker();
};

// ---- registry ---------------------------------------------------------------
struct FeatureInfo {
  std::string name;  // as in --feature NAME
  std::string help;
  std::vector<OptionSpec> options;
  std::vector<std::string> provided;  // metric names with default options
  // libvmaf's TEMPORAL/PREV_REF flags: runs on every frame, also on frames
  // that --subsample leaves out of the output.
  bool every_frame = false;
  // Reads the luma plane only (with any options): when every feature of a run
  // does, the readers skip chroma.
  bool luma_only = false;
  // A boolean option that makes a luma_only = false feature read chroma
  // (float_motion's motion_add_uv); with it false the feature reads luma only.
  std::string chroma_option;
  // This build has the feature's CUDA worker (FeatureExtractor::make_cuda_worker);
  // without it --backend cuda fails naming the feature and auto runs on the cpu.
  bool has_cuda = false;
  std::function<std::unique_ptr<FeatureExtractor>(const OptionValues&)> create;
};

const std::vector<FeatureInfo>& feature_registry();
const FeatureInfo* find_feature(std::string_view name);

// A parsed --feature argument: "name" or "name=opt=val:opt=val".
struct FeatureRequest {
  const FeatureInfo* info = nullptr;
  OptionValues options;
};
// Throws Error naming the feature/option for an unknown feature, unknown
// option, malformed value or value out of range.
FeatureRequest parse_feature_request(std::string_view arg);

}  // namespace exactvmaf

#pragma GCC visibility pop
