// Internals of src/model shared between its files.
#pragma once
#include <string>
#include <string_view>

namespace exactvmaf::model_detail {

// The upstream extractor (libvmaf feature_extractor_list, float features
// included) that provides `feature_name`, first match in upstream's order;
// nullptr when none does.
const char* extractor_providing(std::string_view feature_name);
// True when `name` is an upstream extractor name (adm, vif, cambi, ...).
bool is_upstream_extractor(std::string_view name);
// libvmaf's alias table (feature/alias.c): VMAF_integer_feature_adm2_score ->
// integer_adm2; other names unchanged.
std::string_view feature_alias(std::string_view feature_name);
// libvmaf's VMAF_DICT_NORMALIZE_NUMERICAL_VALUES: a numeric text becomes
// printf("%g", (double)strtof(text)); anything else is returned unchanged.
std::string normalize_numeric(std::string_view value);
// True when sscanf("%f %c") would read exactly one number (libvmaf's isnumeric).
bool looks_numeric(std::string_view value);

}  // namespace exactvmaf::model_detail
