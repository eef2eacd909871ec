// fuzz_model: model files (src/model/model.cpp: JSON model_dicts, bootstrap collections,
// score transforms and clips) and the libsvm text inside them (src/model/svm_model.cpp),
// through loading and prediction.
//
// The first byte chooses: bit 0, what the rest of the input is: 0 a whole model file (JSON),
// 1 only the libsvm text, which the harness first hands to SvmModel directly (predicting a
// 3-feature vector) and then puts into a fixed model file of 3 features (vif_scale0, adm2,
// motion2; linear_rescale; clip; polynomial transform); bit 1, enable_transform; bit 2,
// disable_clip; bits 3-4, the feature value every feature gets (0.5, 0, 1, 1000); bit 5 (with
// bit 0), a synthesized header: the next 12 bytes give nr_class and total_sv (32-bit, so any
// count, however absurd, is one mutation away), svm_type, kernel_type and how many numbers
// rho, label, nr_sv and probA get (consistent or not), and the rest is the support-vector
// lines. The model
// file is loaded with vmafx::Model(ModelSpec{path}), then required_features(); when both
// succeed, the value is written for every feature of every required metric and predict()
// runs on frame 0.
//
// Only vmafx::Error may come out. What vmafx promises of a loaded model: predict() writes
// every name of output_names(), and from finite feature values every score it writes is
// finite (a model whose numbers overflow double fails with an Error instead: vmafx never
// prints NaN or inf where upstream would). SvmModel::predict alone promises no finiteness.
#include <cmath>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "feature/metric.hpp"
#include "fuzz_support.hpp"
#include "model/model.hpp"
#include "model/svm_model.hpp"

using namespace vmafx;

namespace {

void load_and_predict(const std::string& path, std::uint8_t flags) {
    ModelSpec spec;
    spec.path = path;
    spec.name = "m";
    spec.enable_transform = (flags & 2) != 0;
    spec.disable_clip = (flags & 4) != 0;
    constexpr double kValues[] = {0.5, 0.0, 1.0, 1000.0};
    const double value = kValues[(flags >> 3) & 3];

    const Model model(spec);
    ScoreTable table;
    for (const FeatureRequest& r : model.required_features()) {
        const Options options = r.metric->parse_options(r.options);
        for (const FeatureName& f : r.metric->features) table.set(options.feature_name(f.name), 0, value);
    }
    model.predict(table, 0);
    for (const std::string& name : model.output_names()) {
        const std::optional<double> v = table.get(name, 0);
        fuzz::check(v.has_value());
        fuzz::check(std::isfinite(*v));
    }
}

// The libsvm text of a synthesized header (flag bit 5): see the comment at the top.
std::string synthesized_svm_text(std::string_view bytes) {
    if (bytes.size() < 12) return std::string(bytes);
    const auto u8 = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    const auto i32 = [&](std::size_t i) {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(u8(i)) | static_cast<std::uint32_t>(u8(i + 1)) << 8 |
                                         static_cast<std::uint32_t>(u8(i + 2)) << 16 |
                                         static_cast<std::uint32_t>(u8(i + 3)) << 24);
    };
    constexpr const char* kSvmTypes[] = {"c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"};
    constexpr const char* kKernels[] = {"linear", "polynomial", "rbf", "sigmoid"};
    std::string text = std::string("svm_type ") + kSvmTypes[u8(8) % 5] + "\nkernel_type " + kKernels[u8(9) % 4] +
                       "\ndegree 2\ngamma 0.5\ncoef0 0.25\nnr_class " + std::to_string(i32(0)) + "\ntotal_sv " +
                       std::to_string(i32(4)) + "\n";
    // Array lengths: 0 leaves the array out; small counts, numbered 1, 2, ...
    const char* arrays[] = {"rho", "label", "nr_sv", "probA"};
    for (int a = 0; a < 4; ++a) {
        const unsigned n = a < 2 ? (u8(10) >> (4 * a)) & 15 : (u8(11) >> (4 * (a - 2))) & 15;
        if (n == 0) continue;
        text += arrays[a];
        for (unsigned k = 1; k <= n; ++k) text += " " + std::to_string(k);
        text += "\n";
    }
    text += "SV\n";
    text.append(bytes.substr(12));
    return text;
}

std::string model_file_around(std::string_view svm_text) {
    nlohmann::ordered_json md;
    md["model_type"] = "LIBSVMNUSVR";
    md["norm_type"] = "linear_rescale";
    md["feature_names"] = {"VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_adm2_score",
                           "VMAF_integer_feature_motion2_score"};
    md["slopes"] = {0.012, 2.8, 1.5, 0.05};
    md["intercepts"] = {-0.3, -1.1, -1.0, 0.0};
    md["score_clip"] = {0.0, 100.0};
    md["score_transform"] = {{"enabled", false}, {"p0", 1.7}, {"p1", 1.72}, {"p2", -0.007}, {"out_gte_in", "true"}};
    // dump() with replacement of invalid UTF-8: the text is arbitrary bytes.
    md["model"] = std::string(svm_text);
    return nlohmann::ordered_json{{"model_dict", md}}.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::uint8_t flags = data[0];
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    static fuzz::MemFile file("fuzz_model");

    if (flags & 1) {
        const std::string text = flags & 32 ? synthesized_svm_text(rest) : std::string(rest);
        try {
            const SvmModel svm(text, "fuzz");
            const svm_node x[] = {{1, 0.25}, {2, 0.5}, {3, 0.75}, {-1, 0.0}};
            (void)svm.predict(x);
        } catch (const Error&) {
        }
        const std::string json = model_file_around(text);
        file.set(reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
    } else {
        file.set(data + 1, size - 1);
    }
    try {
        load_and_predict(file.path(), flags);
    } catch (const Error&) {
    }
    return 0;
}
