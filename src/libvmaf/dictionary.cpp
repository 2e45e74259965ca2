// vmaf_feature_dictionary_*: options as key/value strings.
#include "libvmaf/objects.hpp"

namespace exactvmaf::capi {
Registry<VmafFeatureDictionary> g_dictionaries;
}

using namespace exactvmaf::capi;

extern "C" int vmaf_feature_dictionary_set(VmafFeatureDictionary** dict, const char* key, const char* val) {
  return guarded(__func__, [&] {
    not_null(dict, "dict");
    not_null(key, "key");
    not_null(val, "val");
    if (*dict != nullptr) checked(*dict, g_dictionaries, "*dict");
    if (*dict == nullptr) {
      auto d = std::make_unique<VmafFeatureDictionary>();
      g_dictionaries.add(d.get());
      *dict = d.release();
    }
    for (auto& [k, v] : (*dict)->entries) {
      if (k == key) {
        v = val;
        return 0;
      }
    }
    (*dict)->entries.emplace_back(key, val);
    return 0;
  });
}

extern "C" int vmaf_feature_dictionary_free(VmafFeatureDictionary** dict) {
  return guarded(__func__, [&] {
    not_null(dict, "dict");
    if (*dict == nullptr) return 0;
    checked(*dict, g_dictionaries, "*dict");
    g_dictionaries.remove(*dict);
    delete *dict;
    *dict = nullptr;
    return 0;
  });
}
