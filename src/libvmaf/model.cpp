// vmaf_model_* and vmaf_model_collection_*: libvmaf JSON models through
// exactvmaf's loader (models by version come from the same place as the
// command line's -m version=NAME).
#include <string>

#include <fmt/format.h>

#include "libvmaf/objects.hpp"

namespace exactvmaf::capi {

Registry<VmafModel> g_models;
Registry<VmafModelCollection> g_collections;

namespace {

// version= (when `version` is set) or path= with the config's name and
// flags, as a -m argument.
Model load(const VmafModelConfig* cfg, const char* version, const char* path) {
  not_null(cfg, "cfg");
  ModelSpec spec;
  if (version != nullptr) {
    spec.version = version;
    spec.arg = "version=" + spec.version;
  } else {
    spec.path = path;
    spec.arg = "path=" + spec.path;
  }
  if (cfg->name != nullptr) {
    if (*cfg->name == '\0') fail("cfg->name is empty");
    spec.name = cfg->name;
  }
  // libvmaf reads these two flags at load time; DISABLE_TRANSFORM is a
  // prediction flag of its own code and has no effect on a model.
  spec.disable_clip = (cfg->flags & VMAF_MODEL_FLAG_DISABLE_CLIP) != 0;
  spec.enable_transform = (cfg->flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM) != 0;
  return load_model(spec, ModelSearch{});
}

template <class T>
T* publish(Registry<T>& registry, Model model) {
  auto* p = new T{std::move(model)};
  registry.add(p);
  return p;
}

// The member-0 model of `m` alone.
Model main_only(const Model& m) {
  Model main = m;
  main.bootstrap.clear();
  main.collection_name.clear();
  return main;
}

int load_model_into(VmafModel** out, const VmafModelConfig* cfg, const char* version, const char* path) {
  not_null(out, "model");
  *out = publish(g_models, main_only(load(cfg, version, path)));
  return 0;
}

int load_collection_into(VmafModel** model, VmafModelCollection** collection, const VmafModelConfig* cfg,
                         const char* version, const char* path) {
  not_null(model, "model");
  not_null(collection, "model_collection");
  Model m = load(cfg, version, path);
  if (m.bootstrap.empty())
    fail(fmt::format("{} is not a bootstrap model (its file has no members \"1\", \"2\", ...; use vmaf_model_load)",
                     m.label));
  *model = publish(g_models, main_only(m));
  *collection = publish(g_collections, std::move(m));
  return 0;
}

// The options of `dict` on the features of `model` that `feature` computes;
// the model is left unchanged when an option is not one of the feature's.
// Returns false when no feature of the model comes from `feature`.
bool overload(Model& model, const std::string& feature, const VmafFeatureDictionary& dict) {
  Model changed = model;
  bool used = false;
  for (const auto& [key, value] : dict.entries) used = override_model_feature(changed, {feature, key, value}) || used;
  (void)model_feature_requests({changed});  // throws for an unknown option or a bad value
  model = std::move(changed);
  return used;
}

// Deletes a live object (NULL: nothing to do).
template <class T>
int destroy(Registry<T>& registry, T* p, const char* what) {
  if (p == nullptr) return 0;
  if (!registry.remove(p)) fail(fmt::format("{} is not live (destroyed twice?)", what));
  delete p;
  return 0;
}

// Frees the dictionary whatever happens (libvmaf takes ownership).
struct DictionaryOwner {
  VmafFeatureDictionary* dict;
  ~DictionaryOwner() {
    if (dict != nullptr && g_dictionaries.remove(dict)) delete dict;
  }
};

}  // namespace

}  // namespace exactvmaf::capi

using namespace exactvmaf;
using namespace exactvmaf::capi;

extern "C" int vmaf_model_load(VmafModel** model, VmafModelConfig* cfg, const char* version) {
  return guarded(__func__, [&] { return load_model_into(model, cfg, &not_null(version, "version"), nullptr); });
}

extern "C" int vmaf_model_load_from_path(VmafModel** model, VmafModelConfig* cfg, const char* path) {
  return guarded(__func__, [&] { return load_model_into(model, cfg, nullptr, &not_null(path, "path")); });
}

extern "C" int vmaf_model_feature_overload(VmafModel* model, const char* feature_name,
                                           VmafFeatureDictionary* opts_dict) {
  return guarded(__func__, [&] {
    DictionaryOwner owner{opts_dict};
    VmafModel& m = checked(model, g_models, "model");
    not_null(feature_name, "feature_name");
    const VmafFeatureDictionary& dict = checked(opts_dict, g_dictionaries, "opts_dict");
    if (!overload(m.model, feature_name, dict))
      log_line(VMAF_LOG_LEVEL_WARNING, "vmaf_model_feature_overload",
               fmt::format("model {} has no feature computed by '{}'; nothing changed", m.model.main.name,
                           feature_name));
    return 0;
  });
}

extern "C" void vmaf_model_destroy(VmafModel* model) {
  (void)guarded(__func__, [&] { return destroy(g_models, model, "model"); });
}

extern "C" int vmaf_model_collection_load(VmafModel** model, VmafModelCollection** model_collection,
                                          VmafModelConfig* cfg, const char* version) {
  return guarded(__func__, [&] {
    return load_collection_into(model, model_collection, cfg, &not_null(version, "version"), nullptr);
  });
}

extern "C" int vmaf_model_collection_load_from_path(VmafModel** model, VmafModelCollection** model_collection,
                                                    VmafModelConfig* cfg, const char* path) {
  return guarded(__func__, [&] {
    return load_collection_into(model, model_collection, cfg, nullptr, &not_null(path, "path"));
  });
}

extern "C" int vmaf_model_collection_feature_overload(VmafModel* model, VmafModelCollection** model_collection,
                                                      const char* feature_name, VmafFeatureDictionary* opts_dict) {
  return guarded(__func__, [&] {
    DictionaryOwner owner{opts_dict};
    not_null(model_collection, "model_collection");
    VmafModelCollection& c = checked(*model_collection, g_collections, "*model_collection");
    VmafModel& m = checked(model, g_models, "model");
    not_null(feature_name, "feature_name");
    const VmafFeatureDictionary& dict = checked(opts_dict, g_dictionaries, "opts_dict");
    Model collection = c.model;
    const bool used = overload(collection, feature_name, dict);
    Model main = m.model;
    (void)overload(main, feature_name, dict);
    c.model = std::move(collection);
    m.model = std::move(main);
    if (!used)
      log_line(VMAF_LOG_LEVEL_WARNING, "vmaf_model_collection_feature_overload",
               fmt::format("model collection {} has no feature computed by '{}'; nothing changed",
                           c.model.collection_name, feature_name));
    return 0;
  });
}

extern "C" void vmaf_model_collection_destroy(VmafModelCollection* model_collection) {
  (void)guarded(__func__, [&] { return destroy(g_collections, model_collection, "model_collection"); });
}
