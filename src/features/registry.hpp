// One function per feature returning its registry entry.
#pragma once
#include "exactvmaf/feature.hpp"

namespace exactvmaf {
FeatureInfo psnr_feature_info();
FeatureInfo float_psnr_feature_info();
FeatureInfo null_feature_info();
FeatureInfo motion_feature_info();
FeatureInfo adm_feature_info();
FeatureInfo float_adm_feature_info();
FeatureInfo vif_feature_info();
FeatureInfo ciede_feature_info();
FeatureInfo speed_chroma_feature_info();
FeatureInfo speed_temporal_feature_info();
FeatureInfo cambi_feature_info();
}  // namespace exactvmaf
