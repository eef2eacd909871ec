/*
 * vmafx's declaration of libvmaf 3.2.0's public C interface (include/libvmaf/libvmaf.h): the
 * same names, enum values, struct layouts and signatures, so that programs built for libvmaf
 * (FFmpeg's libvmaf filter, VapourSynth plugins, ...) compile and link against vmafx's
 * libvmaf.so.3 unchanged. Implemented in src/capi on vmafx's engine; docs/api.md lists what
 * differs. Every call returns 0 or a negative errno value (-EINVAL for bad arguments, -ENOMEM
 * when out of memory) and never aborts the program.
 */
#ifndef __VMAF_H__
#define __VMAF_H__

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How much the library prints on standard error. */
enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR,
    VMAF_LOG_LEVEL_WARNING,
    VMAF_LOG_LEVEL_INFO,
    VMAF_LOG_LEVEL_DEBUG,
};

/** Layouts of vmaf_write_output(), those of the `vmaf` tool's --xml/--json/--csv/--sub. */
enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML,
    VMAF_OUTPUT_FORMAT_JSON,
    VMAF_OUTPUT_FORMAT_CSV,
    VMAF_OUTPUT_FORMAT_SUB,
};

/** Temporal pooling of per-frame scores. */
enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN,
    VMAF_POOL_METHOD_MAX,
    VMAF_POOL_METHOD_MEAN,          /**< sum / n, summed in frame order */
    VMAF_POOL_METHOD_HARMONIC_MEAN, /**< n / sum(1 / (s + 1)) - 1 */
    VMAF_POOL_METHOD_NB
};

/**
 * Settings of a context: log level; worker threads (0: extraction runs on the calling thread
 * in vmaf_read_pictures(); N: frames are extracted on N threads, at most the hardware threads
 * but one, while the caller reads more; the values do not depend on it);
 * n_subsample (0 or 1: every frame; N: features without history and models score frames
 * whose index is a multiple of N); cpumask (SIMD instruction sets to leave out; vmafx's values
 * are the same whatever SIMD it uses, so it is accepted and has no effect); gpumask (nonzero:
 * no CUDA even where a CUDA state was imported).
 */
typedef struct VmafConfiguration {
    enum VmafLogLevel log_level;
    unsigned n_threads;
    unsigned n_subsample;
    uint64_t cpumask;
    uint64_t gpumask;
} VmafConfiguration;

/** A scoring session (opaque): features registered, pictures read, scores kept. */
typedef struct VmafContext VmafContext;

/**
 * Creates a context. Returns 0 and sets `*vmaf`; -EINVAL when `vmaf` is NULL or n_threads is
 * above 1024; -ENOMEM when out of memory. Release with vmaf_close().
 */
int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/**
 * Registers the feature extractors `model` needs (with the model's options and overloads) and
 * remembers the model, so that its per-frame scores are predicted once the pictures are
 * flushed and vmaf_write_output() writes them. An extractor already registered with the same
 * feature parameters is not added again. Call before the first vmaf_read_pictures().
 * Returns 0; -EINVAL when an argument is NULL, pictures were read already, or a feature has
 * no extractor.
 */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/** vmaf_use_features_from_model() for a bootstrap collection (every member's features). */
int vmaf_use_features_from_model_collection(VmafContext *vmaf, VmafModelCollection *model_collection);

/**
 * Registers extractor `feature_name` (e.g. "psnr", "float_ssim", "cambi") with the options in
 * `opts_dict` (NULL: defaults). Takes and frees `opts_dict`. Returns 0; -EINVAL when an
 * argument is NULL, the extractor is unknown, an option is not its own or has a bad value,
 * or pictures were read already.
 */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name, VmafFeatureDictionary *opts_dict);

/**
 * Stores `value` as feature `feature_name`'s score at frame `index` (a score computed outside
 * the library). Returns 0; -EINVAL when an argument is NULL or that frame already has a value.
 */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name, double value, unsigned index);

/**
 * Gives the next reference/distorted picture pair, frame `index`, to the context, which takes
 * both references (the caller must not unref them; on error they are released too). Pictures
 * are read in order: temporal features (motion) use the previously read pair whatever the
 * indices. Passing NULL for both flushes: every frame is extracted, temporal features
 * finish, models registered with vmaf_use_features_from_model*() predict every frame; no more
 * pictures may be read after that.
 * Returns 0; -EINVAL when `vmaf` is NULL, only one picture is NULL, the context was flushed,
 * the two pictures differ in size, format or bit depth, or differ from the first pair read,
 * a picture holds no buffer, `index` was read already, the format is not one the registered
 * features can score, or an extractor fails on a frame (with n_threads, a failure is reported by
 * the call after the worker finished, at the latest by the flush).
 */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index);

/**
 * The score of `model` at frame `index` (predicted from the features if not yet known).
 * Returns 0 and sets `*score`; -EINVAL when an argument is NULL or a feature the model needs
 * has no value at `index` (not read, not extracted yet, or skipped by subsampling).
 */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score, unsigned index);

/** The bootstrap scores of `model_collection` at frame `index`; errors as vmaf_score_at_index(). */
int vmaf_score_at_index_model_collection(VmafContext *vmaf, VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score, unsigned index);

/**
 * Feature `feature_name`'s score at frame `index`, by libvmaf's name (e.g.
 * "VMAF_integer_feature_adm2_score", "psnr_y", "vmaf") or by the name the output files give it
 * ("integer_adm2"). Returns 0 and sets `*score`; -EINVAL when an argument is NULL or
 * there is no such value.
 */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name, double *score, unsigned index);

/**
 * `model`'s scores over frames index_low..index_high (inclusive; under n_subsample only the
 * multiples of it), pooled by `pool_method`. Returns 0 and sets `*score`; -EINVAL when an
 * argument is NULL, index_low > index_high, pool_method is UNKNOWN or out of range, or a frame
 * in the range has no score.
 */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model, enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

/** As vmaf_score_pooled(), for each of a collection's bootstrap scores. */
int vmaf_score_pooled_model_collection(VmafContext *vmaf, VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method, VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

/** As vmaf_score_pooled(), for a feature by output name. */
int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name, enum VmafPoolingMethod pool_method,
                              double *score, unsigned index_low, unsigned index_high);

/** Pictures to preallocate: their geometry and how many. */
typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt;
} VmafPictureConfiguration;

/**
 * Lets vmaf_fetch_preallocated_picture() hand out pictures of `cfg.pic_params`. vmafx allocates
 * them as they are fetched (and reuses the buffers of released ones). Returns 0; -EINVAL when
 * `vmaf` is NULL, pic_cnt is 0 or the parameters are not a valid picture.
 */
int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg);

/**
 * A picture of the preallocated geometry in `*pic` (as vmaf_picture_alloc()). Returns 0;
 * -EINVAL when an argument is NULL or vmaf_preallocate_pictures() was not called.
 */
int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/** Releases the context and everything it holds; NULL gives -EINVAL. */
int vmaf_close(VmafContext *vmaf);

/**
 * Writes every per-frame score (every n_subsample-th frame), the pooled min/max/mean/
 * harmonic_mean of each and the aggregate metrics to `output_path` in `fmt`, in the layout of
 * libvmaf 3.2.0 (numbers as "%.6f"). Flush first (vmaf_read_pictures(ctx, NULL, NULL, 0)).
 * Returns 0; -EINVAL when an argument is NULL, `fmt` is NONE or unknown, nothing was read, or
 * the file cannot be written.
 */
int vmaf_write_output(VmafContext *vmaf, const char *output_path, enum VmafOutputFormat fmt);

/** The library's version, "3.2.0-vmafx-X.Y.Z" style: libvmaf's API version, then vmafx's. */
const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_H__ */
