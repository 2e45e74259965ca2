/* libvmaf 3.x compatible C API (exactvmaf): pictures. */
#ifndef __VMAF_PICTURE_H__
#define __VMAF_PICTURE_H__

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN,
    VMAF_PIX_FMT_YUV420P,
    VMAF_PIX_FMT_YUV422P,
    VMAF_PIX_FMT_YUV444P,
    VMAF_PIX_FMT_YUV400P,
};

/* The reference count behind a picture (opaque). */
typedef struct VmafRef VmafRef;

/* One frame: planes of w[i] x h[i] samples, stride[i] bytes apart (uint8_t
 * samples when bpc is 8, uint16_t otherwise). Chroma planes are w >> 1 wide
 * for 4:2:0 and 4:2:2, h >> 1 high for 4:2:0, absent (0, NULL) for 4:0:0. */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    void *data[3];
    VmafRef *ref;
    void *priv;
} VmafPicture;

/* Allocates a zero-filled picture. bpc: 8, 10, 12 or 16 (exactvmaf; libvmaf
 * takes 8..16). Returns 0, -EINVAL for a bad argument, -ENOMEM. */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h);

/* Drops the caller's reference and clears *pic; the memory goes when the
 * last reference does. Returns 0, or -EINVAL for a NULL or cleared picture. */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_PICTURE_H__ */
