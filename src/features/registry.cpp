#include "features/registry.hpp"

namespace exactvmaf {

const std::vector<FeatureInfo>& feature_registry() {
  // Adding a feature: its folder, and one line here.
  static const std::vector<FeatureInfo> registry = {
      psnr_feature_info(),
      float_psnr_feature_info(),
      null_feature_info(),
      motion_feature_info(),
      adm_feature_info(),
      float_adm_feature_info(),
      vif_feature_info(),
      ciede_feature_info(),
      speed_chroma_feature_info(),
      speed_temporal_feature_info(),
      cambi_feature_info(),
  };
  return registry;
}

}  // namespace exactvmaf
