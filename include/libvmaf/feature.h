/*
 * vmafx's declaration of libvmaf 3.2.0's feature option dictionary (include/libvmaf/feature.h):
 * same names and signatures, implemented by vmafx (src/capi). See docs/api.md.
 */
#ifndef __VMAF_FEATURE_H__
#define __VMAF_FEATURE_H__

#ifdef __cplusplus
extern "C" {
#endif

/** Options of one feature extractor as text key/value pairs (opaque; created by the first set). */
typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/**
 * Sets option `key` to `val` in `*dict`, creating the dictionary when `*dict` is NULL.
 * A key set again gets the new value. Values are kept as text; numbers are normalized (as
 * upstream: the %g of their float value) and every value is checked against the extractor's
 * options when the dictionary is used (vmaf_use_feature(), vmaf_model_feature_overload()).
 * Returns 0, or -EINVAL when `dict`, `key` or `val` is NULL, -ENOMEM when out of memory.
 */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key, const char *val);

/**
 * Frees `*dict` and sets it to NULL. Returns 0, or -EINVAL when `dict` or `*dict` is NULL.
 * vmaf_use_feature() and vmaf_model_feature_overload() take ownership of the dictionary
 * they are given (they free it), as upstream's do.
 */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* __VMAF_FEATURE_H__ */
