/*
 * vmafx's declaration of libvmaf 3.2.0's picture interface (include/libvmaf/picture.h):
 * the same enum values and struct layout, implemented by vmafx (src/capi). See docs/api.md.
 */
#ifndef __VMAF_PICTURE_H__
#define __VMAF_PICTURE_H__

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Planar YUV layouts; 400 is luma only (its chroma planes are 0x0). */
enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN,
    VMAF_PIX_FMT_YUV420P,
    VMAF_PIX_FMT_YUV422P,
    VMAF_PIX_FMT_YUV444P,
    VMAF_PIX_FMT_YUV400P,
};

/** Reference count of a picture's buffer (opaque). */
typedef struct VmafRef VmafRef;

/**
 * One picture: `bpc` bits per sample (8..16; samples are bytes at 8 bits, native-endian
 * uint16_t above), plane p (0 = Y, 1 = Cb, 2 = Cr) `w[p]` x `h[p]` samples whose rows start
 * `stride[p]` bytes apart at `data[p]`. `ref` and `priv` belong to the library.
 */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    void *data[3];
    VmafRef *ref;
    void *priv;
} VmafPicture;

/**
 * Allocates `pic`'s planes for a `w` x `h` picture of `pix_fmt` at `bpc` bits (chroma planes
 * ceil(w/2) wide at 420/422, ceil(h/2) high at 420; none at 400: w[1..2], h[1..2] are 0 and
 * data[1..2] NULL). Rows are stride[p] bytes apart (a multiple of 64); samples are
 * zero. The picture holds one reference: give it to vmaf_read_pictures() (which takes it) or
 * drop it with vmaf_picture_unref(). Sizes are 1..65536.
 * Returns 0; -EINVAL when `pic` is NULL, `pix_fmt` unknown, `bpc` outside 8..16 or a size is
 * 0 or above 65536; -ENOMEM when out of memory.
 */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h);

/**
 * Drops one reference to `pic`'s buffer (freed with the last) and clears `*pic`.
 * Returns 0; -EINVAL when `pic` is NULL or holds no buffer.
 */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_PICTURE_H__ */
