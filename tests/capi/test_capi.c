/*
 * The libvmaf C API through C code (compiled as C11, linked to libvmaf.so).
 *
 *   vmafx_capi_test errors MODEL.json
 *       every call of include/libvmaf/*.h, its error codes on bad arguments (NULL, wrong sizes,
 *       mismatched pictures, unknown model version or path, unknown feature or option, index out
 *       of range, pooling method out of range) and its results on synthetic pictures; exit 0
 *       when every check passed, 1 naming the failures.
 *   vmafx_capi_test run REF DIST W H FMT BPC THREADS SUBSAMPLE NAMES OUTDIR
 *       scores raw planar videos REF and DIST (FMT 420, 422 or 444; BPC 8..16) with models
 *       vmaf_v0.6.1 (name vmaf), vmaf_b_v0.6.3 (collection, name vmaf_b) and features psnr and
 *       float_ssim; prints "frame NAME INDEX VALUE" (%.17g, or "none") for every name listed in
 *       the file NAMES and every frame, "pooled NAME METHOD VALUE" for each pooling method,
 *       model and collection pooled scores, and writes OUTDIR/out.{xml,json,csv,sub}.
 *       tests/capi/check_capi.py compares all of it with the CLI's.
 */
#include <libvmaf.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capi_report.h"

/* Fills a picture with a deterministic pattern (seed changes it), within its bit depth. */
static void fill(VmafPicture *pic, unsigned seed) {
    const unsigned max = (1u << pic->bpc) - 1;
    uint32_t x = 2463534242u + seed * 977u;
    for (int p = 0; p < 3; p++) {
        for (unsigned r = 0; r < pic->h[p]; r++) {
            for (unsigned c = 0; c < pic->w[p]; c++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                const unsigned v = (((r * 7 + c * 3) * max / 400) + (x % 9)) % (max + 1);
                if (pic->bpc > 8)
                    ((uint16_t *)((char *)pic->data[p] + r * pic->stride[p]))[c] = (uint16_t)v;
                else
                    ((uint8_t *)pic->data[p] + r * pic->stride[p])[c] = (uint8_t)v;
            }
        }
    }
}

static int alloc_pair(VmafPicture *r, VmafPicture *d, enum VmafPixelFormat f, unsigned bpc, unsigned w,
                      unsigned h, unsigned seed) {
    if (vmaf_picture_alloc(r, f, bpc, w, h)) return -1;
    if (vmaf_picture_alloc(d, f, bpc, w, h)) {
        vmaf_picture_unref(r);
        return -1;
    }
    fill(r, seed);
    fill(d, seed + 1000);
    return 0;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) ? -1 : (long)st.st_size;
}

static int errors_mode(const char *model_json) {
    const VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_NONE};

    /* version */
    CHECK(vmaf_version() && strncmp(vmaf_version(), "3.2.0", 5) == 0);

    /* context */
    CHECK(vmaf_init(NULL, cfg) == -EINVAL);
    VmafContext *vmaf = NULL;
    VmafConfiguration many = cfg;
    many.n_threads = 5000;
    CHECK(vmaf_init(&vmaf, many) == -EINVAL);
    CHECK(vmaf_close(NULL) == -EINVAL);

    /* feature dictionaries */
    VmafFeatureDictionary *d = NULL;
    CHECK(vmaf_feature_dictionary_set(NULL, "k", "v") == -EINVAL);
    CHECK(vmaf_feature_dictionary_set(&d, NULL, "v") == -EINVAL);
    CHECK(vmaf_feature_dictionary_set(&d, "k", NULL) == -EINVAL);
    CHECK(d == NULL);
    CHECK(vmaf_feature_dictionary_free(NULL) == -EINVAL);
    CHECK(vmaf_feature_dictionary_free(&d) == -EINVAL);
    CHECK(vmaf_feature_dictionary_set(&d, "enable_chroma", "false") == 0 && d != NULL);
    CHECK(vmaf_feature_dictionary_set(&d, "enable_chroma", "true") == 0);
    CHECK(vmaf_feature_dictionary_free(&d) == 0 && d == NULL);

    /* pictures */
    VmafPicture pic;
    CHECK(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_UNKNOWN, 8, 64, 36) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, (enum VmafPixelFormat)99, 8, 64, 36) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 7, 64, 36) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 17, 64, 36) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 0, 36) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 64, 0) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 65, 33) == 0);
    CHECK(pic.w[0] == 65 && pic.h[0] == 33 && pic.w[1] == 33 && pic.h[1] == 17 && pic.w[2] == 33);
    CHECK(pic.stride[0] >= 65 && pic.data[0] && pic.data[1] && pic.data[2] && pic.ref);
    CHECK(vmaf_picture_unref(&pic) == 0);
    CHECK(vmaf_picture_unref(&pic) == -EINVAL);
    CHECK(vmaf_picture_unref(NULL) == -EINVAL);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV422P, 10, 65, 33) == 0);
    CHECK(pic.bpc == 10 && pic.w[1] == 33 && pic.h[1] == 33 && pic.stride[0] >= 130);
    CHECK(vmaf_picture_unref(&pic) == 0);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV444P, 16, 65, 33) == 0);
    CHECK(pic.w[2] == 65 && pic.h[2] == 33);
    CHECK(vmaf_picture_unref(&pic) == 0);
    CHECK(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV400P, 12, 65, 33) == 0);
    CHECK(pic.w[1] == 0 && pic.h[1] == 0 && pic.data[1] == NULL && pic.data[2] == NULL);
    CHECK(vmaf_picture_unref(&pic) == 0);

    /* models */
    VmafModel *model = NULL, *member = NULL;
    VmafModelCollection *coll = NULL;
    VmafModelConfig mcfg = {.name = "vmaf", .flags = VMAF_MODEL_FLAGS_DEFAULT};
    CHECK(vmaf_model_load(NULL, &mcfg, "vmaf_v0.6.1") == -EINVAL);
    CHECK(vmaf_model_load(&model, NULL, "vmaf_v0.6.1") == -EINVAL);
    CHECK(vmaf_model_load(&model, &mcfg, NULL) == -EINVAL);
    CHECK(vmaf_model_load(&model, &mcfg, "vmaf_v9.9.9") == -EINVAL && model == NULL);
    CHECK(vmaf_model_load(&model, &mcfg, "vmaf_b_v0.6.3") == -EINVAL && model == NULL);
    CHECK(vmaf_model_load_from_path(&model, &mcfg, "/nonexistent/model.json") == -EINVAL && model == NULL);
    CHECK(vmaf_model_load_from_path(&model, &mcfg, model_json) == 0 && model != NULL);
    vmaf_model_destroy(model);
    vmaf_model_destroy(NULL);
    model = NULL;
    CHECK(vmaf_model_collection_load(&member, &coll, &mcfg, "vmaf_v0.6.1") == -EINVAL && coll == NULL);
    CHECK(vmaf_model_collection_load(NULL, &coll, &mcfg, "vmaf_b_v0.6.3") == -EINVAL);
    CHECK(vmaf_model_collection_load_from_path(&member, &coll, &mcfg, "/nonexistent.json") == -EINVAL);
    VmafModelConfig bcfg = {.name = "vmaf_b"};
    CHECK(vmaf_model_collection_load(&member, &coll, &bcfg, "vmaf_b_v0.6.3") == 0 && coll && member);
    VmafModelConfig ncfg = {.name = "vmaf_neg", .flags = VMAF_MODEL_FLAG_DISABLE_CLIP};
    VmafModel *neg = NULL;
    CHECK(vmaf_model_load(&neg, &ncfg, "vmaf_v0.6.1neg") == 0);
    CHECK(vmaf_model_load(&model, &mcfg, "vmaf_v0.6.1") == 0);

    /* feature overloads */
    d = NULL;
    vmaf_feature_dictionary_set(&d, "no_such_option", "1");
    CHECK(vmaf_model_feature_overload(model, "adm", d) == -EINVAL); /* takes d */
    d = NULL;
    CHECK(vmaf_model_feature_overload(NULL, "adm", NULL) == -EINVAL);
    vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.2");
    CHECK(vmaf_model_feature_overload(neg, "adm", d) == 0);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.0");
    CHECK(vmaf_model_collection_feature_overload(member, &coll, "vif", d) == 0);

    /* registering features */
    CHECK(vmaf_init(&vmaf, cfg) == 0 && vmaf);
    CHECK(vmaf_use_features_from_model(NULL, model) == -EINVAL);
    CHECK(vmaf_use_features_from_model(vmaf, NULL) == -EINVAL);
    CHECK(vmaf_use_features_from_model_collection(vmaf, NULL) == -EINVAL);
    CHECK(vmaf_use_feature(NULL, "psnr", NULL) == -EINVAL);
    CHECK(vmaf_use_feature(vmaf, NULL, NULL) == -EINVAL);
    CHECK(vmaf_use_feature(vmaf, "no_such_feature", NULL) == -EINVAL);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "no_such_option", "1");
    CHECK(vmaf_use_feature(vmaf, "psnr", d) == -EINVAL); /* takes d */
    CHECK(vmaf_use_features_from_model(vmaf, model) == 0);
    CHECK(vmaf_use_features_from_model(vmaf, neg) == 0);
    CHECK(vmaf_use_features_from_model_collection(vmaf, coll) == 0);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_chroma", "true");
    CHECK(vmaf_use_feature(vmaf, "psnr", d) == 0);
    CHECK(vmaf_use_feature(vmaf, "float_ssim", NULL) == 0);

    /* reading pictures */
    VmafPicture r, q;
    CHECK(vmaf_read_pictures(NULL, NULL, NULL, 0) == -EINVAL);
    CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 64, 36, 1) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, NULL, 0) == -EINVAL);
    CHECK(vmaf_read_pictures(vmaf, NULL, &q, 0) == -EINVAL);
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&q);
    /* mismatched pairs: size, bit depth, pixel format (the context takes and frees them) */
    CHECK(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == 0);
    CHECK(vmaf_picture_alloc(&q, VMAF_PIX_FMT_YUV420P, 8, 66, 36) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 0) == -EINVAL && r.ref == NULL && q.ref == NULL);
    CHECK(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == 0);
    CHECK(vmaf_picture_alloc(&q, VMAF_PIX_FMT_YUV420P, 10, 64, 36) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 0) == -EINVAL);
    CHECK(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 36) == 0);
    CHECK(vmaf_picture_alloc(&q, VMAF_PIX_FMT_YUV444P, 8, 64, 36) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 0) == -EINVAL);
    VmafPicture empty1, empty2;
    memset(&empty1, 0, sizeof(empty1));
    memset(&empty2, 0, sizeof(empty2));
    CHECK(vmaf_read_pictures(vmaf, &empty1, &empty2, 0) == -EINVAL);
    const unsigned frames = 4;
    for (unsigned i = 0; i < frames; i++) {
        CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 64, 36, i) == 0);
        CHECK(vmaf_read_pictures(vmaf, &r, &q, i) == 0);
        CHECK(r.ref == NULL && q.ref == NULL);
    }
    CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 64, 36, 9) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 2) == -EINVAL); /* index given twice */
    CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 80, 36, 9) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 4) == -EINVAL); /* size differs from the first pair's */
    CHECK(vmaf_use_feature(vmaf, "ciede", NULL) == -EINVAL); /* too late: pictures were read */

    /* imported scores */
    CHECK(vmaf_import_feature_score(vmaf, NULL, 1.0, 0) == -EINVAL);
    CHECK(vmaf_import_feature_score(NULL, "mine", 1.0, 0) == -EINVAL);
    CHECK(vmaf_import_feature_score(vmaf, "mine", 1.5, 0) == 0);
    CHECK(vmaf_import_feature_score(vmaf, "mine", 2.5, 0) == -EINVAL);

    /* flush */
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == -EINVAL);
    CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 64, 36, 5) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 5) == -EINVAL && r.ref == NULL);

    /* scores at an index */
    double s = -1, t = -1;
    CHECK(vmaf_score_at_index(NULL, model, &s, 0) == -EINVAL);
    CHECK(vmaf_score_at_index(vmaf, NULL, &s, 0) == -EINVAL);
    CHECK(vmaf_score_at_index(vmaf, model, NULL, 0) == -EINVAL);
    CHECK(vmaf_score_at_index(vmaf, model, &s, frames) == -EINVAL);
    /* as upstream, a model is scored only when asked for: nothing under its name yet */
    CHECK(vmaf_feature_score_at_index(vmaf, "vmaf", &s, 0) == -EINVAL);
    for (unsigned i = 0; i < frames; i++) {
        CHECK(vmaf_score_at_index(vmaf, model, &s, i) == 0 && s >= 0.0 && s <= 100.0);
        CHECK(vmaf_feature_score_at_index(vmaf, "vmaf", &t, i) == 0 && t == s);
    }
    CHECK(vmaf_feature_score_at_index(vmaf, "psnr_y", &s, 1) == 0 && s > 0.0 && s < 100.0);
    CHECK(vmaf_feature_score_at_index(vmaf, "psnr_cb", &s, 1) == 0);
    CHECK(vmaf_feature_score_at_index(vmaf, "float_ssim", &s, 1) == 0 && s > 0.0 && s <= 1.0);
    CHECK(vmaf_feature_score_at_index(vmaf, "no_such_name", &s, 0) == -EINVAL);
    CHECK(vmaf_feature_score_at_index(vmaf, "psnr_y", NULL, 0) == -EINVAL);
    CHECK(vmaf_feature_score_at_index(vmaf, "psnr_y", &s, 99) == -EINVAL);
    CHECK(vmaf_feature_score_at_index(vmaf, "mine", &s, 0) == 0 && s == 1.5);
    VmafModelCollectionScore cs;
    memset(&cs, 0, sizeof(cs));
    CHECK(vmaf_score_at_index_model_collection(vmaf, NULL, &cs, 0) == -EINVAL);
    CHECK(vmaf_score_at_index_model_collection(vmaf, coll, NULL, 0) == -EINVAL);
    CHECK(vmaf_feature_score_at_index(vmaf, "vmaf_b_bagging", &s, 1) == -EINVAL); /* not asked for yet */
    CHECK(vmaf_score_at_index_model_collection(vmaf, coll, &cs, 1) == 0);
    CHECK(vmaf_feature_score_at_index(vmaf, "vmaf_b_bagging", &s, 1) == 0 && s == cs.bootstrap.bagging_score);
    CHECK(vmaf_feature_score_at_index(vmaf, "vmaf_b_0001", &s, 1) == 0);
    CHECK(vmaf_feature_score_at_index(vmaf, "vmaf_b", &s, 1) == -EINVAL); /* member 0: only vmaf_score_at_index */
    {   /* as upstream: a second call for a frame finds its members' scores stored and fails */
        VmafModelCollectionScore again;
        CHECK(vmaf_score_at_index_model_collection(vmaf, coll, &again, 1) == -EINVAL);
    }
    CHECK(cs.type == VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP);
    CHECK(cs.bootstrap.ci.p95.lo <= cs.bootstrap.bagging_score && cs.bootstrap.bagging_score <= cs.bootstrap.ci.p95.hi);
    CHECK(cs.bootstrap.stddev >= 0.0);

    /* pooling */
    double mn, mx, mean, hm;
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &mean, 2, 1) == -EINVAL);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_UNKNOWN, &mean, 0, 3) == -EINVAL);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_NB, &mean, 0, 3) == -EINVAL);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &mean, 0, frames) == -EINVAL);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, NULL, 0, 3) == -EINVAL);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MIN, &mn, 0, frames - 1) == 0);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MAX, &mx, 0, frames - 1) == 0);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &mean, 0, frames - 1) == 0);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_HARMONIC_MEAN, &hm, 0, frames - 1) == 0);
    CHECK(mn <= hm && hm <= mean && mean <= mx);
    double sum = 0;
    for (unsigned i = 0; i < frames; i++) {
        vmaf_score_at_index(vmaf, model, &s, i);
        sum += s;
    }
    CHECK(mean == sum / frames);
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 2, 2) == 0 &&
          vmaf_score_at_index(vmaf, model, &t, 2) == 0 && s == t);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", VMAF_POOL_METHOD_MEAN, &s, 0, frames - 1) == 0);
    CHECK(vmaf_feature_score_pooled(vmaf, "psnr_y", (enum VmafPoolingMethod)77, &s, 0, frames - 1) == -EINVAL);
    CHECK(vmaf_feature_score_pooled(vmaf, "no_such_name", VMAF_POOL_METHOD_MEAN, &s, 0, 0) == -EINVAL);
    CHECK(vmaf_feature_score_pooled(vmaf, NULL, VMAF_POOL_METHOD_MEAN, &s, 0, 0) == -EINVAL);
    CHECK(vmaf_score_pooled_model_collection(vmaf, coll, VMAF_POOL_METHOD_MEAN, &cs, 0, frames - 1) == -EINVAL);
    CHECK(vmaf_score_pooled_model_collection(vmaf, coll, VMAF_POOL_METHOD_MEAN, &cs, 2, frames - 1) == 0);
    CHECK(cs.type == VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP && cs.bootstrap.bagging_score > 0);
    CHECK(vmaf_score_pooled_model_collection(vmaf, coll, VMAF_POOL_METHOD_MEAN, &cs, 3, 0) == -EINVAL);
    CHECK(vmaf_score_pooled_model_collection(vmaf, coll, VMAF_POOL_METHOD_UNKNOWN, &cs, 0, 0) == -EINVAL);
    /* a model never registered is predicted from the features on demand */
    VmafModel *four_k = NULL;
    VmafModelConfig kcfg = {.name = "vmaf_4k"};
    CHECK(vmaf_model_load(&four_k, &kcfg, "vmaf_4k_v0.6.1") == 0);
    CHECK(vmaf_score_pooled(vmaf, four_k, VMAF_POOL_METHOD_MEAN, &s, 0, frames - 1) == 0 && s >= 0 && s <= 100);

    /* output files */
    const char *tmp = getenv("TMPDIR");
    char dir[400];
    snprintf(dir, sizeof(dir), "%s/vmafx_capi_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    const char *ext[] = {"", "xml", "json", "csv", "sub"};
    CHECK(vmaf_write_output(vmaf, NULL, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL);
    snprintf(path, sizeof(path), "%s/none", dir);
    CHECK(vmaf_write_output(vmaf, path, VMAF_OUTPUT_FORMAT_NONE) == -EINVAL);
    CHECK(vmaf_write_output(vmaf, path, (enum VmafOutputFormat)42) == -EINVAL);
    CHECK(vmaf_write_output(vmaf, "/nonexistent/dir/out.json", VMAF_OUTPUT_FORMAT_JSON) == -EINVAL);
    for (int f = VMAF_OUTPUT_FORMAT_XML; f <= VMAF_OUTPUT_FORMAT_SUB; f++) {
        snprintf(path, sizeof(path), "%s/out.%s", dir, ext[f]);
        CHECK(vmaf_write_output(vmaf, path, (enum VmafOutputFormat)f) == 0);
        CHECK(file_size(path) > 100);
        unlink(path);
    }
    {
        /* "-" is a file of that name, as upstream's fopen makes it, not standard output. */
        char cwd[4096];
        CHECK(getcwd(cwd, sizeof(cwd)) != NULL && chdir(dir) == 0);
        CHECK(vmaf_write_output(vmaf, "-", VMAF_OUTPUT_FORMAT_CSV) == 0);
        CHECK(file_size("-") > 10);
        unlink("-");
        CHECK(chdir(cwd) == 0);
    }
    CHECK(vmaf_close(vmaf) == 0);

    /* Indices out of order without threads, as upstream's CPU path (measured with upstream's
     * libvmaf.so, master f85a8536, n_threads 0, vmaf_v0.6.1 on tiny_64x36_420p8 read 2, 1, 0:
     * -EINVAL, -EINVAL, 0, then frame 0 scored and frames 1 and 2 -EINVAL; read 0, 2, 1: all 0):
     * motion needs a previous picture at index 1 and above, and a refused frame is not kept. */
    {
        VmafConfiguration ocfg = {.log_level = VMAF_LOG_LEVEL_NONE, .n_threads = 0};
        VmafPicture a, b;
        double v;
        CHECK(vmaf_init(&vmaf, ocfg) == 0 && vmaf_use_features_from_model(vmaf, model) == 0);
        const unsigned order[] = {2, 1, 0};
        const int want[] = {-EINVAL, -EINVAL, 0};
        for (int k = 0; k < 3; k++) {
            CHECK(alloc_pair(&a, &b, VMAF_PIX_FMT_YUV420P, 8, 64, 36, order[k]) == 0);
            CHECK(vmaf_read_pictures(vmaf, &a, &b, order[k]) == want[k]);
        }
        CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
        CHECK(vmaf_score_at_index(vmaf, model, &v, 0) == 0 && v >= 0.0 && v <= 100.0);
        CHECK(vmaf_score_at_index(vmaf, model, &v, 1) == -EINVAL);
        CHECK(vmaf_score_at_index(vmaf, model, &v, 2) == -EINVAL);
        CHECK(vmaf_close(vmaf) == 0);
        CHECK(vmaf_init(&vmaf, ocfg) == 0 && vmaf_use_features_from_model(vmaf, model) == 0);
        const unsigned order2[] = {0, 2, 1};
        for (int k = 0; k < 3; k++) {
            CHECK(alloc_pair(&a, &b, VMAF_PIX_FMT_YUV420P, 8, 64, 36, order2[k]) == 0);
            CHECK(vmaf_read_pictures(vmaf, &a, &b, order2[k]) == 0);
        }
        CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
        CHECK(vmaf_score_at_index(vmaf, model, &v, 1) == 0);
        CHECK(vmaf_close(vmaf) == 0);
    }

    /* preallocated pictures, luma-only pictures, threads and subsampling */
    VmafConfiguration tcfg = {.log_level = VMAF_LOG_LEVEL_NONE, .n_threads = 2, .n_subsample = 2};
    CHECK(vmaf_init(&vmaf, tcfg) == 0);
    CHECK(vmaf_fetch_preallocated_picture(vmaf, &pic) == -EINVAL);
    VmafPictureConfiguration pcfg = {.pic_params = {.w = 64, .h = 36, .bpc = 10, .pix_fmt = VMAF_PIX_FMT_YUV400P},
                                     .pic_cnt = 0};
    CHECK(vmaf_preallocate_pictures(vmaf, pcfg) == -EINVAL);
    pcfg.pic_cnt = 4;
    CHECK(vmaf_preallocate_pictures(NULL, pcfg) == -EINVAL);
    CHECK(vmaf_preallocate_pictures(vmaf, pcfg) == 0);
    CHECK(vmaf_fetch_preallocated_picture(vmaf, NULL) == -EINVAL);
    CHECK(vmaf_use_features_from_model(vmaf, model) == 0); /* luma only: 400 is fine */
    for (unsigned i = 0; i < 5; i++) {
        CHECK(vmaf_fetch_preallocated_picture(vmaf, &r) == 0 && r.bpc == 10 && r.w[0] == 64 && r.w[1] == 0);
        CHECK(vmaf_fetch_preallocated_picture(vmaf, &q) == 0);
        fill(&r, i);
        fill(&q, i + 50);
        CHECK(vmaf_read_pictures(vmaf, &r, &q, i) == 0);
    }
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
    CHECK(vmaf_score_at_index(vmaf, model, &s, 0) == 0 && vmaf_score_at_index(vmaf, model, &s, 4) == 0);
    CHECK(vmaf_score_at_index(vmaf, model, &s, 1) == -EINVAL); /* subsampled away */
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 0, 4) == 0);
    CHECK(vmaf_close(vmaf) == 0);

    /* 400 with a feature reading chroma; a format the metrics cannot score */
    CHECK(vmaf_init(&vmaf, cfg) == 0);
    CHECK(vmaf_use_feature(vmaf, "psnr", NULL) == 0);
    CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV400P, 8, 64, 36, 1) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 0) == -EINVAL);
    CHECK(vmaf_close(vmaf) == 0);
    CHECK(vmaf_init(&vmaf, cfg) == 0);
    CHECK(vmaf_use_features_from_model(vmaf, model) == 0);
    CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 1) == 0);
    CHECK(vmaf_read_pictures(vmaf, &r, &q, 0) == -EINVAL);
    snprintf(path, sizeof(path), "%s/never-written.json", dir);
    CHECK(vmaf_write_output(vmaf, path, VMAF_OUTPUT_FORMAT_JSON) == -EINVAL && file_size(path) < 0);
    unlink(path);
    rmdir(dir);
    CHECK(vmaf_close(vmaf) == 0);

    /* Indices with a gap (0, 1, 3): the flush succeeds and the frames whose features are all
       there (0 and 1) have scores, as upstream 3.2.0 (checked with the same calls against it:
       frames 2 and 3, which lack motion2, are -EINVAL there too). */
    CHECK(vmaf_init(&vmaf, cfg) == 0);
    CHECK(vmaf_use_features_from_model(vmaf, model) == 0);
    {
        const unsigned gap[3] = {0, 1, 3};
        for (unsigned i = 0; i < 3; i++) {
            CHECK(alloc_pair(&r, &q, VMAF_PIX_FMT_YUV420P, 8, 64, 36, i) == 0);
            CHECK(vmaf_read_pictures(vmaf, &r, &q, gap[i]) == 0);
        }
        CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);
        double g = -1.0;
        CHECK(vmaf_score_at_index(vmaf, model, &g, 0) == 0 && g >= 0.0 && g <= 100.0);
        CHECK(vmaf_score_at_index(vmaf, model, &g, 1) == 0 && g >= 0.0 && g <= 100.0);
        CHECK(vmaf_score_at_index(vmaf, model, &g, 2) == -EINVAL);
        CHECK(vmaf_score_at_index(vmaf, model, &g, 3) == -EINVAL);
    }
    CHECK(vmaf_close(vmaf) == 0);

    vmaf_model_destroy(model);
    vmaf_model_destroy(neg);
    vmaf_model_destroy(four_k);
    vmaf_model_destroy(member);
    vmaf_model_collection_destroy(coll);
    vmaf_model_collection_destroy(NULL);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}

static int run_mode(char **argv) {
    const char *ref_path = argv[0], *dist_path = argv[1];
    const unsigned w = (unsigned)atoi(argv[2]), h = (unsigned)atoi(argv[3]);
    const enum VmafPixelFormat fmt = !strcmp(argv[4], "444")   ? VMAF_PIX_FMT_YUV444P
                                     : !strcmp(argv[4], "422") ? VMAF_PIX_FMT_YUV422P
                                                               : VMAF_PIX_FMT_YUV420P;
    const unsigned bpc = (unsigned)atoi(argv[5]);
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR,
                             .n_threads = (unsigned)atoi(argv[6]),
                             .n_subsample = (unsigned)atoi(argv[7])};
    const char *names_path = argv[8], *outdir = argv[9];

    VmafContext *vmaf = NULL;
    VmafModel *model = NULL, *member = NULL;
    VmafModelCollection *coll = NULL;
    VmafModelConfig mcfg = {.name = "vmaf"}, bcfg = {.name = "vmaf_b"};
    if (vmaf_init(&vmaf, cfg) || vmaf_model_load(&model, &mcfg, "vmaf_v0.6.1") ||
        vmaf_model_collection_load(&member, &coll, &bcfg, "vmaf_b_v0.6.3") ||
        vmaf_use_features_from_model(vmaf, model) || vmaf_use_features_from_model_collection(vmaf, coll) ||
        vmaf_use_feature(vmaf, "psnr", NULL) || vmaf_use_feature(vmaf, "float_ssim", NULL)) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    const unsigned frames = score_files(vmaf, ref_path, dist_path, fmt, bpc, w, h, NULL);
    if (!frames) return 1;
    if (print_scores(vmaf, model, member, coll, names_path, frames)) return 1;
    const char *ext[] = {"", "xml", "json", "csv", "sub"};
    for (int f = VMAF_OUTPUT_FORMAT_XML; f <= VMAF_OUTPUT_FORMAT_SUB; f++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/out.%s", outdir, ext[f]);
        if (vmaf_write_output(vmaf, path, (enum VmafOutputFormat)f)) return 1;
    }
    vmaf_model_destroy(model);
    vmaf_model_destroy(member);
    vmaf_model_collection_destroy(coll);
    return vmaf_close(vmaf) ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "errors")) return errors_mode(argv[2]);
    if (argc == 12 && !strcmp(argv[1], "run")) return run_mode(argv + 2);
    fprintf(stderr, "usage: %s errors MODEL.json | run REF DIST W H FMT BPC THREADS SUBSAMPLE NAMES OUTDIR\n",
            argv[0]);
    return 2;
}
