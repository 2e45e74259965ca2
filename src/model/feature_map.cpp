// Which upstream extractor provides a model's feature, and libvmaf's names.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/model_detail.hpp"
#include "output/report_detail.hpp"

namespace exactvmaf::model_detail {

namespace {

struct Provider {
  const char* extractor;
  const char* features;  // space-separated provided_features
};

// libvmaf's feature_extractor_list order (a build with float features, as the
// goldens' build), each extractor's provided_features.
constexpr Provider kProviders[] = {
    {"float_psnr", "float_psnr"},
    {"float_ansnr", "float_ansnr"},
    {"float_adm",
     "VMAF_feature_adm2_score VMAF_feature_aim_score VMAF_feature_adm3_score VMAF_feature_adm_scale0_score "
     "VMAF_feature_adm_scale1_score VMAF_feature_adm_scale2_score VMAF_feature_adm_scale3_score adm_num adm_den "
     "adm_scale0 adm_num_scale0 adm_den_scale0 adm_num_scale1 adm_den_scale1 adm_num_scale2 adm_den_scale2 "
     "adm_num_scale3 adm_den_scale3"},
    {"float_vif",
     "VMAF_feature_vif_scale0_score VMAF_feature_vif_scale1_score VMAF_feature_vif_scale2_score "
     "VMAF_feature_vif_scale3_score vif vif_num vif_den vif_num_scale0 vif_den_scale0 vif_num_scale1 "
     "vif_den_scale1 vif_num_scale2 vif_den_scale2 vif_num_scale3 vif_den_scale3"},
    {"float_motion", "VMAF_feature_motion_score VMAF_feature_motion2_score VMAF_feature_motion3_score"},
    {"float_moment", "float_moment"},
    {"speed_chroma",
     "Speed_chroma_feature_speed_chroma_u_score Speed_chroma_feature_speed_chroma_v_score "
     "Speed_chroma_feature_speed_chroma_uv_score"},
    {"speed_temporal", "Speed_temporal_feature_speed_temporal_score"},
    {"float_ms_ssim", "float_ms_ssim"},
    {"float_ssim", "float_ssim"},
    {"ciede", "ciede2000"},
    {"psnr", "psnr_y psnr_cb psnr_cr"},
    {"psnr_hvs", ""},
    {"adm",
     "VMAF_integer_feature_adm2_score VMAF_integer_feature_aim_score VMAF_integer_feature_adm3_score "
     "integer_adm_scale0 integer_adm_scale1 integer_adm_scale2 integer_adm_scale3 integer_adm integer_adm_num "
     "integer_adm_den integer_adm_num_scale0 integer_adm_den_scale0 integer_adm_num_scale1 integer_adm_den_scale1 "
     "integer_adm_num_scale2 integer_adm_den_scale2 integer_adm_num_scale3 integer_adm_den_scale3"},
    {"motion",
     "VMAF_integer_feature_motion_sad_score VMAF_integer_feature_motion_score VMAF_integer_feature_motion2_score "
     "VMAF_integer_feature_motion3_score"},
    {"vif",
     "VMAF_integer_feature_vif_scale0_score VMAF_integer_feature_vif_scale1_score "
     "VMAF_integer_feature_vif_scale2_score VMAF_integer_feature_vif_scale3_score integer_vif integer_vif_num "
     "integer_vif_den integer_vif_num_scale0 integer_vif_den_scale0 integer_vif_num_scale1 integer_vif_den_scale1 "
     "integer_vif_num_scale2 integer_vif_den_scale2 integer_vif_num_scale3 integer_vif_den_scale3"},
    {"cambi", "Cambi_feature_cambi_score"},
    {"null", ""},
};

bool list_contains(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    const auto sp = list.find(' ');
    if (list.substr(0, sp) == word) return true;
    if (sp == std::string_view::npos) break;
    list.remove_prefix(sp + 1);
  }
  return false;
}

}  // namespace

const char* extractor_providing(std::string_view feature_name) {
  for (const Provider& p : kProviders)
    if (list_contains(p.features, feature_name)) return p.extractor;
  return nullptr;
}

bool is_upstream_extractor(std::string_view name) {
  for (const Provider& p : kProviders)
    if (name == p.extractor) return true;
  return false;
}

// libvmaf feature/alias.c: the same table names metrics in the output.
std::string_view feature_alias(std::string_view feature_name) { return detail::metric_print_name(feature_name); }

std::string normalize_numeric(std::string_view value) {
  const std::string text(value);
  char* end = nullptr;
  // libvmaf parses with strtof (float) and prints the double "%g".
  const double d = static_cast<double>(std::strtof(text.c_str(), &end));
  if (d == 0 && end == text.c_str()) return text;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

bool looks_numeric(std::string_view value) {
  const std::string text(value);
  char* end = nullptr;
  (void)std::strtof(text.c_str(), &end);
  if (end == text.c_str()) return false;
  for (const char* p = end; *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p))) return false;
  return true;
}

}  // namespace exactvmaf::model_detail
