// The libvmaf C API's context functions: argument checks, then VmafContext.
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "exactvmaf/exactvmaf.hpp"
#include "libvmaf/context.hpp"
#include "model/model_detail.hpp"

namespace exactvmaf::capi {

namespace {

// libvmaf's CUDA extractor names: the same feature on exactvmaf's CUDA
// backend.
struct CudaAlias {
  std::string_view cuda_name, name;
};
constexpr CudaAlias kCudaAliases[] = {{"adm_cuda", "adm"}, {"vif_cuda", "vif"}, {"motion_cuda", "motion"}};

// The request for libvmaf extractor `name` with the dictionary's options.
FeatureRequest feature_request(std::string_view name, const VmafFeatureDictionary* options, bool& wants_cuda) {
  wants_cuda = false;
  for (const CudaAlias& a : kCudaAliases) {
    if (name == a.cuda_name) {
      name = a.name;
      wants_cuda = true;
    }
  }
  const FeatureInfo* info = find_feature(name);
  if (info == nullptr) {
    if (model_detail::is_upstream_extractor(name)) fail(fmt::format("feature {} is not available in exactvmaf yet", name));
    std::string known;
    for (const auto& f : feature_registry()) known += (known.empty() ? "" : ", ") + f.name;
    fail(fmt::format("unknown feature '{}' (available: {})", name, known));
  }
  FeatureRequest req{info, OptionValues(&info->options)};
  if (options != nullptr)
    for (const auto& [k, v] : options->entries) req.options.set(name, k, v);
  return req;
}

VmafContext& context(VmafContext* vmaf) { return checked(vmaf, g_contexts, "vmaf"); }

}  // namespace

}  // namespace exactvmaf::capi

using namespace exactvmaf;
using namespace exactvmaf::capi;

extern "C" int vmaf_init(VmafContext** vmaf, VmafConfiguration cfg) {
  return guarded(__func__, [&] {
    not_null(vmaf, "vmaf");
    set_log_level(enum_value(cfg.log_level));
    // libvmaf's cpumask bits 8 (AVX2) and 16/32 (AVX-512, ICL): the kernels
    // exactvmaf may use, process-wide as in libvmaf. Same bits either way.
    if (cfg.cpumask & 8) set_simd_limit(SimdLevel::scalar);
    else if (cfg.cpumask & (16 | 32)) set_simd_limit(SimdLevel::avx2);
    else set_simd_limit(SimdLevel::avx512);
    auto* v = new VmafContext(cfg);
    g_contexts.add(v);
    *vmaf = v;
    return 0;
  });
}

extern "C" int vmaf_close(VmafContext* vmaf) {
  return guarded(__func__, [&] {
    if (vmaf == nullptr) fail("vmaf is NULL");
    if (!g_contexts.remove(vmaf)) fail("vmaf is not an open context (closed twice?)");
    delete vmaf;
    if (g_contexts.empty()) release_cached_pictures();
    return 0;
  });
}

extern "C" int vmaf_use_feature(VmafContext* vmaf, const char* feature_name, VmafFeatureDictionary* opts_dict) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    not_null(feature_name, "feature_name");
    if (opts_dict != nullptr) checked(opts_dict, g_dictionaries, "opts_dict");
    bool wants_cuda = false;
    v.use_feature(feature_request(feature_name, opts_dict, wants_cuda), wants_cuda);
    // Ownership passes only on success (the caller frees it otherwise).
    if (opts_dict != nullptr && g_dictionaries.remove(opts_dict)) delete opts_dict;
    return 0;
  });
}

extern "C" int vmaf_use_features_from_model(VmafContext* vmaf, VmafModel* model) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    v.use_model(checked(model, g_models, "model").model);
    return 0;
  });
}

extern "C" int vmaf_use_features_from_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    v.use_model(checked(model_collection, g_collections, "model_collection").model);
    return 0;
  });
}

extern "C" int vmaf_import_feature_score(VmafContext* vmaf, const char* feature_name, double value, unsigned index) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    v.import_score(&not_null(feature_name, "feature_name"), value, index);
    return 0;
  });
}

extern "C" int vmaf_read_pictures(VmafContext* vmaf, VmafPicture* ref, VmafPicture* dist, unsigned index) {
  return guarded(__func__, [&] {
    if (vmaf == nullptr || !g_contexts.contains(vmaf)) {
      // The pictures are still taken, so a failed call leaks nothing.
      if (ref != nullptr) (void)release_picture(*ref);
      if (dist != nullptr && dist != ref) (void)release_picture(*dist);
      context(vmaf);
    }
    if (ref == nullptr && dist == nullptr) {
      vmaf->flush();
      return 0;
    }
    if (ref == nullptr || dist == nullptr) {
      VmafPicture* given = ref != nullptr ? ref : dist;
      (void)release_picture(*given);
      fail(ref == nullptr ? "ref is NULL but dist is not (NULL, NULL flushes)"
                          : "dist is NULL but ref is not (NULL, NULL flushes)");
    }
    vmaf->read(*ref, *dist, index);
    return 0;
  });
}

extern "C" int vmaf_feature_score_at_index(VmafContext* vmaf, const char* feature_name, double* score,
                                           unsigned index) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    not_null(feature_name, "feature_name");
    not_null(score, "score") = v.feature_score(feature_name, index);
    return 0;
  });
}

extern "C" int vmaf_score_at_index(VmafContext* vmaf, VmafModel* model, double* score, unsigned index) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    const VmafModel& m = checked(model, g_models, "model");
    not_null(score, "score") = v.model_score(m.model, index);
    return 0;
  });
}

extern "C" int vmaf_score_at_index_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                                    VmafModelCollectionScore* score, unsigned index) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    const VmafModelCollection& c = checked(model_collection, g_collections, "model_collection");
    not_null(score, "score") = v.collection_score(c.model, index);
    return 0;
  });
}

extern "C" int vmaf_feature_score_pooled(VmafContext* vmaf, const char* feature_name,
                                         enum VmafPoolingMethod pool_method, double* score, unsigned index_low,
                                         unsigned index_high) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    not_null(feature_name, "feature_name");
    not_null(score, "score") = v.feature_pooled(feature_name, enum_value(pool_method), index_low, index_high);
    return 0;
  });
}

extern "C" int vmaf_score_pooled(VmafContext* vmaf, VmafModel* model, enum VmafPoolingMethod pool_method,
                                 double* score, unsigned index_low, unsigned index_high) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    const VmafModel& m = checked(model, g_models, "model");
    not_null(score, "score") = v.model_pooled(m.model, enum_value(pool_method), index_low, index_high);
    return 0;
  });
}

extern "C" int vmaf_score_pooled_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                                  enum VmafPoolingMethod pool_method,
                                                  VmafModelCollectionScore* score, unsigned index_low,
                                                  unsigned index_high) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    const VmafModelCollection& c = checked(model_collection, g_collections, "model_collection");
    not_null(score, "score") = v.collection_pooled(c.model, enum_value(pool_method), index_low, index_high);
    return 0;
  });
}

extern "C" int vmaf_preallocate_pictures(VmafContext* vmaf, VmafPictureConfiguration cfg) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    const auto& p = cfg.pic_params;
    v.preallocate(picture_format(enum_value(p.pix_fmt), p.bpc, p.w, p.h), cfg.pic_cnt);
    return 0;
  });
}

extern "C" int vmaf_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    v.fetch_preallocated(not_null(pic, "pic"));
    return 0;
  });
}

extern "C" int vmaf_write_output(VmafContext* vmaf, const char* output_path, enum VmafOutputFormat fmt) {
  return guarded(__func__, [&] {
    VmafContext& v = context(vmaf);
    v.write_output(&not_null(output_path, "output_path"), enum_value(fmt));
    return 0;
  });
}

extern "C" const char* vmaf_version(void) { return exactvmaf::version(); }
