/* libvmaf 3.x compatible C API (exactvmaf): the CUDA entry points. A context
 * given a CUDA state runs on exactvmaf's CUDA backend (the same bits as the
 * CPU); a build without CUDA returns -ENOSYS from vmaf_cuda_state_init. */
#ifndef __VMAF_CUDA_H__
#define __VMAF_CUDA_H__

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device chosen for scoring (opaque). */
typedef struct VmafCudaState VmafCudaState;

/* cu_ctx: the caller's CUcontext, or NULL for device 0. Its device is the one
 * used; device pictures are allocated in it. */
typedef struct VmafCudaConfiguration {
    void *cu_ctx;
} VmafCudaConfiguration;

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/* The context keeps its own copy: the caller frees cu_state with free(). */
int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
};

typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method;
} VmafCudaPictureConfiguration;

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                   VmafCudaPictureConfiguration cfg);

/* DEVICE: planes in device memory of the state's context (pitched);
 * HOST / HOST_PINNED: host memory, page-locked for the latter. */
int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture* pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_CUDA_H__ */
