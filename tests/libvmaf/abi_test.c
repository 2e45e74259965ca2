/* Binary compatibility with libvmaf 3.2.0 on LP64 (x86-64, AArch64): every
 * public struct's size and field offsets, every enum value and every
 * function's type, as libvmaf 3.2.0's headers define them. A program built
 * against libvmaf's headers passes these structs and values to
 * libvmaf.so.3; the numbers here are that layout, so one built against ours
 * exchanges them unchanged. The same file compiles against libvmaf's own
 * headers (checked when the numbers were written down). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>
#include <libvmaf/version.h>

#define SIZE(type, n) _Static_assert(sizeof(type) == (n), "sizeof(" #type ") == " #n)
#define VALUE(name, v) _Static_assert((name) == (v), #name " == " #v)

_Static_assert(sizeof(void *) == 8 && sizeof(unsigned) == 4 && sizeof(ptrdiff_t) == 8, "an LP64 target");

/* enums are int-sized (they sit in structs and are passed by value) */
SIZE(enum VmafLogLevel, 4);
SIZE(enum VmafOutputFormat, 4);
SIZE(enum VmafPoolingMethod, 4);
SIZE(enum VmafPixelFormat, 4);
SIZE(enum VmafModelFlags, 4);
SIZE(enum VmafModelCollectionScoreType, 4);
SIZE(enum VmafCudaPicturePreallocationMethod, 4);

/* Enumerators numbered from 0, in order. */
#define SEQ4(a, b, c, d) VALUE(a, 0); VALUE(b, 1); VALUE(c, 2); VALUE(d, 3)
#define SEQ5(a, b, c, d, e) SEQ4(a, b, c, d); VALUE(e, 4)
#define SEQ6(a, b, c, d, e, f) SEQ5(a, b, c, d, e); VALUE(f, 5)
SEQ5(VMAF_LOG_LEVEL_NONE, VMAF_LOG_LEVEL_ERROR, VMAF_LOG_LEVEL_WARNING, VMAF_LOG_LEVEL_INFO, VMAF_LOG_LEVEL_DEBUG);
SEQ5(VMAF_OUTPUT_FORMAT_NONE, VMAF_OUTPUT_FORMAT_XML, VMAF_OUTPUT_FORMAT_JSON, VMAF_OUTPUT_FORMAT_CSV,
     VMAF_OUTPUT_FORMAT_SUB);
SEQ6(VMAF_POOL_METHOD_UNKNOWN, VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX, VMAF_POOL_METHOD_MEAN,
     VMAF_POOL_METHOD_HARMONIC_MEAN, VMAF_POOL_METHOD_NB);
SEQ5(VMAF_PIX_FMT_UNKNOWN, VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P, VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P);
SEQ4(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE, VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
     VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST, VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED);

VALUE(VMAF_MODEL_FLAGS_DEFAULT, 0);
VALUE(VMAF_MODEL_FLAG_DISABLE_CLIP, 1);
VALUE(VMAF_MODEL_FLAG_ENABLE_TRANSFORM, 2);
VALUE(VMAF_MODEL_FLAG_DISABLE_TRANSFORM, 4);
VALUE(VMAF_MODEL_COLLECTION_SCORE_UNKNOWN, 0);
VALUE(VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP, 1);

VALUE(VMAF_API_VERSION_MAJOR, 3);
VALUE(VMAF_API_VERSION_MINOR, 2);
VALUE(VMAF_API_VERSION_PATCH, 0);

/* Each struct: its size and every field's offset (T names the struct). */
#define AT(field, at) (offsetof(T, field) == (at))
#define LAYOUT(checks) _Static_assert(checks, "the layout of libvmaf 3.2.0")
#define T VmafConfiguration
LAYOUT(sizeof(T) == 32 && AT(log_level, 0) && AT(n_threads, 4) && AT(n_subsample, 8) && AT(cpumask, 16) &&
       AT(gpumask, 24));
#undef T
#define T VmafPicture
LAYOUT(sizeof(T) == 96 && AT(pix_fmt, 0) && AT(bpc, 4) && AT(w, 8) && AT(h, 20) && AT(stride, 32) && AT(data, 56) &&
       AT(ref, 80) && AT(priv, 88) && sizeof(((T *)0)->w) == 12 && sizeof(((T *)0)->stride) == 24 &&
       sizeof(((T *)0)->data) == 24);
#undef T
#define T VmafModelConfig
LAYOUT(sizeof(T) == 16 && AT(name, 0) && AT(flags, 8) && sizeof(((T *)0)->flags) == 8);
#undef T
#define T VmafModelCollectionScore
LAYOUT(sizeof(T) == 40 && AT(type, 0) && AT(bootstrap.bagging_score, 8) && AT(bootstrap.stddev, 16) &&
       AT(bootstrap.ci.p95.lo, 24) && AT(bootstrap.ci.p95.hi, 32));
#undef T
#define T VmafPictureConfiguration
LAYOUT(sizeof(T) == 20 && AT(pic_params.w, 0) && AT(pic_params.h, 4) && AT(pic_params.bpc, 8) &&
       AT(pic_params.pix_fmt, 12) && AT(pic_cnt, 16));
#undef T
#define T VmafCudaConfiguration
LAYOUT(sizeof(T) == 8 && AT(cu_ctx, 0));
#undef T
#define T VmafCudaPictureConfiguration
LAYOUT(sizeof(T) == 20 && AT(pic_params.w, 0) && AT(pic_params.h, 4) && AT(pic_params.bpc, 8) &&
       AT(pic_params.pix_fmt, 12) && AT(pic_prealloc_method, 16));
#undef T

/* Every function with libvmaf's exact type (an incompatible pointer fails
 * the build under -Werror). */
int (*const t_init)(VmafContext **, VmafConfiguration) = vmaf_init;
int (*const t_use_features_from_model)(VmafContext *, VmafModel *) = vmaf_use_features_from_model;
int (*const t_use_features_from_model_collection)(VmafContext *, VmafModelCollection *) =
    vmaf_use_features_from_model_collection;
int (*const t_use_feature)(VmafContext *, const char *, VmafFeatureDictionary *) = vmaf_use_feature;
int (*const t_import_feature_score)(VmafContext *, const char *, double, unsigned) = vmaf_import_feature_score;
int (*const t_read_pictures)(VmafContext *, VmafPicture *, VmafPicture *, unsigned) = vmaf_read_pictures;
int (*const t_score_at_index)(VmafContext *, VmafModel *, double *, unsigned) = vmaf_score_at_index;
int (*const t_score_at_index_model_collection)(VmafContext *, VmafModelCollection *, VmafModelCollectionScore *,
                                               unsigned) = vmaf_score_at_index_model_collection;
int (*const t_feature_score_at_index)(VmafContext *, const char *, double *, unsigned) = vmaf_feature_score_at_index;
int (*const t_score_pooled)(VmafContext *, VmafModel *, enum VmafPoolingMethod, double *, unsigned, unsigned) =
    vmaf_score_pooled;
int (*const t_score_pooled_model_collection)(VmafContext *, VmafModelCollection *, enum VmafPoolingMethod,
                                             VmafModelCollectionScore *, unsigned, unsigned) =
    vmaf_score_pooled_model_collection;
int (*const t_feature_score_pooled)(VmafContext *, const char *, enum VmafPoolingMethod, double *, unsigned,
                                    unsigned) = vmaf_feature_score_pooled;
int (*const t_preallocate_pictures)(VmafContext *, VmafPictureConfiguration) = vmaf_preallocate_pictures;
int (*const t_fetch_preallocated_picture)(VmafContext *, VmafPicture *) = vmaf_fetch_preallocated_picture;
int (*const t_close)(VmafContext *) = vmaf_close;
int (*const t_write_output)(VmafContext *, const char *, enum VmafOutputFormat) = vmaf_write_output;
const char *(*const t_version)(void) = vmaf_version;
int (*const t_model_load)(VmafModel **, VmafModelConfig *, const char *) = vmaf_model_load;
int (*const t_model_load_from_path)(VmafModel **, VmafModelConfig *, const char *) = vmaf_model_load_from_path;
int (*const t_model_feature_overload)(VmafModel *, const char *, VmafFeatureDictionary *) =
    vmaf_model_feature_overload;
void (*const t_model_destroy)(VmafModel *) = vmaf_model_destroy;
int (*const t_model_collection_load)(VmafModel **, VmafModelCollection **, VmafModelConfig *, const char *) =
    vmaf_model_collection_load;
int (*const t_model_collection_load_from_path)(VmafModel **, VmafModelCollection **, VmafModelConfig *,
                                               const char *) = vmaf_model_collection_load_from_path;
int (*const t_model_collection_feature_overload)(VmafModel *, VmafModelCollection **, const char *,
                                                 VmafFeatureDictionary *) = vmaf_model_collection_feature_overload;
void (*const t_model_collection_destroy)(VmafModelCollection *) = vmaf_model_collection_destroy;
int (*const t_picture_alloc)(VmafPicture *, enum VmafPixelFormat, unsigned, unsigned, unsigned) =
    vmaf_picture_alloc;
int (*const t_picture_unref)(VmafPicture *) = vmaf_picture_unref;
int (*const t_feature_dictionary_set)(VmafFeatureDictionary **, const char *, const char *) =
    vmaf_feature_dictionary_set;
int (*const t_feature_dictionary_free)(VmafFeatureDictionary **) = vmaf_feature_dictionary_free;
int (*const t_cuda_state_init)(VmafCudaState **, VmafCudaConfiguration) = vmaf_cuda_state_init;
int (*const t_cuda_import_state)(VmafContext *, VmafCudaState *) = vmaf_cuda_import_state;
int (*const t_cuda_preallocate_pictures)(VmafContext *, VmafCudaPictureConfiguration) =
    vmaf_cuda_preallocate_pictures;
int (*const t_cuda_fetch_preallocated_picture)(VmafContext *, VmafPicture *) = vmaf_cuda_fetch_preallocated_picture;

int main(void) {
  /* The checks above are the test; running it shows the functions resolve. */
  printf("libvmaf ABI: layouts and enum values as libvmaf %d.%d.%d; %s\n", VMAF_API_VERSION_MAJOR,
         VMAF_API_VERSION_MINOR, VMAF_API_VERSION_PATCH, t_version());
  return t_init && t_close && t_cuda_state_init ? 0 : 1;
}
