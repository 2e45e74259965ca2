// Option-suffixed output names, as libvmaf's feature_name.c builds them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"

namespace exactvmaf {

namespace {

std::string printf_g(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

}  // namespace

std::string feature_output_name(std::string_view name, const OptionValues& options) {
  std::vector<const OptionSpec*> changed;
  for (const OptionSpec& spec : options.specs())
    if (spec.feature_param && !options.is_default(spec.name)) changed.push_back(&spec);
  // libvmaf sorts by option name with strcmp: bytewise, as std::string's <.
  std::sort(changed.begin(), changed.end(), [](const OptionSpec* a, const OptionSpec* b) { return a->name < b->name; });
  std::string out(name);
  for (const OptionSpec* spec : changed) {
    out += '_';
    out += spec->alias.empty() ? spec->name : spec->alias;
    switch (spec->type) {
      case OptionType::boolean: break;  // the key alone, whatever the value
      case OptionType::integer: out += '_' + std::to_string(options.get_int(spec->name)); break;
      case OptionType::real: out += '_' + printf_g(options.get_real(spec->name)); break;
      case OptionType::string: out += '_' + options.get_string(spec->name); break;
    }
  }
  return out;
}

}  // namespace exactvmaf
