// The model files of the repository's models/ folder, compiled into the
// library (cmake/embed_models.cmake writes builtin_models.cpp).
#pragma once
#include <span>
#include <string_view>

namespace exactvmaf::model_detail {

struct BuiltinModel {
  std::string_view name;  // libvmaf's built-in name: the file name without .json
  std::string_view file;  // path below models/, e.g. vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json
  std::string_view json;  // the file's bytes
};

// Sorted by file path.
std::span<const BuiltinModel> builtin_models();

}  // namespace exactvmaf::model_detail
