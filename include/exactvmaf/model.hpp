// VMAF models: Netflix libvmaf JSON model files (a LIBSVMNUSVR model or a
// bootstrap collection), the features they pull in, and their prediction.
//
//   specs  = {parse_model_spec("version=vmaf_v0.6.1")};          // -m arguments
//   models = load_models(specs, {});                             // files, checked
//   result = run(ref, dist, model_feature_requests(models, user_features), opts);
//   predict(models, result.scores, result.frames, opts.subsample);  // appends "vmaf", ...
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "exactvmaf/scores.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

// ---- -m/--model arguments ----------------------------------------------------
// One -m argument, libvmaf's syntax: colon-separated "key=value" items:
// path=FILE | version=NAME, name=NAME (output name, default "vmaf"),
// disable_clip, enable_transform (bare or =true/=false), and
// FEATURE.OPTION=VALUE (an option of one of the model's features, e.g.
// adm.adm_enhn_gain_limit=1.1).
struct ModelSpec {
  std::string arg;  // as given, for messages
  std::string path, version;
  std::string name = "vmaf";
  bool disable_clip = false, enable_transform = false;
  struct Override {
    std::string feature, option, value;
  };
  std::vector<Override> overrides;
};
// Throws Error for a malformed argument (unknown key, empty path/version/name,
// both or neither of path and version, FEATURE.OPTION without a dot).
ModelSpec parse_model_spec(std::string_view arg);

// Where version=NAME is looked up: model_dir (--model_dir) if set, then
// $EXACTVMAF_MODEL_DIR if set (in each NAME.json, then <subdirectory>/NAME.json,
// subdirectories in name order), then the models compiled into the library
// (every file of the repository's models/ folder, named as libvmaf names its
// built-in models: the file name without .json).
struct ModelSearch {
  std::string model_dir;
};
std::vector<std::filesystem::path> model_search_dirs(const ModelSearch& search);
// The first NAME.json in the search directories; nullopt when none has it.
// Throws Error when NAME is not a plain model name (e.g. holds a '/').
std::optional<std::filesystem::path> find_model_file(std::string_view version, const ModelSearch& search);
// The built-in models' names, in file order (vmaf_4k_v0.6.1, ..., vmaf_v1.0.16_3d0h, ...).
std::vector<std::string> builtin_model_names();
// A built-in model's JSON text; nullopt when no built-in model has that name.
std::optional<std::string_view> builtin_model_json(std::string_view version);

// ---- model data ----------------------------------------------------------------
struct SvmNode {
  int index = -1;  // 1-based feature index; -1 ends a vector
  double value = 0;
};

// libsvm's nu_svr / epsilon_svr regression model with an RBF kernel.
struct SvmModel {
  double gamma = 0, rho = 0;
  std::vector<double> coef;          // one per support vector
  std::vector<SvmNode> nodes;        // every support vector, each ended by index -1
  std::vector<std::size_t> sv_start; // first node of each support vector
};

struct ModelFeature {
  std::string name;       // as in the model file, e.g. VMAF_integer_feature_adm2_score
  std::string extractor;  // upstream extractor providing it (--feature name), e.g. "adm"
  // Options in libvmaf's dictionary form (numbers normalised as libvmaf does).
  std::vector<std::pair<std::string, std::string>> options;
  double slope = 1, intercept = 0;
};

struct ScoreTransform {
  bool enabled = false;
  bool p0_enabled = false, p1_enabled = false, p2_enabled = false;
  double p0 = 0, p1 = 0, p2 = 0;
  bool knots_enabled = false;
  std::vector<std::pair<double, double>> knots;
  bool out_lte_in = false, out_gte_in = false;
};

enum class NormType { none, linear_rescale };

// One SVR model (a whole LIBSVMNUSVR file, or one member of a bootstrap file).
struct SvrModel {
  std::string name;  // output metric name: "vmaf", "vmaf_0001", ...
  NormType norm = NormType::none;
  double slope = 1, intercept = 0;
  std::vector<ModelFeature> features;
  bool clip_enabled = false;
  double clip_min = 0, clip_max = 0;
  ScoreTransform transform;
  bool chroma_correction_enabled = false;
  double chroma_correction = 0;
  SvmModel svm;
};

// A loaded -m argument. `main` is the model (a bootstrap file's member "0");
// `bootstrap` holds members "1", "2", ... of a bootstrap file, whose outputs
// are NAME_0001, ..., NAME_bagging, NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi.
struct Model {
  std::string source;  // file read
  std::string label;   // version or path as given
  SvrModel main;
  std::vector<SvrModel> bootstrap;
  std::string collection_name;  // NAME (bootstrap only)
};

// Parses a model file's text; `source` names it in errors. Fails on bad JSON,
// missing or ill-typed fields, unknown model or norm type, wrong vector
// lengths, a malformed libsvm model, and feature names no libvmaf extractor
// provides. Features not implemented yet (cambi, speed_chroma, ...) parse.
Model parse_model_json(std::string_view text, std::string_view source, const ModelSpec& spec = {});
// Finds (version=: a search directory's file, else the built-in model) or
// reads (path=) the model, parses it, applies the spec's name, flags and
// FEATURE.OPTION overrides. Throws Error listing every place searched when
// version=NAME is found nowhere.
Model load_model(const ModelSpec& spec, const ModelSearch& search);
// FEATURE.OPTION=VALUE (as in a -m argument) on every feature of the model
// and its bootstrap members that extractor FEATURE computes; false when none
// does.
bool override_model_feature(Model& model, const ModelSpec::Override& o);
// All of them; model output names must be unique (as libvmaf requires).
std::vector<Model> load_models(const std::vector<ModelSpec>& specs, const ModelSearch& search);

// ---- features and prediction ---------------------------------------------------
// The feature requests the models need (models in order, features in model
// order), then `user`, without duplicates (libvmaf's rule: the same extractor
// with the same option-suffixed name is computed once; the first request
// wins). Throws Error when a model's feature is not available in this build
// ("feature cambi is not available yet").
std::vector<FeatureRequest> model_feature_requests(const std::vector<Model>& models,
                                                   std::vector<FeatureRequest> user = {});

// The ScoreTable metric name a model feature is read from, e.g.
// VMAF_integer_feature_adm2_score with adm_enhn_gain_limit=1 -> integer_adm2_egl_1.
std::string model_feature_metric(const ModelFeature& feature);

// libvmaf's vmaf_predict_score_at_index for one SVR model on one frame's raw
// feature values (in the model's feature order): normalisation, SVM,
// denormalisation, then transform and clip unless disabled.
double predict_score(const SvrModel& model, std::span<const double> features, bool disable_clip = false,
                     bool disable_transform = false);

// Predicts every model on frames 0..frames-1 (every `subsample`-th, as libvmaf
// predicts them) from the features in `table` and appends the outputs in
// libvmaf's order: each model's NAME (in order), then each bootstrap model's
// members and NAME_bagging, NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi.
// Throws Error when a feature value is missing. `metric_of` maps a model
// feature to its metric name (default: model_feature_metric).
using ModelFeatureNamer = std::function<std::string(const ModelFeature&)>;
void predict(const std::vector<Model>& models, ScoreTable& table, std::uint64_t frames, unsigned subsample = 1,
             const ModelFeatureNamer& metric_of = {});
// predict()'s two parts, for callers that predict one model at a time (the
// libvmaf C API): one SVR model's NAME, and a bootstrap model's members and
// NAME_bagging, NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi.
void predict_model(const SvrModel& model, ScoreTable& table, std::uint64_t frames, unsigned subsample = 1,
                   const ModelFeatureNamer& metric_of = {});
void predict_bootstrap(const Model& model, ScoreTable& table, std::uint64_t frames, unsigned subsample = 1,
                       const ModelFeatureNamer& metric_of = {});

}  // namespace exactvmaf

#pragma GCC visibility pop
