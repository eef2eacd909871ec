// VMAF models: the `-m` option, loading model files (single models and bootstrap
// collections), the features a model needs, and its per-frame prediction.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/options.hpp"
#include "base/scores.hpp"
#include "feature/metric.hpp"

namespace vmafx {

/// An extractor option set for a model's features from the `-m` option, written
/// "EXTRACTOR.OPTION=VALUE" (e.g. "vif.vif_enhn_gain_limit=1.0"); upstream: the feature
/// overloads of libvmaf tools/cli_parse.c parse_model_config.
struct FeatureOverload {
    std::string extractor;  ///< extractor name, e.g. "vif"
    std::string option;     ///< option name, e.g. "vif_enhn_gain_limit"
    std::string value;      ///< value as typed (normalized when applied, see normalize_option_value)
};

/// What upstream's `-m`/`--model` option says (libvmaf tools/cli_parse.c parse_model_config).
struct ModelSpec {
    std::string version;  ///< built-in model version ("vmaf_v0.6.1"), or empty when `path` is set
    std::string path;     ///< model file (.json), or empty when `version` is set
    std::string name = "vmaf";      ///< output name of the score (upstream default "vmaf")
    bool disable_clip = false;      ///< ignore the file's score_clip
    bool enable_transform = false;  ///< apply the file's score_transform even when not enabled there
    std::vector<FeatureOverload> overloads;  ///< in the order given

    /// What identifies the model in messages: the version, or the path.
    const std::string& label() const { return version.empty() ? path : version; }
};

/// Parses a `-m` argument: ":"-separated entries "version=NAME" or "path=FILE" (exactly one
/// of them), "name=ALIAS" (letters, digits, _, - and . only: it names outputs), "disable_clip" and "enable_transform" (alone or "=true"/"=false"),
/// and feature overloads "EXTRACTOR.OPTION=VALUE". Throws UsageError for an empty entry, an
/// unknown key without "=VALUE", a key given twice, an empty value of version/path/name,
/// a flag value other than true/false, an overload not of the form EXTRACTOR.OPTION or naming
/// an unknown extractor, an option it does not have or a bad value (checked as Options does),
/// and when neither or both of version and path are given. Whether a version is built in is
/// checked by Model.
ModelSpec parse_model_spec(const std::string& text);

/// One metric instance a model needs: the registered metric and its option values
/// (name, text), ready for metric->parse_options(options).
struct FeatureRequest {
    const MetricDescriptor* metric = nullptr;
    std::vector<std::pair<std::string, std::string>> options;
};

/// A loaded VMAF model: a single libsvm regression model (model_type LIBSVMNUSVR), or a
/// bootstrap collection (BOOTSTRAP_LIBSVMNUSVR / RESIDUEBOOTSTRAP_LIBSVMNUSVR, e.g.
/// "vmaf_b_v0.6.3": members "0".."N" of the file, member 0 scoring under NAME, members
/// 1..N under NAME_0001..NAME_000N, as upstream's read_json_model.c model_collection_parse).
/// Immutable once loaded; copies share the loaded data; const members are thread-safe.
///
/// Each model_dict holds: feature_names (upstream feature names, e.g.
/// "VMAF_integer_feature_adm2_score"), norm_type ("linear_rescale": feature x goes to the
/// SVM as slope_i*x+intercept_i and the prediction y comes back as (y-intercept_0)/slope_0;
/// "none"), slopes/intercepts (entry 0 for the score, entry i for feature i), the libsvm
/// text ("model"), optional score_clip [min, max], score_transform (p0/p1/p2 polynomial,
/// knots piecewise-linear map, out_lte_in/out_gte_in rectification; applied when its
/// "enabled" is true or the spec says enable_transform), feature_opts_dicts (extractor
/// options per feature) and chroma_correction_parameter. Upstream: libvmaf src/model.c,
/// src/read_json_model.c.
class Model {
public:
    /// Loads the built-in model `spec.version` (see builtin_models()) or the file
    /// `spec.path`, then applies the spec's flags and feature overloads (upstream
    /// model.c vmaf_model_feature_overload: an overload sets the option on every feature
    /// of the model whose extractor has that name; others are left alone). Throws UsageError
    /// for an unknown version (the message lists the known ones); Error for a file missing or
    /// unreadable, not JSON, JSON nested more than 64 levels, missing keys or values of the
    /// wrong type (numbers must be finite), bad libsvm text (see SvmModel: every count in it is
    /// checked against the text before anything is allocated), an overload naming no known
    /// extractor. Messages name the version or file; no other exception type comes out.
    explicit Model(const ModelSpec& spec);

    /// The output name of the score (ModelSpec::name).
    const std::string& name() const;
    /// Version or path the model came from, for messages.
    const std::string& label() const;
    /// SHA-256 of the model file's bytes as read (a built-in model: its embedded file, the
    /// same bytes as models/VERSION.json), 64 lowercase hex digits.
    const std::string& sha256() const;
    /// Whether this is a bootstrap collection (predict_collection writes more scores).
    bool is_collection() const;

    /// The extractor instances the model's features come from, in the order of the
    /// model's feature_names (upstream libvmaf.c vmaf_use_features_from_model), with the
    /// model file's feature_opts_dicts and the spec's overloads applied. For a collection,
    /// those of member 0 and then of the other members; repeated instances (same extractor
    /// and feature parameters, upstream's merging rule, see run()) are listed once, the first.
    /// Throws Error when no registered extractor provides a feature, or its options are not
    /// the extractor's.
    std::vector<FeatureRequest> required_features() const;

    /// Names predict() writes, in the order it first writes them: name(), then for a
    /// collection NAME_0001..NAME_000N, NAME_bagging, NAME_stddev, NAME_ci_p95_lo,
    /// NAME_ci_p95_hi.
    std::vector<std::string> output_names() const;

    /// Scores frame `index`: predict_score() then predict_collection().
    void predict(ScoreTable& table, unsigned index) const;

    /// Whether `table` holds a value of every feature the model (and each member of a
    /// collection) reads at frame `index`, so that predict() finds its inputs. False also when
    /// no extractor provides one of the features.
    bool has_inputs(const ScoreTable& table, unsigned index) const;

    /// Writes the score of frame `index` under name() (upstream predict.c
    /// vmaf_predict_score_at_index): reads each feature's value at `index` under
    /// Options(extractor, options).feature_name(feature), normalizes it, evaluates the
    /// SVM (libsvm svm_predict), denormalizes, transforms and clips. Returns the score.
    /// Throws Error when a feature value is missing from `table`, no extractor provides
    /// a feature, or the score is NaN or infinite although every feature value read was
    /// finite (only a model file whose numbers overflow double can do that; upstream would
    /// print "nan"/"inf"). NaN feature values pass through. Upstream's command-line tool writes all models' scores before any
    /// collection's scores (tools/vmaf.c), which fixes the order of names in its output.
    double predict_score(ScoreTable& table, unsigned index) const;

    /// For a bootstrap collection, writes frame `index`'s member scores NAME_0001.. (each
    /// transformed and clipped as its member says), then NAME_bagging (mean of the
    /// untransformed, unclipped member scores), NAME_stddev (their population standard
    /// deviation, times the slope of member 1's transform+clip around the mean, measured
    /// over +-0.01), NAME_ci_p95_lo/hi (2.5th/97.5th percentile, linear interpolation),
    /// the three mean/percentile scores transformed and clipped as member 1 says
    /// (upstream predict.c vmaf_bootstrap_predict_score_at_index). Does nothing for a
    /// single model. Throws Error like predict_score(), also when one of these scores is not
    /// finite although the feature values were. NaN member scores sort last.
    void predict_collection(ScoreTable& table, unsigned index) const;

    /// predict_score() without the write: frame `index`'s score from the feature values in
    /// `features`. Const and safe to call from several threads at once (libsvm's svm_predict
    /// keeps its scratch per call). Throws Error as predict_score().
    double score_at(const ScoreTable& features, unsigned index) const;
    /// predict_collection() without the writes: the values it writes at frame `index`, in the
    /// order of output_names() after name() (NAME_0001.., NAME_bagging, NAME_stddev,
    /// NAME_ci_p95_lo, NAME_ci_p95_hi); empty for a single model. Thread-safe and throwing as
    /// score_at().
    std::vector<double> collection_at(const ScoreTable& features, unsigned index) const;

private:
    struct Impl;  // the loaded model_dicts (model.cpp)
    std::shared_ptr<const Impl> impl_;
};

}  // namespace vmafx
