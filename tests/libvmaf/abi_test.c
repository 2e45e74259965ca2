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

#define OFFSET(type, field, at) _Static_assert(offsetof(type, field) == (at), #type "." #field " at " #at)
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

VALUE(VMAF_LOG_LEVEL_NONE, 0);
VALUE(VMAF_LOG_LEVEL_ERROR, 1);
VALUE(VMAF_LOG_LEVEL_WARNING, 2);
VALUE(VMAF_LOG_LEVEL_INFO, 3);
VALUE(VMAF_LOG_LEVEL_DEBUG, 4);

VALUE(VMAF_OUTPUT_FORMAT_NONE, 0);
VALUE(VMAF_OUTPUT_FORMAT_XML, 1);
VALUE(VMAF_OUTPUT_FORMAT_JSON, 2);
VALUE(VMAF_OUTPUT_FORMAT_CSV, 3);
VALUE(VMAF_OUTPUT_FORMAT_SUB, 4);

VALUE(VMAF_POOL_METHOD_UNKNOWN, 0);
VALUE(VMAF_POOL_METHOD_MIN, 1);
VALUE(VMAF_POOL_METHOD_MAX, 2);
VALUE(VMAF_POOL_METHOD_MEAN, 3);
VALUE(VMAF_POOL_METHOD_HARMONIC_MEAN, 4);
VALUE(VMAF_POOL_METHOD_NB, 5);

VALUE(VMAF_PIX_FMT_UNKNOWN, 0);
VALUE(VMAF_PIX_FMT_YUV420P, 1);
VALUE(VMAF_PIX_FMT_YUV422P, 2);
VALUE(VMAF_PIX_FMT_YUV444P, 3);
VALUE(VMAF_PIX_FMT_YUV400P, 4);

VALUE(VMAF_MODEL_FLAGS_DEFAULT, 0);
VALUE(VMAF_MODEL_FLAG_DISABLE_CLIP, 1);
VALUE(VMAF_MODEL_FLAG_ENABLE_TRANSFORM, 2);
VALUE(VMAF_MODEL_FLAG_DISABLE_TRANSFORM, 4);

VALUE(VMAF_MODEL_COLLECTION_SCORE_UNKNOWN, 0);
VALUE(VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP, 1);

VALUE(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE, 0);
VALUE(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, 1);
VALUE(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST, 2);
VALUE(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, 3);

VALUE(VMAF_API_VERSION_MAJOR, 3);
VALUE(VMAF_API_VERSION_MINOR, 2);
VALUE(VMAF_API_VERSION_PATCH, 0);

SIZE(VmafConfiguration, 32);
OFFSET(VmafConfiguration, log_level, 0);
OFFSET(VmafConfiguration, n_threads, 4);
OFFSET(VmafConfiguration, n_subsample, 8);
OFFSET(VmafConfiguration, cpumask, 16);
OFFSET(VmafConfiguration, gpumask, 24);

SIZE(VmafPicture, 96);
OFFSET(VmafPicture, pix_fmt, 0);
OFFSET(VmafPicture, bpc, 4);
OFFSET(VmafPicture, w, 8);
OFFSET(VmafPicture, h, 20);
OFFSET(VmafPicture, stride, 32);
OFFSET(VmafPicture, data, 56);
OFFSET(VmafPicture, ref, 80);
OFFSET(VmafPicture, priv, 88);
SIZE(((VmafPicture *)0)->w, 12);
SIZE(((VmafPicture *)0)->stride, 24);
SIZE(((VmafPicture *)0)->data, 24);

SIZE(VmafModelConfig, 16);
OFFSET(VmafModelConfig, name, 0);
OFFSET(VmafModelConfig, flags, 8);
SIZE(((VmafModelConfig *)0)->flags, 8);

SIZE(VmafModelCollectionScore, 40);
OFFSET(VmafModelCollectionScore, type, 0);
OFFSET(VmafModelCollectionScore, bootstrap.bagging_score, 8);
OFFSET(VmafModelCollectionScore, bootstrap.stddev, 16);
OFFSET(VmafModelCollectionScore, bootstrap.ci.p95.lo, 24);
OFFSET(VmafModelCollectionScore, bootstrap.ci.p95.hi, 32);

SIZE(VmafPictureConfiguration, 20);
OFFSET(VmafPictureConfiguration, pic_params.w, 0);
OFFSET(VmafPictureConfiguration, pic_params.h, 4);
OFFSET(VmafPictureConfiguration, pic_params.bpc, 8);
OFFSET(VmafPictureConfiguration, pic_params.pix_fmt, 12);
OFFSET(VmafPictureConfiguration, pic_cnt, 16);

SIZE(VmafCudaConfiguration, 8);
OFFSET(VmafCudaConfiguration, cu_ctx, 0);

SIZE(VmafCudaPictureConfiguration, 20);
OFFSET(VmafCudaPictureConfiguration, pic_params.w, 0);
OFFSET(VmafCudaPictureConfiguration, pic_params.h, 4);
OFFSET(VmafCudaPictureConfiguration, pic_params.bpc, 8);
OFFSET(VmafCudaPictureConfiguration, pic_params.pix_fmt, 12);
OFFSET(VmafCudaPictureConfiguration, pic_prealloc_method, 16);

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
