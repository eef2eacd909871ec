// SvmModel's own prediction (libsvm 3.24's arithmetic with base/libm's exp) against libsvm's
// svm_predict, on every SVM of every built-in model.
//
// libsvm calls the host's exp, so it is the oracle only where the host's libm is the golden
// machine's (glibc 2.36 with FMA: libm::host_libm_is_golden()); there every prediction must be
// libsvm's to the bit. Everywhere, the own predictions are hashed and compared with the digest
// computed on such a host (2026-12-03, Debian 12, libsvm3 3.24+ds-6), so the test proves the
// values on any machine.
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/libm.hpp"
#include "base/sha256.hpp"
#include "model/builtin_models.hpp"
#include "model/svm_model.hpp"

namespace vmafx {
namespace {

/// Every libsvm model text in a model file's JSON (a model_dict's "model"; the bootstrap
/// models' list of model_dicts holds several).
void collect_svm_texts(const nlohmann::json& j, std::vector<std::string>& out) {
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            if (key == "model" && value.is_string() && value.get_ref<const std::string&>().find("svm_type") != std::string::npos)
                out.push_back(value.get<std::string>());
            else collect_svm_texts(value, out);
        }
    } else if (j.is_array()) {
        for (const auto& value : j) collect_svm_texts(value, out);
    }
}

/// A support vector of `model` as a dense list of values for indices 1..n (0 where absent).
std::vector<double> dense(const svm_node* sv, int n) {
    std::vector<double> out(n, 0.0);
    for (; sv->index != -1; ++sv) out[sv->index - 1] = sv->value;
    return out;
}

/// The sparse vector of `values` (indices 1..n), leaving out the indices whose bit is set in
/// `drop`, ended by index -1.
std::vector<svm_node> sparse(const std::vector<double>& values, uint64_t drop = 0) {
    std::vector<svm_node> out;
    for (size_t i = 0; i < values.size(); ++i)
        if (((drop >> i) & 1) == 0) out.push_back(svm_node{static_cast<int>(i + 1), values[i]});
    out.push_back(svm_node{-1, 0.0});
    return out;
}

TEST(SvmModelOwnPrediction, EveryBuiltinModelAsLibsvm) {
    // Per SVM: each support vector (the model's own training features: real feature vectors),
    // the midpoint of each consecutive pair, each with one feature left out (libsvm's sparse
    // merge), and 1000 random vectors in [-1.5, 1.5]^n (n the features; a quarter of them
    // sparse), from a fixed seed.
    std::mt19937_64 random(25);  // the same outputs in every standard library
    const auto unit = [&] { return static_cast<double>(random() >> 11) * 0x1p-53; };
    const bool host = libm::host_libm_is_golden();
    std::string own_bits;
    size_t svms = 0, predictions = 0, mismatches = 0;
    for (const BuiltinModel& builtin : builtin_models()) {
        std::vector<std::string> texts;
        collect_svm_texts(nlohmann::json::parse(builtin.text()), texts);
        ASSERT_FALSE(texts.empty()) << builtin.version;
        for (const std::string& text : texts) {
            const SvmModel svm(text, builtin.version);
            ASSERT_TRUE(svm.own_prediction()) << builtin.version << ": every built-in model is an RBF regression";
            const svm_model& m = svm.model();
            int n = 0;
            for (int i = 0; i < m.l; ++i)
                for (const svm_node* p = m.SV[i]; p->index != -1; ++p) n = std::max(n, p->index);
            ASSERT_GT(n, 0);
            std::vector<std::vector<svm_node>> vectors;
            for (int i = 0; i < m.l; ++i) {
                const std::vector<double> sv = dense(m.SV[i], n);
                vectors.push_back(sparse(sv));
                vectors.push_back(sparse(sv, uint64_t{1} << (i % n)));
                if (i + 1 < m.l) {
                    std::vector<double> mid = dense(m.SV[i + 1], n);
                    for (int k = 0; k < n; ++k) mid[k] = (mid[k] + sv[k]) / 2;
                    vectors.push_back(sparse(mid));
                }
            }
            for (int r = 0; r < 1000; ++r) {
                std::vector<double> v(n);
                for (double& value : v) value = -1.5 + 3.0 * unit();
                vectors.push_back(sparse(v, r % 4 == 0 ? random() % (uint64_t{1} << n) : 0));
            }
            for (const auto& x : vectors) {
                const double own = svm.predict(x);
                const uint64_t b = std::bit_cast<uint64_t>(own);
                own_bits.append(reinterpret_cast<const char*>(&b), sizeof b);
                if (host && std::bit_cast<uint64_t>(svm.libsvm_predict(x)) != b) ++mismatches;
                ++predictions;
            }
            ++svms;
        }
    }
    EXPECT_EQ(svms, 57u);  // 17 model files: 15 of one SVM, 2 bootstrap models of 21
    EXPECT_EQ(mismatches, 0u) << "of " << predictions << " predictions differ from libsvm's on glibc 2.36";
    EXPECT_EQ(sha256_hex(own_bits), "dbd6ab531cc59b7a492e5e85fdfc29372a96b0807a3bcd3d78dd4d686c3ccebd") << predictions << " predictions";
}

TEST(SvmModelOwnPrediction, OtherKernelsGoToLibsvm) {
    // A linear-kernel SVR is libsvm's: 0.5 * (1*2 + 3*4) - 1 = 6.
    const SvmModel linear("svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n0.5 1:1 2:3\n",
                          "t");
    EXPECT_FALSE(linear.own_prediction());
    const std::vector<svm_node> x{{1, 2.0}, {2, 4.0}, {-1, 0.0}};
    EXPECT_EQ(linear.predict(x), 6.0);
    // One support vector at distance 0 under RBF: coef * exp(0) - rho.
    const SvmModel rbf("svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 1\nrho 0.25\nSV\n2 1:1 3:2\n",
                       "t");
    EXPECT_TRUE(rbf.own_prediction());
    const std::vector<svm_node> same{{1, 1.0}, {3, 2.0}, {-1, 0.0}};
    EXPECT_EQ(rbf.predict(same), 1.75);
    // |x - sv|^2 = 1 + 4 + 4 (index 2 only in x, 3 only in sv): 2 exp(-4.5) - 0.25.
    const std::vector<svm_node> other{{1, 2.0}, {2, 2.0}, {-1, 0.0}};
    EXPECT_EQ(rbf.predict(other), 2 * libm::exp(-4.5) - 0.25);
}

}  // namespace
}  // namespace vmafx
