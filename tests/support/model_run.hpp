// A golden model run (group vmaf or vmaf_float of runs.json) over a fixture
// pair on any backend: the models' features plus the run's own, then the
// prediction.
#pragma once
#include <string>
#include <vector>

#include "exactvmaf/model.hpp"
#include "support/fixtures.hpp"
#include "support/golden.hpp"

namespace exactvmaf::test {

// `model_args`: -m values (MODELS stands for the repository's models/).
inline RunResult run_models(const FixturePair& pair, const std::vector<std::string>& model_args,
                            const std::vector<std::string>& features, const RunOptions& o) {
  std::vector<ModelSpec> specs;
  for (std::string m : model_args) {
    if (const auto at = m.find("MODELS"); at != std::string::npos) m.replace(at, 6, (source_dir() / "models").string());
    specs.push_back(parse_model_spec(m));
  }
  const std::vector<Model> models = load_models(specs, {});
  std::vector<FeatureRequest> user;
  for (const auto& f : features) user.push_back(parse_feature_request(f));
  auto ref = open_fixture(pair, true);
  auto dist = open_fixture(pair, false);
  RunResult r = exactvmaf::run(*ref, *dist, model_feature_requests(models, std::move(user)), o);
  predict(models, r.scores, r.frames, o.subsample);
  return r;
}

}  // namespace exactvmaf::test
