// A libsvm model read from the text a VMAF model file embeds. Regression models with the RBF
// kernel (every built-in VMAF model) are evaluated by vmafx's own code, libsvm 3.24's arithmetic
// with glibc 2.36's exp (base/libm.hpp); other models by libsvm's svm_predict.
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
/// libvmaf src/svm.cpp svm_parse_model_from_buffer), evaluated as libsvm's svm_predict does.
///
/// For epsilon_svr, nu_svr and one_class models with the RBF kernel, prediction is vmafx's own:
/// libsvm 3.24's svm_predict_values and k_function, operation for operation (the sum over the
/// support vectors in their order of sv_coef * exp(-gamma * |x - sv|^2), the squared distance
/// summed over the merged sparse indices, then minus rho), with libm::exp for exp. libsvm
/// calls the host's exp, so its result depends on the C library; the golden values are glibc
/// 2.36's, which libm::exp reproduces on every host. Other models go to libsvm's svm_predict.
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

    /// svm_predict's value on the sparse vector `x` (indices ascending, ended by an entry of
    /// index -1): for regression models (nu_svr, epsilon_svr) the regression value, for
    /// one_class +1 or -1, for classification models the label. Computed by vmafx where
    /// own_prediction(), else by libsvm. Throws Error if `x` is not ended by index -1.
    /// Thread-safe.
    double predict(std::span<const svm_node> x) const;

    /// libsvm's own svm_predict on `x` (as predict()): the oracle of vmafx's prediction in
    /// tests. Its exp is the host's, so its bits are the golden ones only on glibc 2.36.
    double libsvm_predict(std::span<const svm_node> x) const;

    /// Whether predict() is vmafx's own code (epsilon_svr, nu_svr or one_class with the RBF
    /// kernel) rather than libsvm's.
    bool own_prediction() const;

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
