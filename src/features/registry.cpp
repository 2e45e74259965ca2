#include "features/registry.hpp"

namespace exactvmaf {

// feature_list.inc: EXACTVMAF_FEATURE(name) per registered FeatureInfo function.
#define EXACTVMAF_FEATURE(name) FeatureInfo name##_feature_info();
#include "features/feature_list.inc"
#undef EXACTVMAF_FEATURE

const std::vector<FeatureInfo>& feature_registry() {
  static const std::vector<FeatureInfo> registry = {
#define EXACTVMAF_FEATURE(name) name##_feature_info(),
#include "features/feature_list.inc"
#undef EXACTVMAF_FEATURE
  };
  return registry;
}

}  // namespace exactvmaf
