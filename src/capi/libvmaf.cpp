// libvmaf 3.2.0's public C API (include/libvmaf/*.h) on vmafx's engine: a VmafContext is a
// push-based Session (src/engine/session.hpp), models are vmafx Models, pictures are vmafx
// Pictures handed over without a copy. Every entry point catches every exception and returns
// upstream's negative errno codes (-EINVAL, -ENOMEM); none aborts the host program.
// Semantics follow upstream's src/libvmaf.c, src/model.c, src/dict.c and src/picture.c.

#include <atomic>
#include <cerrno>
#include <chrono>
#include <array>
#include <climits>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "engine/engine.hpp"
#include "engine/pooling.hpp"
#include "engine/session.hpp"
#include "feature/registry.hpp"
#include "model/model.hpp"
#include "output/writers.hpp"

#include "capi/capi.hpp"

using namespace vmafx::capi;

namespace {

/// Sets the output name and flags of `cfg` on `spec`.
void apply_config(vmafx::ModelSpec& spec, const VmafModelConfig* cfg) {
    spec.name = cfg->name ? cfg->name : "vmaf";
    spec.disable_clip = cfg->flags & VMAF_MODEL_FLAG_DISABLE_CLIP;
    spec.enable_transform = cfg->flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM;
}

/// Loads `spec` into `out`; -EINVAL when it is (or is not) a collection against `want_collection`.
int load_model(const vmafx::ModelSpec& spec, std::optional<vmafx::Model>& out, bool want_collection) {
    vmafx::Model m(spec);
    if (m.is_collection() != want_collection) {
        log_error("model", want_collection ? (spec.label() + " is not a bootstrap collection").c_str()
                                           : (spec.label() + " is a bootstrap collection: load it with "
                                                             "vmaf_model_collection_load()").c_str());
        return -EINVAL;
    }
    out.emplace(std::move(m));
    return 0;
}

/// Applies `dict`'s options to the features of extractor `feature` in `spec`, reloading `model`.
void overload(vmafx::ModelSpec& spec, std::optional<vmafx::Model>& model, const char* feature,
              const VmafFeatureDictionary& dict) {
    vmafx::ModelSpec changed = spec;
    for (const auto& [key, value] : dict.entries) changed.overloads.push_back({feature, key, value});
    vmafx::Model reloaded(changed);
    (void)reloaded.required_features();  // checks the options now, not at vmaf_use_features_from_model
    spec = std::move(changed);
    model.emplace(std::move(reloaded));
}

/// The table's name for `name`: itself when the table has it, else the one whose output alias it
/// is (the output files' "integer_adm2" for libvmaf's "VMAF_integer_feature_adm2_score").
std::string stored_name(const vmafx::ScoreTable& table, const std::string& name) {
    if (table.frames(name)) return name;
    for (const std::string& n : table.names())
        if (vmafx::feature_alias(n) == name) return n;
    return name;
}

/// Calls `fn(i)` for each index low..high that pooling counts (the multiples of n_subsample), in
/// order, as upstream's vmaf_score_pooled* predict them first; returns fn's first error, or 0.
template <typename Fn>
int each_counted(const VmafContext* vmaf, unsigned low, unsigned high, Fn&& fn) {
    const unsigned step = vmaf->subsample();
    for (std::uint64_t i = low; i <= high; ++i) {  // 64-bit: high may be the largest unsigned
        if (step > 1 && i % step) continue;
        if (const int err = fn(static_cast<unsigned>(i))) return err;
    }
    return 0;
}

/// Upstream's pooling over index_low..index_high (vmaf_feature_score_pooled).
int pooled(const VmafContext* vmaf, const std::string& name, unsigned method, double* score,
           unsigned low, unsigned high) {
    vmafx::PoolMethod m;
    switch (method) {
    case VMAF_POOL_METHOD_MIN: m = vmafx::PoolMethod::kMin; break;
    case VMAF_POOL_METHOD_MAX: m = vmafx::PoolMethod::kMax; break;
    case VMAF_POOL_METHOD_MEAN: m = vmafx::PoolMethod::kMean; break;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: m = vmafx::PoolMethod::kHarmonicMean; break;
    default: return -EINVAL;
    }
    if (!vmaf->session) return -EINVAL;
    const vmafx::ScoreTable& t = vmaf->session->scores();
    const auto v = vmafx::pool_score_range(t, stored_name(t, name), m, low, high, vmaf->subsample());
    if (!v) return -EINVAL;
    *score = *v;
    return 0;
}

/// vmaf_picture_alloc with the pixel format as read by raw().
int alloc_picture(VmafPicture* pic, unsigned fmt, unsigned bpc, unsigned w, unsigned h) {
    if (!pic) return -EINVAL;
    const auto format = format_of(fmt, bpc, w, h);
    if (!format) return -EINVAL;
    return guarded("vmaf_picture_alloc", [&] {
        const vmafx::VideoFormat& f = *format;
        auto ref = std::make_unique<VmafRef>();
        ref->picture = std::make_shared<vmafx::Picture>(f);
        ref->pix_fmt = fmt;
        std::memset(pic, 0, sizeof(*pic));
        pic->pix_fmt = static_cast<VmafPixelFormat>(fmt);
        pic->bpc = bpc;
        const int planes = fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
        for (int p = 0; p < planes; ++p) {
            vmafx::Plane& plane = ref->picture->planes[p];
            pic->w[p] = static_cast<unsigned>(plane.width());
            pic->h[p] = static_cast<unsigned>(plane.height());
            pic->stride[p] = plane.stride();
            pic->data[p] = plane.data();
        }
        pic->ref = ref.get();
        pic->priv = ref.release();
        return 0;
    });
}

}  // namespace

extern "C" {

int vmaf_feature_dictionary_set(VmafFeatureDictionary** dict, const char* key, const char* val) {
    if (!dict || !key || !val) return -EINVAL;
    return guarded("vmaf_feature_dictionary_set", [&] {
        if (!*dict) *dict = new VmafFeatureDictionary;
        const std::string v = normalized(val);
        for (auto& [k, old] : (*dict)->entries)
            if (k == key) {
                old = v;
                return 0;
            }
        (*dict)->entries.emplace_back(key, v);
        return 0;
    });
}

int vmaf_feature_dictionary_free(VmafFeatureDictionary** dict) {
    if (!dict || !*dict) return -EINVAL;
    delete *dict;
    *dict = nullptr;
    return 0;
}

int vmaf_picture_alloc(VmafPicture* pic, VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h) {
    return alloc_picture(pic, raw(pix_fmt), bpc, w, h);
}

int vmaf_picture_unref(VmafPicture* pic) {
    if (!pic || !pic->ref) return -EINVAL;
    delete pic->ref;
    std::memset(pic, 0, sizeof(*pic));
    return 0;
}

namespace {

/// vmaf_model_load*: a single model from `spec` (its version or path set) and `cfg`.
int load_single(const char* where, VmafModel** model, const VmafModelConfig* cfg, vmafx::ModelSpec spec) {
    return guarded(where, [&] {
        auto m = std::make_unique<VmafModel>();
        m->spec = std::move(spec);
        apply_config(m->spec, cfg);
        if (const int err = load_model(m->spec, m->model, false)) return err;
        *model = m.release();
        return 0;
    });
}

}  // namespace

int vmaf_model_load(VmafModel** model, VmafModelConfig* cfg, const char* version) {
    if (!model || !cfg || !version) return -EINVAL;
    vmafx::ModelSpec spec;
    spec.version = version;
    return load_single("vmaf_model_load", model, cfg, std::move(spec));
}

int vmaf_model_load_from_path(VmafModel** model, VmafModelConfig* cfg, const char* path) {
    if (!model || !cfg || !path) return -EINVAL;
    vmafx::ModelSpec spec;
    spec.path = path;
    return load_single("vmaf_model_load_from_path", model, cfg, std::move(spec));
}

int vmaf_model_feature_overload(VmafModel* model, const char* feature_name, VmafFeatureDictionary* opts_dict) {
    if (!model || !feature_name || !opts_dict) return -EINVAL;
    const int err = guarded("vmaf_model_feature_overload", [&] {
        overload(model->spec, model->model, feature_name, *opts_dict);
        return 0;
    });
    vmaf_feature_dictionary_free(&opts_dict);
    return err;
}

void vmaf_model_destroy(VmafModel* model) { delete model; }

namespace {

int load_collection(VmafModel** model, VmafModelCollection** collection, VmafModelConfig* cfg,
                    vmafx::ModelSpec spec) {
    auto c = std::make_unique<VmafModelCollection>();
    apply_config(spec, cfg);
    if (const int err = load_model(spec, c->model, true)) return err;
    c->spec = spec;
    auto m = std::make_unique<VmafModel>();
    m->spec = spec;
    m->model = c->model;
    *collection = c.release();
    *model = m.release();
    return 0;
}

}  // namespace

int vmaf_model_collection_load(VmafModel** model, VmafModelCollection** model_collection, VmafModelConfig* cfg,
                               const char* version) {
    if (!model || !model_collection || !cfg || !version) return -EINVAL;
    return guarded("vmaf_model_collection_load", [&] {
        vmafx::ModelSpec spec;
        spec.version = version;
        return load_collection(model, model_collection, cfg, spec);
    });
}

int vmaf_model_collection_load_from_path(VmafModel** model, VmafModelCollection** model_collection,
                                         VmafModelConfig* cfg, const char* path) {
    if (!model || !model_collection || !cfg || !path) return -EINVAL;
    return guarded("vmaf_model_collection_load_from_path", [&] {
        vmafx::ModelSpec spec;
        spec.path = path;
        return load_collection(model, model_collection, cfg, spec);
    });
}

int vmaf_model_collection_feature_overload(VmafModel* model, VmafModelCollection** model_collection,
                                           const char* feature_name, VmafFeatureDictionary* opts_dict) {
    if (!model || !model_collection || !*model_collection || !feature_name || !opts_dict) return -EINVAL;
    const int err = guarded("vmaf_model_collection_feature_overload", [&] {
        VmafModelCollection& c = **model_collection;
        overload(c.spec, c.model, feature_name, *opts_dict);
        overload(model->spec, model->model, feature_name, *opts_dict);
        return 0;
    });
    vmaf_feature_dictionary_free(&opts_dict);
    return err;
}

void vmaf_model_collection_destroy(VmafModelCollection* model_collection) { delete model_collection; }

int vmaf_init(VmafContext** vmaf, VmafConfiguration cfg) {
    if (!vmaf) return -EINVAL;
    if (cfg.n_threads > vmafx::kMaxThreads) return -EINVAL;
    return guarded("vmaf_init", [&] {
        g_log_level.store(static_cast<int>(raw(cfg.log_level)));
        auto v = std::make_unique<VmafContext>();
        v->cfg = cfg;
        vmafx::SessionConfig sc;
        sc.threads = cfg.n_threads;
        sc.subsample = v->subsample();
        sc.predict_at_flush = false;  // models are scored when asked for (vmaf_score_at_index*)
        v->session.emplace(sc);
        *vmaf = v.release();
        return 0;
    });
}

int vmaf_use_features_from_model(VmafContext* vmaf, VmafModel* model) {
    if (!vmaf || !model || !model->model) return -EINVAL;
    return guarded("vmaf_use_features_from_model", [&] {
        vmaf->session->add_model(*model->model);
        return 0;
    });
}

int vmaf_use_features_from_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection) {
    if (!vmaf || !model_collection || !model_collection->model) return -EINVAL;
    return guarded("vmaf_use_features_from_model_collection", [&] {
        vmaf->session->add_model(*model_collection->model);
        return 0;
    });
}

int vmaf_use_feature(VmafContext* vmaf, const char* feature_name, VmafFeatureDictionary* opts_dict) {
    if (!vmaf || !feature_name) return -EINVAL;
    // As upstream: an unknown extractor leaves the dictionary to the caller; otherwise it is ours.
    const vmafx::MetricDescriptor* metric = vmafx::find_metric(feature_name);
    if (!metric) {
        log_error("vmaf_use_feature", (std::string("no feature extractor named \"") + feature_name + "\"").c_str());
        return -EINVAL;
    }
    const int err = guarded("vmaf_use_feature", [&] {
        vmaf->session->add_feature(*metric, opts_dict ? opts_dict->entries : vmafx::OptionValues{});
        return 0;
    });
    if (opts_dict) vmaf_feature_dictionary_free(&opts_dict);
    return err;
}

int vmaf_import_feature_score(VmafContext* vmaf, const char* feature_name, double value, unsigned index) {
    if (!vmaf || !feature_name) return -EINVAL;
    return guarded("vmaf_import_feature_score", [&] {
        vmafx::ScoreTable& t = vmaf->session->scores();
        if (t.get(feature_name, index)) return -EINVAL;
        t.set(feature_name, index, value);
        return 0;
    });
}

int vmaf_read_pictures(VmafContext* vmaf, VmafPicture* ref, VmafPicture* dist, unsigned index) {
    if (!vmaf) return -EINVAL;
    if (!ref != !dist) return -EINVAL;
    if (vmaf->session->flushed()) {
        if (ref) {  // taken and released, as every refused pair
            if (ref->ref) vmaf_picture_unref(ref);
            if (dist->ref) vmaf_picture_unref(dist);
        }
        log_error("vmaf_read_pictures", "the context was flushed already");
        return -EINVAL;
    }
    if (!ref) {
        return guarded("vmaf_read_pictures (flush)", [&] {
            CudaScope scope(vmaf->cuda.get());
            vmaf->session->flush();
            vmaf->flushed_at = std::chrono::steady_clock::now();
            return 0;
        });
    }
    if (!ref->ref || !dist->ref) {
        if (ref->ref) vmaf_picture_unref(ref);
        if (dist->ref) vmaf_picture_unref(dist);
        log_error("vmaf_read_pictures", "a picture holds no buffer (allocate it with vmaf_picture_alloc)");
        return -EINVAL;
    }
    // The context takes both references, also when it refuses the pictures.
    const VmafRef& rr = *ref->ref;
    const VmafRef& dr = *dist->ref;
    const bool device = rr.device_owner != nullptr;
    const bool same_kind = device == (dr.device_owner != nullptr);
    const vmafx::VideoFormat rf = rr.device_owner ? rr.device_format : rr.picture->format;
    const vmafx::VideoFormat df = dr.device_owner ? dr.device_format : dr.picture->format;
    std::shared_ptr<vmafx::Picture> r = rr.picture, d = dr.picture;
    const vmafx::DevicePicture r_device = rr.device, d_device = dr.device;
    std::shared_ptr<const void> r_owner = rr.device_owner, d_owner = dr.device_owner;
    const unsigned ref_fmt = rr.pix_fmt, dist_fmt = dr.pix_fmt;
    const bool intact = raw(ref->pix_fmt) == ref_fmt && raw(dist->pix_fmt) == dist_fmt &&
                        ref->w[0] == static_cast<unsigned>(rf.width) && ref->h[0] == static_cast<unsigned>(rf.height) &&
                        dist->w[0] == static_cast<unsigned>(df.width) &&
                        dist->h[0] == static_cast<unsigned>(df.height) &&
                        ref->bpc == static_cast<unsigned>(rf.bit_depth) &&
                        dist->bpc == static_cast<unsigned>(df.bit_depth);
    vmaf_picture_unref(ref);
    vmaf_picture_unref(dist);
    if (!same_kind) {
        log_error("vmaf_read_pictures", "one picture is in device memory and the other is not");
        return -EINVAL;
    }
    if (!intact || ref_fmt != dist_fmt || !(rf == df)) {
        log_error("vmaf_read_pictures", "the two pictures differ in size, pixel format or bit depth");
        return -EINVAL;
    }
    if (vmaf->pix_fmt != VMAF_PIX_FMT_UNKNOWN && ref_fmt != vmaf->pix_fmt) {
        log_error("vmaf_read_pictures", "the pictures' pixel format differs from the first ones'");
        return -EINVAL;
    }
    if (device && !vmaf->cuda) {
        log_error("vmaf_read_pictures", "device pictures need an imported CUDA state (vmaf_cuda_import_state)");
        return -EINVAL;
    }
    return guarded("vmaf_read_pictures", [&] {
        if (ref_fmt == VMAF_PIX_FMT_YUV400P && vmaf->session->planes() == vmafx::PlaneSet::kAll) {
            log_error("vmaf_read_pictures", "YUV400P pictures: a registered feature reads chroma");
            return -EINVAL;
        }
        if (vmaf->session->frames_pushed() == 0) vmaf->first_read = std::chrono::steady_clock::now();
        CudaScope scope(vmaf->cuda.get());
        if (device) {
            vmaf->cuda->wait_for_producer();
            auto owners = std::make_shared<std::array<std::shared_ptr<const void>, 2>>();
            (*owners)[0] = std::move(r_owner);
            (*owners)[1] = std::move(d_owner);
            vmaf->session->push_device(index, rf, r_device, d_device, std::move(owners));
        } else {
            vmaf->session->push(index, std::move(r), std::move(d));
        }
        vmaf->pix_fmt = ref_fmt;
        return 0;
    });
}

int vmaf_feature_score_at_index(VmafContext* vmaf, const char* feature_name, double* score, unsigned index) {
    if (!vmaf || !feature_name || !score) return -EINVAL;
    return guarded("vmaf_feature_score_at_index", [&] {
        const vmafx::ScoreTable& t = vmaf->session->scores();
        const auto v = t.get(stored_name(t, feature_name), index);
        if (!v) return -EINVAL;
        *score = *v;
        return 0;
    });
}

int vmaf_score_at_index(VmafContext* vmaf, VmafModel* model, double* score, unsigned index) {
    if (!vmaf || !model || !score || !model->model) return -EINVAL;
    return guarded("vmaf_score_at_index", [&] {
        vmafx::ScoreTable& t = vmaf->session->scores();
        if (const auto v = t.get(model->spec.name, index)) {
            *score = *v;
            return 0;
        }
        *score = model->model->predict_score(t, index);  // throws when a feature is missing
        return 0;
    });
}

int vmaf_score_at_index_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                         VmafModelCollectionScore* score, unsigned index) {
    if (!vmaf || !model_collection || !score || !model_collection->model) return -EINVAL;
    return guarded("vmaf_score_at_index_model_collection", [&] {
        // As upstream (predict.c): the scores are computed from the features every time and
        // stored under names that hold no value at `index` yet (a name's first value stays):
        // the members NAME_0001.. in order, stopping with -EINVAL at the first member name
        // already holding one (so a second call for a frame fails, as upstream's); then
        // NAME_bagging, NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi, where a refused
        // _bagging is not reported (upstream overwrites that error) and a refused other one is.
        vmafx::ScoreTable& t = vmaf->session->scores();
        const vmafx::Model& m = *model_collection->model;
        const std::vector<double> values = m.collection_at(t, index);  // throws when a feature is missing
        const std::vector<std::string> names = m.output_names();       // name(), members, the 4 statistics
        if (values.size() < 4 || names.size() != values.size() + 1) return -EINVAL;
        const std::size_t members = values.size() - 4;
        for (std::size_t i = 0; i < members; ++i) {
            if (t.get(names[i + 1], index)) {
                log_error("vmaf_score_at_index_model_collection",
                          (names[i + 1] + " already holds a score at this index").c_str());
                return -EINVAL;
            }
            t.set(names[i + 1], index, values[i]);
        }
        int err = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const std::string& n = names[members + 1 + k];
            if (!t.get(n, index))
                t.set(n, index, values[members + k]);
            else if (k > 0)
                err = -EINVAL;
        }
        score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
        score->bootstrap.bagging_score = values[members];
        score->bootstrap.stddev = values[members + 1];
        score->bootstrap.ci.p95.lo = values[members + 2];
        score->bootstrap.ci.p95.hi = values[members + 3];
        return err;
    });
}

int vmaf_feature_score_pooled(VmafContext* vmaf, const char* feature_name, VmafPoolingMethod pool_method,
                              double* score, unsigned index_low, unsigned index_high) {
    if (!vmaf || !feature_name || !score || index_low > index_high) return -EINVAL;
    return guarded("vmaf_feature_score_pooled",
                   [&] { return pooled(vmaf, feature_name, raw(pool_method), score, index_low, index_high); });
}

int vmaf_score_pooled(VmafContext* vmaf, VmafModel* model, VmafPoolingMethod pool_method, double* score,
                      unsigned index_low, unsigned index_high) {
    if (!vmaf || !model || !score || index_low > index_high) return -EINVAL;
    const unsigned method = raw(pool_method);
    if (method <= VMAF_POOL_METHOD_UNKNOWN || method >= VMAF_POOL_METHOD_NB) return -EINVAL;
    return guarded("vmaf_score_pooled", [&] {
        if (const int err = each_counted(vmaf, index_low, index_high, [&](unsigned i) {
                double s;
                return vmaf_score_at_index(vmaf, model, &s, i);
            }))
            return err;
        return pooled(vmaf, model->spec.name, method, score, index_low, index_high);
    });
}

int vmaf_score_pooled_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                       VmafPoolingMethod pool_method, VmafModelCollectionScore* score,
                                       unsigned index_low, unsigned index_high) {
    if (!vmaf || !model_collection || !score || index_low > index_high) return -EINVAL;
    const unsigned method = raw(pool_method);
    if (method <= VMAF_POOL_METHOD_UNKNOWN || method >= VMAF_POOL_METHOD_NB) return -EINVAL;
    return guarded("vmaf_score_pooled_model_collection", [&] {
        if (const int err = each_counted(vmaf, index_low, index_high, [&](unsigned i) {
                VmafModelCollectionScore s;
                return vmaf_score_at_index_model_collection(vmaf, model_collection, &s, i);
            }))
            return err;
        const std::string& n = model_collection->spec.name;
        score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
        int err = pooled(vmaf, n + "_bagging", method, &score->bootstrap.bagging_score, index_low, index_high);
        if (!err) err = pooled(vmaf, n + "_stddev", method, &score->bootstrap.stddev, index_low, index_high);
        if (!err) err = pooled(vmaf, n + "_ci_p95_lo", method, &score->bootstrap.ci.p95.lo, index_low, index_high);
        if (!err) err = pooled(vmaf, n + "_ci_p95_hi", method, &score->bootstrap.ci.p95.hi, index_low, index_high);
        return err;
    });
}

int vmaf_preallocate_pictures(VmafContext* vmaf, VmafPictureConfiguration cfg) {
    if (!vmaf || cfg.pic_cnt == 0) return -EINVAL;
    VmafPicture probe;
    if (const int err = alloc_picture(&probe, raw(cfg.pic_params.pix_fmt), cfg.pic_params.bpc, cfg.pic_params.w,
                                      cfg.pic_params.h))
        return err;
    vmaf_picture_unref(&probe);
    vmaf->prealloc = cfg;
    return 0;
}

int vmaf_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
    if (!vmaf || !pic || !vmaf->prealloc) return -EINVAL;
    const auto& p = vmaf->prealloc->pic_params;
    return alloc_picture(pic, raw(p.pix_fmt), p.bpc, p.w, p.h);
}

int vmaf_close(VmafContext* vmaf) {
    if (!vmaf) return -EINVAL;
    // The session waits for its workers and the GPU's streams (in the state's CUDA context);
    // the state goes last, after its context was left.
    const std::shared_ptr<CudaBinding> cuda = vmaf->cuda;
    return guarded("vmaf_close", [&] {
        CudaScope scope(cuda.get());
        delete vmaf;
        return 0;
    });
}

int vmaf_write_output(VmafContext* vmaf, const char* output_path, VmafOutputFormat fmt) {
    if (!vmaf || !output_path) return -EINVAL;
    vmafx::OutputFormat f;
    switch (raw(fmt)) {
    case VMAF_OUTPUT_FORMAT_XML: f = vmafx::OutputFormat::kXml; break;
    case VMAF_OUTPUT_FORMAT_JSON: f = vmafx::OutputFormat::kJson; break;
    case VMAF_OUTPUT_FORMAT_CSV: f = vmafx::OutputFormat::kCsv; break;
    case VMAF_OUTPUT_FORMAT_SUB: f = vmafx::OutputFormat::kSub; break;
    default: return -EINVAL;
    }
    return guarded("vmaf_write_output", [&] {
        if (vmaf->session->frames_pushed() == 0) return -EINVAL;
        const auto end = vmaf->session->flushed() ? vmaf->flushed_at : std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(end - vmaf->first_read).count();
        const double fps = seconds > 0 ? vmaf->session->frames_pushed() / seconds : 0.0;
        // Upstream fopen()s the path, so "-" is a file of that name here, not standard output
        // (which is the CLI's meaning of "-", OutputTarget's).
        const std::string path = std::strcmp(output_path, "-") == 0 ? "./-" : output_path;
        vmafx::write_output(vmaf->session->result(fps), path, f, vmafx::NumberFormat{});
        return 0;
    });
}

const char* vmaf_version(void) { return "3.2.0-vmafx-" VMAFX_VERSION; }

}  // extern "C"
