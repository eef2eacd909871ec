/*
 * libvmaf_cuda.h through C code (compiled as C11, linked to libvmaf.so and the CUDA runtime, to
 * fill device pictures). Exits 77 (skipped) when CUDA is not usable here (vmaf_cuda_state_init
 * fails): the build machine has nvcc but no GPU.
 *
 *   vmafx_capi_cuda_test errors
 *       the error codes of the CUDA calls: NULL arguments, an unknown preallocation method, a bad
 *       picture configuration, device pictures before the import, fetching without
 *       preallocation, importing twice, importing after a read, frames out of order, a device
 *       picture beside a host one; each returns a negative errno and the program goes on.
 *   vmafx_capi_cuda_test run MODE REF DIST W H FMT BPC THREADS NAMES [MODEL]
 *       scores raw planar videos as test_capi.c's run mode (models MODEL, by default
 *       vmaf_v0.6.1, as vmaf and the
 *       vmaf_b_v0.6.3 collection as vmaf_b, features psnr, float_ssim and ciede, which have CUDA
 *       twins (ciede reads all three planes), and null, which has none: it runs on the CPU,
 *       from pictures downloaded from the device) and prints the same lines ("frame", "pooled", "model",
 *       "collection"). MODE cpu: no CUDA state; host: an
 *       imported state and host pictures; device: an imported state and DEVICE preallocated
 *       pictures filled with cudaMemcpy2D from the frames read. tests/capi/check_capi_cuda.py
 *       compares every value with the CLI's (--backend cuda and the CPU).
 */
#include <libvmaf.h>
#include <libvmaf_cuda.h>

#include <cuda_runtime_api.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_report.h"

/* A CUDA state on the primary context, or exit 77 when CUDA is unusable here. */
static VmafCudaState *state_or_skip(void) {
    VmafCudaState *state = NULL;
    VmafCudaConfiguration cc = {.cu_ctx = NULL};
    if (vmaf_cuda_state_init(&state, cc) || !state) {
        printf("skipped: no usable CUDA device (vmaf_cuda_state_init failed)\n");
        exit(77);
    }
    return state;
}

static VmafContext *context(void) {
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_NONE};
    if (vmaf_init(&vmaf, cfg)) {
        fprintf(stderr, "vmaf_init failed\n");
        exit(1);
    }
    return vmaf;
}

static int errors_mode(void) {
    VmafCudaState *state = state_or_skip();
    VmafCudaConfiguration cc = {.cu_ctx = NULL};
    CHECK(vmaf_cuda_state_init(NULL, cc) == -EINVAL);
    VmafContext *vmaf = context();
    CHECK(vmaf_cuda_import_state(NULL, state) == -EINVAL);
    CHECK(vmaf_cuda_import_state(vmaf, NULL) == -EINVAL);

    VmafPicture pic;
    VmafCudaPictureConfiguration pc = {.pic_params = {.w = 64, .h = 36, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
                                       .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE};
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic) == -EINVAL); /* never preallocated */
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, pc) == -EINVAL);        /* DEVICE before the import */
    CHECK(vmaf_cuda_preallocate_pictures(NULL, pc) == -EINVAL);
    CHECK(vmaf_cuda_import_state(vmaf, state) == 0);
    CHECK(vmaf_cuda_import_state(vmaf, state) == -EINVAL); /* twice */
    VmafCudaPictureConfiguration bad = pc;
    bad.pic_prealloc_method = (enum VmafCudaPicturePreallocationMethod)99;
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, bad) == -EINVAL);
    bad = pc;
    bad.pic_params.bpc = 7;
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, bad) == -EINVAL);
    bad = pc;
    bad.pic_params.w = 0;
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, bad) == -EINVAL);
    bad = pc;
    bad.pic_params.pix_fmt = VMAF_PIX_FMT_UNKNOWN;
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, bad) == -EINVAL);
    bad = pc;
    bad.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE;
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, bad) == 0);
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic) == -EINVAL); /* method NONE */
    CHECK(vmaf_cuda_preallocate_pictures(vmaf, pc) == 0);
    CHECK(vmaf_cuda_fetch_preallocated_picture(NULL, &pic) == -EINVAL);
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, NULL) == -EINVAL);

    /* A device picture: device pointers, pitch at least the row. */
    VmafPicture ref, dist, host;
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &ref) == 0);
    CHECK(ref.w[0] == 64 && ref.h[0] == 36 && ref.w[1] == 32 && ref.h[1] == 18 && ref.stride[0] >= 64);
    struct cudaPointerAttributes attr;
    CHECK(cudaPointerGetAttributes(&attr, ref.data[0]) == cudaSuccess && attr.type == cudaMemoryTypeDevice);
    CHECK(vmaf_picture_unref(&ref) == 0); /* back to the pool, unread */

    CHECK(vmaf_use_feature(vmaf, "psnr", NULL) == 0);
    /* A device picture beside a host one: refused, both released. */
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &ref) == 0);
    CHECK(vmaf_picture_alloc(&host, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == 0);
    CHECK(vmaf_read_pictures(vmaf, &ref, &host, 0) == -EINVAL);
    /* Device pictures of two sizes (the distorted one from another context's 32x18 pool): refused,
     * not read with the reference's size. */
    {
        VmafContext *other = context();
        VmafCudaPictureConfiguration small = pc;
        small.pic_params.w = 32;
        small.pic_params.h = 18;
        VmafPicture smaller;
        CHECK(vmaf_cuda_import_state(other, state) == 0);
        CHECK(vmaf_cuda_preallocate_pictures(other, small) == 0);
        CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &ref) == 0);
        CHECK(vmaf_cuda_fetch_preallocated_picture(other, &smaller) == 0);
        CHECK(vmaf_read_pictures(vmaf, &ref, &smaller, 0) == -EINVAL);
        CHECK(vmaf_close(other) == 0);
    }
    /* Out of order: frame 1 first. */
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &ref) == 0);
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &dist) == 0);
    CHECK(cudaMemset2D(ref.data[0], (size_t)ref.stride[0], 100, 64, 36) == cudaSuccess);
    CHECK(cudaMemset2D(dist.data[0], (size_t)dist.stride[0], 90, 64, 36) == cudaSuccess);
    CHECK(vmaf_read_pictures(vmaf, &ref, &dist, 1) == -EINVAL);
    /* In order: frame 0, a constant difference of 10 in luma. */
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &ref) == 0);
    CHECK(vmaf_cuda_fetch_preallocated_picture(vmaf, &dist) == 0);
    for (int p = 0; p < 3; p++) {
        CHECK(cudaMemset2D(ref.data[p], (size_t)ref.stride[p], 100, ref.w[p], ref.h[p]) == cudaSuccess);
        CHECK(cudaMemset2D(dist.data[p], (size_t)dist.stride[p], p ? 100 : 90, dist.w[p], dist.h[p]) == cudaSuccess);
    }
    CHECK(vmaf_read_pictures(vmaf, &ref, &dist, 0) == 0);
    CHECK(vmaf_cuda_import_state(vmaf, state) == -EINVAL); /* after a read */
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
    double psnr_y = 0;
    CHECK(vmaf_feature_score_at_index(vmaf, "psnr_y", &psnr_y, 0) == 0);
    /* 10 log10(255^2 / 100) */
    CHECK(psnr_y > 28.1308 && psnr_y < 28.1309);
    CHECK(vmaf_close(vmaf) == 0);

    /* A gpumask: no CUDA extractor, as upstream; device pictures are downloaded, same psnr. */
    {
        VmafContext *masked = NULL;
        VmafConfiguration mcfg = {.log_level = VMAF_LOG_LEVEL_NONE, .gpumask = 1};
        CHECK(vmaf_init(&masked, mcfg) == 0);
        CHECK(vmaf_cuda_import_state(masked, state) == 0);
        CHECK(vmaf_cuda_preallocate_pictures(masked, pc) == 0);
        CHECK(vmaf_use_feature(masked, "psnr", NULL) == 0);
        CHECK(vmaf_cuda_fetch_preallocated_picture(masked, &ref) == 0);
        CHECK(vmaf_cuda_fetch_preallocated_picture(masked, &dist) == 0);
        for (int p = 0; p < 3; p++) {
            CHECK(cudaMemset2D(ref.data[p], (size_t)ref.stride[p], 100, ref.w[p], ref.h[p]) == cudaSuccess);
            CHECK(cudaMemset2D(dist.data[p], (size_t)dist.stride[p], p ? 100 : 90, dist.w[p], dist.h[p]) ==
                  cudaSuccess);
        }
        CHECK(vmaf_read_pictures(masked, &ref, &dist, 0) == 0);
        CHECK(vmaf_read_pictures(masked, NULL, NULL, 0) == 0);
        double masked_y = 0;
        CHECK(vmaf_feature_score_at_index(masked, "psnr_y", &masked_y, 0) == 0);
        CHECK(masked_y == psnr_y);
        CHECK(vmaf_close(masked) == 0);
    }

    /* Importing after a read on the CPU. */
    vmaf = context();
    CHECK(vmaf_use_feature(vmaf, "psnr", NULL) == 0);
    CHECK(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == 0);
    CHECK(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == 0);
    CHECK(vmaf_read_pictures(vmaf, &ref, &dist, 0) == 0);
    CHECK(vmaf_cuda_import_state(vmaf, state) == -EINVAL);
    CHECK(vmaf_close(vmaf) == 0);

    if (failures) fprintf(stderr, "%d checks failed\n", failures);
    else printf("all CUDA C API checks passed\n");
    return failures ? 1 : 0;
}

/* Replaces host picture `*pic` by a DEVICE picture of the context holding the same samples. */
static int to_device(VmafContext *vmaf, VmafPicture *pic) {
    VmafPicture dev;
    if (vmaf_cuda_fetch_preallocated_picture(vmaf, &dev)) return -1;
    const size_t bytes = pic->bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++)
        if (cudaMemcpy2D(dev.data[p], (size_t)dev.stride[p], pic->data[p], (size_t)pic->stride[p], pic->w[p] * bytes,
                         pic->h[p], cudaMemcpyHostToDevice) != cudaSuccess)
            return -1;
    vmaf_picture_unref(pic);
    *pic = dev;
    return 0;
}

static int run_mode(char **argv) {
    const char *mode = argv[0], *ref_path = argv[1], *dist_path = argv[2];
    const unsigned w = (unsigned)atoi(argv[3]), h = (unsigned)atoi(argv[4]);
    const enum VmafPixelFormat fmt = !strcmp(argv[5], "444")   ? VMAF_PIX_FMT_YUV444P
                                     : !strcmp(argv[5], "422") ? VMAF_PIX_FMT_YUV422P
                                                               : VMAF_PIX_FMT_YUV420P;
    const unsigned bpc = (unsigned)atoi(argv[6]);
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = (unsigned)atoi(argv[7])};
    const char *names_path = argv[8];
    const char *model_version = argv[9] ? argv[9] : "vmaf_v0.6.1";
    const int gpu = strcmp(mode, "cpu") != 0, device = !strcmp(mode, "device");
    VmafCudaState *state = gpu ? state_or_skip() : NULL;

    VmafContext *vmaf = NULL;
    VmafModel *model = NULL, *member = NULL;
    VmafModelCollection *coll = NULL;
    VmafModelConfig mcfg = {.name = "vmaf"}, bcfg = {.name = "vmaf_b"};
    if (vmaf_init(&vmaf, cfg) || (gpu && vmaf_cuda_import_state(vmaf, state)) ||
        vmaf_model_load(&model, &mcfg, model_version) ||
        vmaf_model_collection_load(&member, &coll, &bcfg, "vmaf_b_v0.6.3") ||
        vmaf_use_features_from_model(vmaf, model) || vmaf_use_features_from_model_collection(vmaf, coll) ||
        vmaf_use_feature(vmaf, "psnr", NULL) || vmaf_use_feature(vmaf, "float_ssim", NULL) ||
        vmaf_use_feature(vmaf, "ciede", NULL) || vmaf_use_feature(vmaf, "null", NULL)) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    if (device) {
        VmafCudaPictureConfiguration pc = {.pic_params = {.w = w, .h = h, .bpc = bpc, .pix_fmt = fmt},
                                           .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE};
        if (vmaf_cuda_preallocate_pictures(vmaf, pc)) {
            fprintf(stderr, "vmaf_cuda_preallocate_pictures failed\n");
            return 1;
        }
    }
    const unsigned frames = score_files(vmaf, ref_path, dist_path, fmt, bpc, w, h, device ? to_device : NULL);
    if (!frames) return 1;
    if (print_scores(vmaf, model, member, coll, names_path, frames)) return 1;
    vmaf_model_destroy(model);
    vmaf_model_destroy(member);
    vmaf_model_collection_destroy(coll);
    return vmaf_close(vmaf) ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "errors")) return errors_mode();
    if ((argc == 11 || argc == 12) && !strcmp(argv[1], "run")) return run_mode(argv + 2);
    fprintf(stderr, "usage: %s errors | run cpu|host|device REF DIST W H 420|422|444 BPC THREADS NAMES [MODEL]\n",
            argv[0]);
    return 2;
}
