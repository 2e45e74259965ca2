#include <fmt/format.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/feature.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf {

const FeatureInfo* find_feature(std::string_view name) {
  for (const auto& f : feature_registry())
    if (f.name == name) return &f;
  return nullptr;
}

FeatureRequest parse_feature_request(std::string_view arg) {
  FpEnvGuard env;  // decimal to double conversion honours the rounding mode
  // "name" or "name=opt=val:opt=val" (libvmaf's --feature syntax).
  const auto eq = arg.find('=');
  const std::string_view name = arg.substr(0, eq);
  const FeatureInfo* info = find_feature(name);
  if (!info) {
    std::string known;
    for (const auto& f : feature_registry()) known += (known.empty() ? "" : ", ") + f.name;
    throw Error(fmt::format("--feature {}: unknown feature '{}' (available: {})", arg, name, known));
  }
  FeatureRequest req{info, OptionValues(&info->options)};
  if (eq == std::string_view::npos) return req;
  std::string_view rest = arg.substr(eq + 1);
  while (true) {
    const auto colon = rest.find(':');
    const std::string_view pair = rest.substr(0, colon);
    const auto peq = pair.find('=');
    if (pair.empty() || peq == std::string_view::npos || peq == 0)
      throw Error(fmt::format("--feature {}: malformed option '{}', expected opt=value", arg, pair));
    req.options.set(name, pair.substr(0, peq), pair.substr(peq + 1));
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  return req;
}

}  // namespace exactvmaf
