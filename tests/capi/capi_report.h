/*
 * Shared by the C API test programs (test_capi.c, test_capi_cuda.c): the CHECK macro, reading
 * raw planar frames into a context and printing its values in the lines check_capi.py parses.
 */
#ifndef VMAFX_TESTS_CAPI_REPORT_H
#define VMAFX_TESTS_CAPI_REPORT_H

#include <libvmaf.h>

#include <stdio.h>

/* Checks counted in `failures`, each failure named on standard error. */
static int failures = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

/* Reads one picture's planes from `f` into a new host picture `pic`: 1, 0 at the end of the
 * file, -1 on a short frame or a failed allocation. */
static int read_raw(FILE *f, VmafPicture *pic, enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h) {
    if (vmaf_picture_alloc(pic, fmt, bpc, w, h)) return -1;
    const size_t bytes = bpc > 8 ? 2 : 1;
    for (int p = 0; p < 3; p++)
        for (unsigned r = 0; r < pic->h[p]; r++)
            if (fread((char *)pic->data[p] + r * pic->stride[p], bytes, pic->w[p], f) != pic->w[p]) {
                vmaf_picture_unref(pic);
                return (p == 0 && r == 0) ? 0 : -1;
            }
    return 1;
}

/* What to do with each host picture before it is read (e.g. move it to the device); 0 or -1. */
typedef int (*PictureHook)(VmafContext *vmaf, VmafPicture *pic);

/* Reads every frame pair of raw planar files `ref_path` and `dist_path` into `vmaf` (indices 0,
 * 1, ...; `hook`, if any, applied to each picture first), then flushes. Returns the number of
 * frames, or 0 after printing what failed. */
static unsigned score_files(VmafContext *vmaf, const char *ref_path, const char *dist_path, enum VmafPixelFormat fmt,
                            unsigned bpc, unsigned w, unsigned h, PictureHook hook) {
    FILE *rf = fopen(ref_path, "rb"), *df = fopen(dist_path, "rb");
    if (!rf || !df) {
        fprintf(stderr, "cannot open the videos\n");
        if (rf) fclose(rf);
        if (df) fclose(df);
        return 0;
    }
    unsigned frames = 0;
    int failed = 0;
    for (;;) {
        VmafPicture r, d;
        if (read_raw(rf, &r, fmt, bpc, w, h) <= 0) break;
        if (read_raw(df, &d, fmt, bpc, w, h) <= 0) {
            vmaf_picture_unref(&r);
            break;
        }
        if (hook && (hook(vmaf, &r) || hook(vmaf, &d))) {
            fprintf(stderr, "preparing a picture failed\n");
            failed = 1;
            break;
        }
        if (vmaf_read_pictures(vmaf, &r, &d, frames)) {
            fprintf(stderr, "vmaf_read_pictures failed\n");
            failed = 1;
            break;
        }
        frames++;
    }
    fclose(rf);
    fclose(df);
    if (failed || !frames || vmaf_read_pictures(vmaf, NULL, NULL, 0)) {
        fprintf(stderr, "no frames, or the flush failed\n");
        return 0;
    }
    return frames;
}

/* Prints, for a flushed context of `frames` frames: "model vmaf METHOD VALUE" and "collection
 * vmaf_b METHOD BAGGING STDDEV LO HI" for each pooling method (having asked for the scores of
 * `model`, `member`, the collection's member 0, and `coll`, in the CLI's order of names), then "frame NAME INDEX VALUE"
 * (%.17g, or "none") for every name in file `names_path` and every frame and "pooled NAME
 * METHOD VALUE" for each pooling method. Returns 0, or 1 when `names_path` cannot be read or `member` cannot be scored. */
static int print_scores(VmafContext *vmaf, VmafModel *model, VmafModel *member, VmafModelCollection *coll,
                        const char *names_path, unsigned frames) {
    FILE *nf = fopen(names_path, "r");
    if (!nf) return 1;
    char name[256];
    const char *methods[] = {"", "min", "max", "mean", "harmonic_mean"};
    /* The models first: as upstream, the library stores a model's scores only once a client
     * asks for them. vmaf_score_pooled may be asked again (it finds the stored scores);
     * vmaf_score_pooled_model_collection only once (a second call finds its member scores
     * stored and fails, as upstream's), so its other pools are those of the stored names. */
    for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
        double s;
        VmafModelCollectionScore cs;
        if (vmaf_score_pooled(vmaf, model, (enum VmafPoolingMethod)m, &s, 0, frames - 1) == 0)
            printf("model vmaf %s %.17g\n", methods[m], s);
        /* the collection's member 0 (its score under the collection's name, as the CLI writes) */
        double s0;
        if (m == VMAF_POOL_METHOD_MIN && vmaf_score_pooled(vmaf, member, VMAF_POOL_METHOD_MEAN, &s0, 0, frames - 1)) {
            fclose(nf);
            return 1;
        }
        int err;
        if (m == VMAF_POOL_METHOD_MIN) {
            err = vmaf_score_pooled_model_collection(vmaf, coll, (enum VmafPoolingMethod)m, &cs, 0, frames - 1);
        } else {
            err = vmaf_feature_score_pooled(vmaf, "vmaf_b_bagging", (enum VmafPoolingMethod)m,
                                            &cs.bootstrap.bagging_score, 0, frames - 1);
            err |= vmaf_feature_score_pooled(vmaf, "vmaf_b_stddev", (enum VmafPoolingMethod)m, &cs.bootstrap.stddev,
                                             0, frames - 1);
            err |= vmaf_feature_score_pooled(vmaf, "vmaf_b_ci_p95_lo", (enum VmafPoolingMethod)m,
                                             &cs.bootstrap.ci.p95.lo, 0, frames - 1);
            err |= vmaf_feature_score_pooled(vmaf, "vmaf_b_ci_p95_hi", (enum VmafPoolingMethod)m,
                                             &cs.bootstrap.ci.p95.hi, 0, frames - 1);
        }
        if (err == 0)
            printf("collection vmaf_b %s %.17g %.17g %.17g %.17g\n", methods[m], cs.bootstrap.bagging_score,
                   cs.bootstrap.stddev, cs.bootstrap.ci.p95.lo, cs.bootstrap.ci.p95.hi);
    }
    while (fscanf(nf, "%255s", name) == 1) {
        for (unsigned i = 0; i < frames; i++) {
            double s;
            if (vmaf_feature_score_at_index(vmaf, name, &s, i) == 0)
                printf("frame %s %u %.17g\n", name, i, s);
            else
                printf("frame %s %u none\n", name, i);
        }
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            double s;
            if (vmaf_feature_score_pooled(vmaf, name, (enum VmafPoolingMethod)m, &s, 0, frames - 1) == 0)
                printf("pooled %s %s %.17g\n", name, methods[m], s);
        }
    }
    fclose(nf);
    return 0;
}

#endif
