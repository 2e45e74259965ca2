// libFuzzer target: arbitrary bytes as a libvmaf JSON model file (plain SVR
// models, bootstrap collections, the v1.0.16 keys: score_transform,
// score_clip, feature_opts_dicts, ...). A model that parses must map to
// feature requests and predict a finite or clipped score from finite
// features; every rejection is an exactvmaf::Error with one non-empty line.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"

namespace {

void check_one_line(const char* message) {
  if (message[0] == '\0' || std::strchr(message, '\n') != nullptr) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace exactvmaf;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Model model = parse_model_json(text, "fuzz.json", parse_model_spec("path=fuzz.json"));
    (void)model_feature_requests({model});
    const std::vector<double> features(model.main.features.size(), 0.5);
    (void)predict_score(model.main, features);
    for (const auto& member : model.bootstrap) (void)predict_score(member, features, true, true);
  } catch (const Error& e) {
    check_one_line(e.what());
  }
  return 0;
}
