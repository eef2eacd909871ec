/*
 * vmafx's declarations of libvmaf 3.2.0's CUDA interface (libvmaf_cuda.h): the same names,
 * enum values, struct layouts and signatures, so that a program written for upstream's CUDA
 * build compiles and runs unchanged. Installed only where vmafx is built with its CUDA
 * backend (-DVMAFX_CUDA=ON), as upstream installs it only with CUDA. docs/api.md says what
 * differs from upstream.
 */
#ifndef __VMAF_CUDA_H__
#define __VMAF_CUDA_H__

#include "libvmaf/libvmaf.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A CUDA context for libvmaf contexts (opaque). */
typedef struct VmafCudaState VmafCudaState;

/** How vmaf_cuda_state_init() finds its CUDA context. */
typedef struct VmafCudaConfiguration {
    /** The caller's CUcontext, or NULL: the primary context of CUDA device 0, retained until
     *  the libvmaf context that imported the state is closed. A caller's context is only
     *  used (pushed on the calling thread around libvmaf's GPU work), never destroyed. */
    void *cu_ctx;
} VmafCudaConfiguration;

/**
 * Creates a CUDA state in `*cu_state` (memory the library allocates; as upstream 3.2.0 there
 * is no call to free it: it is a few bytes and may be kept for the program's life).
 *
 * @return 0, or -EINVAL (NULL `cu_state`; no usable CUDA driver or device; the context given
 *         is invalid), -ENOMEM.
 */
int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/**
 * Gives `vmaf` the CUDA state: from then on its metrics that have a CUDA twin run on the GPU
 * and the others on the CPU, as `vmafx --backend cuda` (same values). Pictures read with
 * vmaf_read_pictures() may then be host pictures (uploaded by the library) or device
 * pictures from vmaf_cuda_fetch_preallocated_picture(), and must be read with indices 0, 1,
 * 2, ... in that order. The context keeps its own reference to the state's CUDA context;
 * vmaf_close() drops it.
 *
 * @return 0, or -EINVAL (NULL argument; a state imported already; pictures read already).
 */
int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

/** Where vmaf_cuda_fetch_preallocated_picture() puts a picture's planes. */
enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0, /**< none: fetching is an error */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,   /**< device memory (cudaMallocPitch) */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,     /**< host memory, as vmaf_picture_alloc() */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, /**< host memory (see docs/api.md) */
};

/** The pictures vmaf_cuda_fetch_preallocated_picture() gives: size in samples, bits per
 *  component (8..16), pixel format, and where they live. */
typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method;
} VmafCudaPictureConfiguration;

/**
 * Sets the pictures that vmaf_cuda_fetch_preallocated_picture() returns.
 *
 * @return 0, or -EINVAL (NULL `vmaf`; an unknown method; DEVICE, HOST or HOST_PINNED with a
 *         size, bit depth or pixel format vmaf_picture_alloc() refuses; DEVICE or HOST_PINNED
 *         before vmaf_cuda_import_state()).
 */
int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg);

/**
 * Gives a picture as vmaf_cuda_preallocate_pictures() configured. A DEVICE picture's data[i]
 * are device pointers (CUdeviceptr) in the state's CUDA context, stride[i] their pitch in
 * bytes; w[i], h[i] as vmaf_picture_alloc()'s. Fill every plane, then hand it to
 * vmaf_read_pictures() (which waits for the caller's work on the legacy default stream: copies
 * on another stream must be synchronized by the caller first) or release it with
 * vmaf_picture_unref(). Its memory returns to the context's pool once the library is done
 * with it.
 *
 * @return 0, or -EINVAL (NULL argument; method NONE or never configured), -ENOMEM.
 */
int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_CUDA_H__ */
