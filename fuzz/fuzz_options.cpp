// libFuzzer target: the two option grammars of the command line and the
// library. The first byte picks one; the rest is the argument:
//   even: --feature NAME[=opt=val:opt=val...]   (parse_feature_request, then
//         the option-suffixed output names)
//   odd:  -m version=NAME|path=FILE[:name=...:FEATURE.OPTION=VALUE...]
//         (parse_model_spec; a version= names a built-in model, which is
//         loaded with the overrides and mapped to feature requests)
// Every rejection is an exactvmaf::Error with one non-empty line.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "exactvmaf/error.hpp"
#include "exactvmaf/feature.hpp"
#include "exactvmaf/model.hpp"

namespace {

void check_one_line(const char* message) {
  if (message[0] == '\0' || std::strchr(message, '\n') != nullptr) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace exactvmaf;
  if (size == 0) return 0;
  const std::string arg(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      const FeatureRequest request = parse_feature_request(arg);
      if (request.info == nullptr) std::abort();
      for (const auto& name : request.info->provided) (void)feature_output_name(name, request.options);
    } else {
      const ModelSpec spec = parse_model_spec(arg);
      if (spec.path.empty() == spec.version.empty()) std::abort();  // exactly one of them
      if (!spec.version.empty() && builtin_model_json(spec.version)) {
        const auto models = load_models({spec}, ModelSearch{"/nonexistent"});
        (void)model_feature_requests(models);
      }
    }
  } catch (const Error& e) {
    check_one_line(e.what());
  }
  return 0;
}
