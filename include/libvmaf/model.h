/* libvmaf 3.x compatible C API (exactvmaf): VMAF models. */
#ifndef __VMAF_MODEL_H__
#define __VMAF_MODEL_H__

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded model (opaque). */
typedef struct VmafModel VmafModel;

enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2),
};

/* name: the output metric name (NULL: "vmaf"); flags: VmafModelFlags. */
typedef struct VmafModelConfig {
    const char *name;
    uint64_t flags;
} VmafModelConfig;

/* Loads a built-in model by version, e.g. "vmaf_v0.6.1". */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                    const char *version);

/* Loads a libvmaf JSON model file. */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                              const char *path);

/* Applies options to every feature of the model computed by the extractor
 * feature_name (e.g. "adm"); takes ownership of opts_dict. */
int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict);

void vmaf_model_destroy(VmafModel *model);

/* The bootstrap members of a bootstrap model file (opaque). */
typedef struct VmafModelCollection VmafModelCollection;

enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,
};

typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score;
        double stddev;
        struct {
            struct { double lo, hi; } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/* Loads a built-in bootstrap model: *model is its member 0 (named as the
 * config says), *model_collection the other members. */
int vmaf_model_collection_load(VmafModel **model,
                               VmafModelCollection **model_collection,
                               VmafModelConfig *cfg,
                               const char *version);

int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg,
                                         const char *path);

/* vmaf_model_feature_overload on model and on every collection member;
 * takes ownership of opts_dict. */
int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict);

void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_MODEL_H__ */
