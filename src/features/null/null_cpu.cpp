// null: computes nothing. The read-and-dispatch floor, as upstream's `null`.
#include "features/registry.hpp"

namespace exactvmaf {

namespace {
class NullWorker final : public FeatureWorker {
 public:
  void extract(const FrameInput&, FrameOutput&) override {}
};
class NullExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat&) override { return {}; }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<NullWorker>(); }
};
}  // namespace

FeatureInfo null_feature_info() {
  FeatureInfo f;
  f.name = "null";
  f.help = "computes nothing: measures reading and dispatch alone";
  f.create = [](const OptionValues&) { return std::make_unique<NullExtractor>(); };
  return f;
}

}  // namespace exactvmaf
