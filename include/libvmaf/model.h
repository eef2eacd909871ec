/*
 * vmafx's declaration of libvmaf 3.2.0's model interface (include/libvmaf/model.h): the same
 * names, enum values, struct layouts and signatures, implemented by vmafx (src/capi) on its
 * own model loader (src/model). Built-in models are embedded in the library. See docs/api.md.
 */
#ifndef __VMAF_MODEL_H__
#define __VMAF_MODEL_H__

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded VMAF model (opaque). */
typedef struct VmafModel VmafModel;

/** Bits of VmafModelConfig::flags. */
enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),      /**< ignore the model's score_clip */
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),  /**< apply its score_transform even if not enabled */
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2), /**< accepted; vmafx applies a transform only when enabled */
};

/** How to load a model: the output name of its score (NULL: "vmaf") and VmafModelFlags. */
typedef struct VmafModelConfig {
    const char *name;
    uint64_t flags;
} VmafModelConfig;

/**
 * Loads built-in model `version` (e.g. "vmaf_v0.6.1", "vmaf_4k_v0.6.1neg"; the embedded copies
 * of libvmaf 3.2.0's model files). Returns 0 and sets `*model`; -EINVAL when an argument is NULL
 * or the version is not built in, or when `version` is a bootstrap collection (load those with
 * vmaf_model_collection_load()). Release with vmaf_model_destroy().
 */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg, const char *version);

/**
 * Loads the model file `path` (libvmaf's JSON model format). Returns 0 and sets `*model`;
 * -EINVAL when an argument is NULL, the file cannot be read or is not a valid model, or it is a
 * bootstrap collection.
 */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg, const char *path);

/**
 * Sets the options in `opts_dict` on every feature of `model` computed by extractor
 * `feature_name` (e.g. "adm" with {"adm_enhn_gain_limit": "1.0"}); the other features are left
 * alone. Call before vmaf_use_features_from_model(). Takes and frees `opts_dict`.
 * Returns 0; -EINVAL when an argument is NULL or an option is not the extractor's or has a bad
 * value.
 */
int vmaf_model_feature_overload(VmafModel *model, const char *feature_name, VmafFeatureDictionary *opts_dict);

/** Releases a model loaded by vmaf_model_load*(); NULL is ignored. */
void vmaf_model_destroy(VmafModel *model);

/** A bootstrap collection of models (opaque), e.g. "vmaf_b_v0.6.3". */
typedef struct VmafModelCollection VmafModelCollection;

/** What a VmafModelCollectionScore holds. */
enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,
};

/** A collection's score: the mean of its members' scores (bagging), their standard deviation
 *  and the 95% confidence interval's bounds, in VMAF units. */
typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score;
        double stddev;
        struct {
            struct { double lo, hi; } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/**
 * Loads built-in bootstrap collection `version` (e.g. "vmaf_b_v0.6.3"): `*model_collection`
 * is the collection and `*model` its first member, scored under cfg->name.
 * Returns 0; -EINVAL when an argument is NULL or `version` is not a built-in collection.
 * Release both with vmaf_model_collection_destroy() and vmaf_model_destroy().
 */
int vmaf_model_collection_load(VmafModel **model, VmafModelCollection **model_collection, VmafModelConfig *cfg,
                               const char *version);

/** As vmaf_model_collection_load(), from the collection file `path`. */
int vmaf_model_collection_load_from_path(VmafModel **model, VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg, const char *path);

/**
 * vmaf_model_feature_overload() on `model` and on every member of `*model_collection`.
 * Takes and frees `opts_dict`. Returns 0 or -EINVAL as vmaf_model_feature_overload().
 */
int vmaf_model_collection_feature_overload(VmafModel *model, VmafModelCollection **model_collection,
                                           const char *feature_name, VmafFeatureDictionary *opts_dict);

/** Releases a collection; NULL is ignored. */
void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_MODEL_H__ */
