/* libvmaf 3.x compatible C API (exactvmaf): feature option dictionaries.
 * Declarations follow libvmaf 3.2.0's interface; see README "Use from FFmpeg". */
#ifndef __VMAF_FEATURE_H__
#define __VMAF_FEATURE_H__

#ifdef __cplusplus
extern "C" {
#endif

/* Options of one feature extractor, as key/value strings. */
typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/* Sets key to val, creating *dict when it is NULL; an existing key takes the
 * new value. Returns 0, or -EINVAL for a NULL argument. */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val);

/* Frees *dict and sets it to NULL. Returns 0, or -EINVAL when dict is NULL. */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_FEATURE_H__ */
