// A libsvm model read from the text a VMAF model file embeds, evaluated by libsvm itself.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <libsvm/svm.h>

namespace vmafx {

/// Most classes (nr_class) a libsvm model text may declare. VMAF models are nu_svr regressions
/// with nr_class 2; libsvm's svm_predict allocates nr_class*(nr_class-1)/2 doubles per call for
/// a classification model (and computes that count in int), so absurd counts are refused.
inline constexpr int kMaxSvmClasses = 256;

/// A trained libsvm model (upstream: the "model" string of a VMAF model_dict, read by
/// libvmaf src/svm.cpp svm_parse_model_from_buffer) evaluated with libsvm's svm_predict.
///
/// The text has libsvm's model-file layout: header lines "KEY VALUE..." (svm_type,
/// kernel_type, degree, gamma, coef0, nr_class, total_sv, rho, label, probA, probB, nr_sv),
/// a line "SV", then total_sv lines of nr_class-1 coefficients followed by sparse
/// "INDEX:VALUE" pairs. Numbers are read with strtod (correctly rounded), as upstream's
/// stream extraction does. All memory is owned here: the libsvm svm_model struct points
/// into this object's vectors, so the object can be neither copied nor moved.
class SvmModel {
public:
    /// Parses `text`. Throws Error naming `where` (e.g. "model vmaf_v0.6.1") and the
    /// problem: unknown or repeated header key, unknown svm_type/kernel_type, a malformed
    /// number, missing header entries, nr_class outside [2, kMaxSvmClasses], an array
    /// (rho, probA, probB: nr_class*(nr_class-1)/2 numbers; label, nr_sv: nr_class) with
    /// fewer numbers in the header than nr_class asks for, fewer support-vector lines than
    /// total_sv, and for a classification model (c_svc, nu_svc) missing label/nr_sv or nr_sv
    /// not adding up to total_sv (what libsvm's svm_predict relies on). Every count is checked
    /// against the text before memory is allocated for it: memory is proportional to the
    /// text. The precomputed kernel is refused (its input is not a feature vector).
    SvmModel(std::string_view text, const std::string& where);
    SvmModel(const SvmModel&) = delete;
    SvmModel& operator=(const SvmModel&) = delete;

    /// libsvm's svm_predict on the sparse vector `x`, which ends with an entry of index -1.
    /// For regression models (nu_svr, epsilon_svr) the regression value. Thread-safe.
    double predict(std::span<const svm_node> x) const;

    /// The libsvm view of the model (valid as long as this object lives).
    const svm_model& model() const { return model_; }

private:
    std::vector<svm_node> nodes_;              // all support vectors, each ended by index -1
    std::vector<svm_node*> sv_;                // start of each support vector in nodes_
    std::vector<std::vector<double>> coef_;    // nr_class-1 rows of total_sv coefficients
    std::vector<double*> coef_rows_;           // pointers to the rows of coef_
    std::vector<double> rho_, prob_a_, prob_b_;
    std::vector<int> label_, n_sv_;
    svm_model model_{};
};

}  // namespace vmafx
