/* libvmaf 3.x compatible C API, implemented by exactvmaf: the same headers,
 * functions, structs, enum values, soname (libvmaf.so.3) and pkg-config name
 * (libvmaf) as libvmaf 3.2.0, with exactvmaf's bit-exact scores behind them.
 * Every function returns 0 on success or a negative errno value, and logs one
 * line naming the problem (at VMAF_LOG_LEVEL_ERROR) when it fails. */
#ifndef __VMAF_H__
#define __VMAF_H__

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/feature.h"

#ifdef __cplusplus
extern "C" {
#endif

enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR,
    VMAF_LOG_LEVEL_WARNING,
    VMAF_LOG_LEVEL_INFO,
    VMAF_LOG_LEVEL_DEBUG,
};

enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML,
    VMAF_OUTPUT_FORMAT_JSON,
    VMAF_OUTPUT_FORMAT_CSV,
    VMAF_OUTPUT_FORMAT_SUB,
};

enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN,
    VMAF_POOL_METHOD_MAX,
    VMAF_POOL_METHOD_MEAN,
    VMAF_POOL_METHOD_HARMONIC_MEAN,
    VMAF_POOL_METHOD_NB
};

/* log_level: messages up to this level go to stderr (process-wide, as in
 *   libvmaf: the last vmaf_init sets it).
 * n_threads: worker threads (0: one per hardware thread; exactvmaf always
 *   pipelines frames, the scores are the same for every value).
 * n_subsample: score every n-th frame (0 and 1: every frame).
 * cpumask: bit 8 (AVX2) or 16/32 (AVX-512) off limit exactvmaf's SIMD kernels
 *   (same bits either way).
 * gpumask: non-zero keeps the run on the CPU. */
typedef struct VmafConfiguration {
    enum VmafLogLevel log_level;
    unsigned n_threads;
    unsigned n_subsample;
    uint64_t cpumask;
    uint64_t gpumask;
} VmafConfiguration;

/* One scoring session (opaque). */
typedef struct VmafContext VmafContext;

int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/* Registers the features a model needs and predicts it at the flush. */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection);

/* Registers one feature extractor by name with options (opts_dict may be
 * NULL); takes ownership of opts_dict on success. */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict);

/* Stores a score computed elsewhere for picture `index`. */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                              double value, unsigned index);

/* Queues one picture pair; takes ownership of both pictures (they are
 * unreferenced, also when the call fails). Indices run 0, 1, 2, ... in the
 * order pictures are given. ref = dist = NULL flushes: every queued picture
 * is scored, and scores derived from the whole clip (motion2, motion3, the
 * models) are computed. */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index);

/* The model's score at a picture already given: waits until it is scored.
 * Before the flush only scores of features known per picture exist. */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                        unsigned index);

int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score,
                                         unsigned index);

/* A feature's score by name (libvmaf's full or aliased name). */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                double *score, unsigned index);

/* Pooled over pictures index_low..index_high (those kept by n_subsample). */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                      enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high);

/* A pool of pictures for vmaf_fetch_preallocated_picture. */
typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt;
} VmafPictureConfiguration;

int vmaf_preallocate_pictures(VmafContext *vmaf,
                              VmafPictureConfiguration cfg);

/* A picture from the pool (waits while all are in use); it goes back to the
 * pool when its last reference is dropped. */
int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/* Ends the session (a running one is stopped) and frees it. */
int vmaf_close(VmafContext *vmaf);

/* Writes the report after the flush: exactvmaf's XML, JSON, CSV or subtitle
 * output, byte for byte as its command line writes it. Numbers as libvmaf
 * prints them; $EXACTVMAF_PRECISION=max|N changes that (as --precision). */
int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                      enum VmafOutputFormat fmt);

/* exactvmaf's version string (also the reports' "version"). */
const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_H__ */
