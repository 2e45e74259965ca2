// -m/--model arguments, the model directory search and the built-in models.
#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"
#include "model/builtin_models.hpp"
#include "model/model_detail.hpp"

namespace exactvmaf {

ModelSpec parse_model_spec(std::string_view arg) {
  ModelSpec spec;
  spec.arg = std::string(arg);
  auto bad = [&](std::string_view why) { return Error(fmt::format("-m/--model {}: {}", arg, why)); };
  if (arg.empty()) throw bad("empty; expected path=FILE or version=NAME");
  std::string_view rest = arg;
  while (true) {
    const auto colon = rest.find(':');
    const std::string_view item = rest.substr(0, colon);
    const auto eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const bool bare = eq == std::string_view::npos;
    const std::string_view value = bare ? std::string_view() : item.substr(eq + 1);
    if (key == "disable_clip" || key == "enable_transform") {
      if (!bare && value != "true" && value != "false")
        throw bad(fmt::format("{}={}: expected true or false", key, value));
      const bool on = bare || value == "true";
      (key == "disable_clip" ? spec.disable_clip : spec.enable_transform) = on;
    } else if (bare) {
      throw bad(fmt::format("'{}' is not key=value (keys: path, version, name, disable_clip, enable_transform, "
                            "FEATURE.OPTION)", item));
    } else if (key == "path" || key == "version" || key == "name") {
      if (value.empty()) throw bad(fmt::format("{}= needs a value", key));
      (key == "path" ? spec.path : key == "version" ? spec.version : spec.name) = std::string(value);
    } else {
      const auto dot = key.find('.');
      if (dot == std::string_view::npos || dot == 0 || dot + 1 == key.size())
        throw bad(fmt::format("unknown key '{}' (keys: path, version, name, disable_clip, enable_transform, "
                              "FEATURE.OPTION=VALUE)", key));
      const std::string_view feature = key.substr(0, dot);
      if (!model_detail::is_upstream_extractor(feature))
        throw bad(fmt::format("{}: unknown feature '{}'", item, feature));
      if (value.empty()) throw bad(fmt::format("{}: empty value", item));
      spec.overrides.push_back({std::string(feature), std::string(key.substr(dot + 1)), std::string(value)});
    }
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (spec.path.empty() == spec.version.empty())
    throw bad(spec.path.empty() ? "needs path=FILE or version=NAME" : "give either path= or version=, not both");
  return spec;
}

std::vector<std::filesystem::path> model_search_dirs(const ModelSearch& search) {
  std::vector<std::filesystem::path> dirs;
  if (!search.model_dir.empty()) dirs.emplace_back(search.model_dir);
  if (const char* env = std::getenv("EXACTVMAF_MODEL_DIR"); env && *env) dirs.emplace_back(env);
  return dirs;
}

std::optional<std::filesystem::path> find_model_file(std::string_view version, const ModelSearch& search) {
  if (version.empty() || version.find('/') != std::string_view::npos || version == "." || version == "..")
    throw Error(fmt::format("-m version={}: not a model name (use path= for a file)", version));
  const std::string file = std::string(version) + ".json";
  for (const auto& dir : model_search_dirs(search)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(dir / file, ec)) return dir / file;
    std::vector<std::filesystem::path> subdirs;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec)) subdirs.push_back(it->path());
    std::sort(subdirs.begin(), subdirs.end());
    for (const auto& sub : subdirs)
      if (std::filesystem::is_regular_file(sub / file, ec)) return sub / file;
  }
  return std::nullopt;
}

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const auto& m : model_detail::builtin_models()) names.emplace_back(m.name);
  return names;
}

std::optional<std::string_view> builtin_model_json(std::string_view version) {
  for (const auto& m : model_detail::builtin_models())
    if (m.name == version) return m.json;
  return std::nullopt;
}

}  // namespace exactvmaf
