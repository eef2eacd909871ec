// Tests of the model layer: the -m option, loading models, transform/clip, and bit-exact
// prediction from the golden per-frame feature values.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/extraction.hpp"
#include "model/builtin_models.hpp"
#include "model/model.hpp"
#include "model/svm_model.hpp"
#include "feature/registry.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

// Runs `f`, expecting an Error whose message contains `part`.
void expect_error(const std::function<void()>& f, const std::string& part) { test::expect_error(f, {part}); }

// A scratch directory for model files, removed at the end of the test.
using ModelFiles = test::TempDirTest;

// The JSON of a model with one feature (motion2), norm_type none and an SVM without
// support vectors, which predicts -rho: so the raw score is `raw`, whatever the feature.
nlohmann::json constant_model(double raw) {
    nlohmann::json md;
    md["model_type"] = "LIBSVMNUSVR";
    md["norm_type"] = "none";
    md["feature_names"] = {"VMAF_integer_feature_motion2_score"};
    md["model"] = "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 0\nrho " +
                  std::to_string(-raw) + "\nSV\n";
    return nlohmann::json{{"model_dict", md}};
}

// The ScoreTable name of feature `feature` as the extractor of `request` writes it.
std::string table_key(const FeatureRequest& request, const std::string& feature) {
    return request.metric->parse_options(request.options).feature_name(feature);
}

bool integer_features_registered() {
    for (const char* f : {"VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score",
                          "VMAF_integer_feature_vif_scale0_score"})
        if (!find_metric_by_feature(f)) return false;
    return true;
}

#define REQUIRE_INTEGER_FEATURES()                                                             \
    do {                                                                                       \
        if (!integer_features_registered())                                                    \
            GTEST_SKIP() << "skipped: adm/motion/vif extractors do not provide their features"; \
    } while (0)

// ---------------------------------------------------------------------------------------

/// Each (SVM text, part of the message) pair: SvmModel refuses the text with an Error whose
/// message holds the part.
void expect_svm_errors(std::span<const std::pair<std::string, std::string>> bad) {
    for (const auto& entry : bad) {
        SCOPED_TRACE(entry.first);
        expect_error([&] { (void)SvmModel(entry.first, "t"); }, entry.second);
    }
}

TEST(ModelSpec, VersionWithDefaults) {
    const ModelSpec s = parse_model_spec("version=vmaf_v0.6.1");
    EXPECT_EQ(s.version, "vmaf_v0.6.1");
    EXPECT_EQ(s.path, "");
    EXPECT_EQ(s.name, "vmaf");
    EXPECT_FALSE(s.disable_clip);
    EXPECT_FALSE(s.enable_transform);
    EXPECT_TRUE(s.overloads.empty());
    EXPECT_EQ(s.label(), "vmaf_v0.6.1");
}

TEST(ModelSpec, EveryKey) {
    const ModelSpec s = parse_model_spec(
        "path=/x/m.json:name=neg:disable_clip:enable_transform=true:vif.vif_enhn_gain_limit=1.0:"
        "adm.adm_enhn_gain_limit=1");
    EXPECT_EQ(s.version, "");
    EXPECT_EQ(s.path, "/x/m.json");
    EXPECT_EQ(s.label(), "/x/m.json");
    EXPECT_EQ(s.name, "neg");
    EXPECT_TRUE(s.disable_clip);
    EXPECT_TRUE(s.enable_transform);
    ASSERT_EQ(s.overloads.size(), 2u);
    EXPECT_EQ(s.overloads[0].extractor, "vif");
    EXPECT_EQ(s.overloads[0].option, "vif_enhn_gain_limit");
    EXPECT_EQ(s.overloads[0].value, "1.0");
    EXPECT_EQ(s.overloads[1].extractor, "adm");
    EXPECT_EQ(s.overloads[1].option, "adm_enhn_gain_limit");
    EXPECT_EQ(s.overloads[1].value, "1");
}

TEST(ModelSpec, FlagValues) {
    EXPECT_TRUE(parse_model_spec("version=v:disable_clip=true").disable_clip);
    EXPECT_FALSE(parse_model_spec("version=v:disable_clip=false").disable_clip);
    EXPECT_TRUE(parse_model_spec("version=v:enable_transform").enable_transform);
    EXPECT_FALSE(parse_model_spec("version=v:enable_transform=false").enable_transform);
}

TEST(ModelSpec, Errors) {
    expect_error([] { parse_model_spec(""); }, "empty entry");
    expect_error([] { parse_model_spec("name=x"); }, "needs version=NAME or path=FILE");
    expect_error([] { parse_model_spec("version=a:path=b"); }, "not both");
    expect_error([] { parse_model_spec("version=a:version=b"); }, "given twice");
    expect_error([] { parse_model_spec("version=a::name=b"); }, "empty entry");
    expect_error([] { parse_model_spec("version=a:"); }, "empty entry");
    expect_error([] { parse_model_spec("version="); }, "needs a value");
    expect_error([] { parse_model_spec("version=a:name="); }, "needs a value");
    expect_error([] { parse_model_spec("version=a:bogus"); }, "unknown entry \"bogus\"");
    expect_error([] { parse_model_spec("version=a:bogus=1"); }, "EXTRACTOR.OPTION=VALUE");
    expect_error([] { parse_model_spec("version=a:vif.=1"); }, "EXTRACTOR.OPTION=VALUE");
    expect_error([] { parse_model_spec("version=a:.x=1"); }, "EXTRACTOR.OPTION=VALUE");
    expect_error([] { parse_model_spec("version=a:a.b.c=1"); }, "EXTRACTOR.OPTION=VALUE");
    expect_error([] { parse_model_spec("version=a:disable_clip=yes"); }, "true or false");
    // Names that would break the output files (JSON keys, XML attribute names, CSV columns).
    for (const char* bad : {"version=a:name=a\"b", "version=a:name=a<b", "version=a:name=a,b", "version=a:name=a b",
                            "version=a:name=a&b", "version=a:name=a\\b"})
        expect_error([&] { parse_model_spec(bad); }, "only letters, digits");
    EXPECT_EQ(parse_model_spec("version=a:name=vmaf-4k_v0.6.1").name, "vmaf-4k_v0.6.1");
    // Feature overloads are checked against the extractors' option tables.
    expect_error([] { parse_model_spec("version=a:foo.x=1"); }, "no feature extractor \"foo\"");
    expect_error([] { parse_model_spec("version=a:vif.nosuch=1"); }, "has no option \"nosuch\"");
    expect_error([] { parse_model_spec("version=a:vif.vif_enhn_gain_limit=0.5"); }, "out of range");
    expect_error([] { parse_model_spec("version=a:motion.motion_force_zero=maybe"); }, "true or false");
}

TEST(ModelSpec, ErrorsAreUsageErrors) {
    for (const char* text : {"", "name=x", "version=a:path=b", "version=a:bogus", "version=a:disable_clip=yes",
                             "version=a:foo.x=1", "version=a:vif.nosuch=1", "version=a:vif.vif_enhn_gain_limit=0.5"})
        EXPECT_THROW(parse_model_spec(text), UsageError) << text;
}

TEST(ModelSpec, NormalizeOptionValue) {
    EXPECT_EQ(normalize_option_value("1.0"), "1");
    EXPECT_EQ(normalize_option_value("100"), "100");
    EXPECT_EQ(normalize_option_value("0.123456789"), "0.123457");
    EXPECT_EQ(normalize_option_value("1e2"), "100");
    EXPECT_EQ(normalize_option_value(" 2.5 "), "2.5");
    EXPECT_EQ(normalize_option_value("true"), "true");
    EXPECT_EQ(normalize_option_value("bilinear"), "bilinear");
    EXPECT_EQ(normalize_option_value("1.5x"), "1.5x");
}

// An option value is a number only when the whole text is (a model file's string value may
// hold a NUL, where strtod stops).
TEST(ModelSpec, OptionValueWithEmbeddedNul) {
    const MetricDescriptor* vif = find_metric("vif");
    ASSERT_NE(vif, nullptr);
    using Opts = std::vector<std::pair<std::string, std::string>>;
    EXPECT_NO_THROW(vif->parse_options(Opts{{"vif_enhn_gain_limit", "1.5"}}));
    expect_error([&] { vif->parse_options(Opts{{"vif_enhn_gain_limit", std::string("1.5\0x", 5)}}); },
                 "option vif_enhn_gain_limit=1.5");
}

// ---------------------------------------------------------------------------------------

TEST(ModelLoad, EveryBuiltinModel) {
    ASSERT_FALSE(builtin_models().empty());
    for (const BuiltinModel& b : builtin_models()) {
        SCOPED_TRACE(b.version);
        const Model m(parse_model_spec(std::string("version=") + b.version + ":name=x"));
        EXPECT_EQ(m.name(), "x");
        EXPECT_EQ(m.label(), b.version);
        const bool bootstrap = std::string(b.version).find("_b_") != std::string::npos;
        EXPECT_EQ(m.is_collection(), bootstrap);
        const std::vector<std::string> names = m.output_names();
        ASSERT_FALSE(names.empty());
        EXPECT_EQ(names[0], "x");
        if (bootstrap) {
            ASSERT_EQ(names.size(), 1u + 20u + 4u);
            EXPECT_EQ(names[1], "x_0001");
            EXPECT_EQ(names[20], "x_0020");
            EXPECT_EQ(names[21], "x_bagging");
            EXPECT_EQ(names[22], "x_stddev");
            EXPECT_EQ(names[23], "x_ci_p95_lo");
            EXPECT_EQ(names[24], "x_ci_p95_hi");
        } else {
            EXPECT_EQ(names.size(), 1u);
        }
    }
}

TEST(ModelLoad, CollectionFromPath) {
    const Model m(parse_model_spec(std::string("path=") + VMAFX_SOURCE_DIR + "/models/vmaf_b_v0.6.3.json:name=b"));
    EXPECT_TRUE(m.is_collection());
    EXPECT_EQ(m.output_names().size(), 25u);
}

TEST(ModelLoad, UnknownVersionListsKnown) {
    expect_error([] { (void)Model(parse_model_spec("version=vmaf_v9")); }, "no built-in model \"vmaf_v9\"");
    expect_error([] { (void)Model(parse_model_spec("version=vmaf_v9")); }, "vmaf_v0.6.1neg");
}

TEST(ModelLoad, UnknownVersionIsAUsageErrorAMissingFileIsNot) {
    EXPECT_THROW((void)Model(parse_model_spec("version=vmaf_v9")), UsageError);
    try {
        (void)Model(parse_model_spec("path=/nonexistent/vmafx/m.json"));
        ADD_FAILURE() << "no Error thrown";
    } catch (const UsageError& e) {
        ADD_FAILURE() << "a missing model file is no usage error: " << e.what();
    } catch (const Error&) {
    }
}

TEST_F(ModelFiles, MissingFile) {
    const std::string path = (dir_ / "absent.json").string();
    expect_error([&] { (void)Model(parse_model_spec("path=" + path)); }, "\"" + path + "\" not found");
}

// A model file given as a stream (a FIFO, a shell's <(...)) is read to its end; a directory
// and a file far larger than any model are refused at once, naming the file.
TEST_F(ModelFiles, StreamDirectoryAndOversizeFile) {
    const std::string fifo = (dir_ / "model.fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string text = constant_model(42.0).dump();
    std::thread writer([&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) return;
        (void)test::write_to_pipe(fd, text);
        ::close(fd);
    });
    const Model m(parse_model_spec("path=" + fifo));
    writer.join();
    ScoreTable t;
    t.set("VMAF_integer_feature_motion2_score", 0, 1.0);
    EXPECT_EQ(m.predict_score(t, 0), 42.0);

    expect_error([&] { (void)Model(parse_model_spec("path=" + dir_.string())); }, "is a directory");
    const std::string big = write("big.json", "{}");
    fs::resize_file(big, 65ull << 20);  // sparse: nothing is written
    expect_error([&] { (void)Model(parse_model_spec("path=" + big)); }, "larger than any model file");
}

TEST_F(ModelFiles, MalformedJson) {
    const std::string path = write("bad.json", "{\"model_dict\": {");
    expect_error([&] { (void)Model(parse_model_spec("path=" + path)); }, "not valid JSON");
    const std::string pkl = write("old.pkl", "(dp0\n");
    expect_error([&] { (void)Model(parse_model_spec("path=" + pkl)); }, ".pkl model files are not supported");
    const std::string arr = write("arr.json", "[1, 2]");
    expect_error([&] { (void)Model(parse_model_spec("path=" + arr)); }, "is not a JSON object");
}

TEST_F(ModelFiles, MissingOrBadKeys) {
    const auto load = [&](const nlohmann::json& j) {
        const std::string path = write("m.json", j.dump());
        (void)Model(parse_model_spec("path=" + path));
    };
    nlohmann::json ok = constant_model(42.0);
    EXPECT_NO_THROW(load(ok));

    expect_error([&] { load(nlohmann::json{{"x", 1}}); }, "no \"model_dict\"");
    for (const char* key : {"norm_type", "feature_names", "model"}) {
        nlohmann::json j = ok;
        j["model_dict"].erase(key);
        expect_error([&] { load(j); }, key);
    }
    nlohmann::json j = ok;
    j["model_dict"]["norm_type"] = "clip_0to1";
    expect_error([&] { load(j); }, "norm_type");
    j = ok;
    j["model_dict"]["model_type"] = "SVR";
    expect_error([&] { load(j); }, "model_type");
    j = ok;
    j["model_dict"]["norm_type"] = "linear_rescale";
    expect_error([&] { load(j); }, "needs \"slopes\"");
    j["model_dict"]["slopes"] = {1.0};
    j["model_dict"]["intercepts"] = {0.0, 0.0};
    expect_error([&] { load(j); }, "slopes has 1 entries");
    j = ok;
    j["model_dict"]["score_clip"] = {0.0};
    expect_error([&] { load(j); }, "score_clip");
    j = ok;
    j["model_dict"]["score_transform"] = {{"knots", {{0.0, 0.0}, {10.0, 5.0}, {5.0, 8.0}}}};
    expect_error([&] { load(j); }, "knots");
    j = ok;
    j["model_dict"]["feature_opts_dicts"] = {nlohmann::json::object(), nlohmann::json::object()};
    expect_error([&] { load(j); }, "feature_opts_dicts has 2 entries for 1 features");
    j = ok;
    j["model_dict"]["feature_opts_dicts"] = {{{"motion_force_zero", nullptr}}};
    expect_error([&] { load(j); }, "not a number, boolean or string");
    // A collection needs bootstrap members.
    expect_error([&] { load(nlohmann::json{{"0", ok}, {"1", ok}}); }, "BOOTSTRAP_LIBSVMNUSVR");
    expect_error([&] { load(nlohmann::json{{"0", ok}}); }, "needs members");
}

TEST_F(ModelFiles, BadSvmText) {
    const std::string good = "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 2\nrho -1.5\nSV\n"
                             "-4 1:0.5 2:0.25 \n4 1:0.125 \n";
    EXPECT_NO_THROW((void)SvmModel(good, "t"));
    const std::pair<std::string, std::string> bad[] = {
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 1\nwhat 3\nSV\n", "unknown header entry \"what\""},
        {"svm_type nu_svm\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n", "unknown svm_type"},
        {"svm_type nu_svr\nkernel_type rbg\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n", "unknown kernel_type"},
        {"svm_type nu_svr\nkernel_type rbf\ngamma x\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n", "gamma: \"x\""},
        {"svm_type nu_svr\nkernel_type rbf\nrho 1\nnr_class 2\ntotal_sv 0\nSV\n", "rho comes before nr_class"},
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 1\n", "no \"SV\" line"},
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nSV\n", "no rho"},
        {"kernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n", "no svm_type"},
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 3\nrho 1\nSV\n1 1:0.5\n2 1:0.5\n", "total_sv 3 but the text holds 2 support-vector lines"},
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1=0.5\n", "not INDEX:VALUE"},
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:0.5x\n", "SV value"},
        {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n\n", "too few coefficients"},
        {"svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n", "precomputed"},
    };
    expect_svm_errors(bad);
    // Inside a model file, the message names the file.
    nlohmann::json j = constant_model(1.0);
    j["model_dict"]["model"] = "svm_type nu_svr\nSV\n";
    const std::string path = write("svm.json", j.dump());
    expect_error([&] { (void)Model(parse_model_spec("path=" + path)); }, path);
}

// Counts in the libsvm text (nr_class, total_sv and the arrays sized by nr_class) are checked
// against the text before anything is allocated: a file of a few hundred bytes asking for
// gigabytes fails at once, naming the field (before the fix, nr_class 65536 with a rho line
// allocated 16 GiB, and total_sv 2000000000 allocated 16 GB of coefficients).
TEST_F(ModelFiles, HugeCountsFailFast) {
    const std::string head = "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\n";
    const std::pair<std::string, std::string> bad[] = {
        {head + "nr_class 65536\ntotal_sv 0\nrho 1\nSV\n", "nr_class 65536 is not in [2, 256]"},
        {head + "nr_class 2147483647\ntotal_sv 0\nrho 1\nSV\n", "nr_class 2147483647 is not in [2, 256]"},
        {head + "nr_class 256\ntotal_sv 0\nrho 1 2 3\nSV\n",
         "rho needs 32640 numbers (nr_class*(nr_class-1)/2 for nr_class 256) but the header holds 3"},
        {head + "nr_class 256\ntotal_sv 0\nrho 1\nprobA 1 2\nSV\n", "rho needs 32640 numbers"},
        {head + "nr_class 200\ntotal_sv 0\nlabel 1 2\nSV\n", "label needs 200 numbers (nr_class 200) but the header holds 2"},
        {head + "nr_class 3\ntotal_sv 0\nrho 1 2 3\nnr_sv 1\nSV\n", "nr_sv needs 3 numbers (nr_class 3) but the header holds 1"},
        {head + "nr_class 4\ntotal_sv 0\nrho 1 2 3 4 5 6\nprobB 1 2 3 4 5\nSV\n", "probB needs 6 numbers"},
        {head + "nr_class 2\ntotal_sv 2000000000\nrho 1\nSV\n1 1:0.5\n2 1:0.5\n3 1:0.5\n",
         "total_sv 2000000000 but the text holds 3 support-vector lines"},
        {head + "nr_class 2\ntotal_sv 2147483647\nrho 1\nSV\n", "total_sv 2147483647 but the text holds 0 support-vector lines"},
        {head + "nr_class 2\ntotal_sv -5\nrho 1\nSV\n", "total_sv -5 is negative"},
    };
    expect_svm_errors(bad);
    // Many empty support-vector lines under the largest nr_class: refused at the first line,
    // with memory growing with what the lines hold, not with nr_class x total_sv.
    std::string blank = head + "nr_class 256\ntotal_sv 100000\nrho";
    for (int i = 0; i < 256 * 255 / 2; ++i) blank += " 1";
    blank += "\nSV\n" + std::string(100000, '\n');
    expect_error([&] { (void)SvmModel(blank, "t"); }, "support vector 1 has too few coefficients");

    // In a model file, the message names the file and the field.
    nlohmann::json j = constant_model(1.0);
    j["model_dict"]["model"] = head + "nr_class 2\ntotal_sv 2000000000\nrho 1\nSV\n1 1:0.5\n2 1:0.5\n3 1:0.5\n";
    const std::string path = write("x.json", j.dump());
    expect_error([&] { (void)Model(parse_model_spec("path=" + path)); },
                 "model file \"" + path + "\": bad libsvm model text: total_sv 2000000000 but the text holds 3 "
                 "support-vector lines");
}

// What libsvm's svm_predict relies on is checked: each header entry once (a second nr_class
// would leave rho, label and nr_sv sized for the first), label and nr_sv present for a
// classification model, nr_sv adding up to total_sv.
TEST(ModelLoad, SvmConsistency) {
    const std::string svr = "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\n";
    const std::string svc = "svm_type c_svc\nkernel_type rbf\ngamma 0.04\n";
    const std::pair<std::string, std::string> bad[] = {
        {svr + "nr_class 2\nrho 1\nnr_class 200\ntotal_sv 0\nSV\n", "header entry \"nr_class\" is given twice"},
        {svr + "nr_class 2\ntotal_sv 0\nrho 1\nrho 2\nSV\n", "header entry \"rho\" is given twice"},
        {svc + "nr_class 3\ntotal_sv 3\nrho 1 2 3\nSV\n1 2 1:1\n1 2 1:2\n1 2 1:3\n", "needs label and nr_sv"},
        {svc + "nr_class 3\ntotal_sv 3\nrho 1 2 3\nlabel 1 2 3\nSV\n1 2 1:1\n1 2 1:2\n1 2 1:3\n", "needs label and nr_sv"},
        {svc + "nr_class 3\ntotal_sv 3\nrho 1 2 3\nlabel 1 2 3\nnr_sv 1 1 5\nSV\n1 2 1:1\n1 2 1:2\n1 2 1:3\n",
         "nr_sv adds up to 7, not to total_sv 3"},
        {svc + "nr_class 3\ntotal_sv 3\nrho 1 2 3\nlabel 1 2 3\nnr_sv 2 2 -1\nSV\n1 2 1:1\n1 2 1:2\n1 2 1:3\n",
         "nr_sv -1 is negative"},
        {svr + std::string("nr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:0.5\0x\n", 41), "SV value"},
    };
    expect_svm_errors(bad);
    // A consistent classification model predicts one of its labels.
    const SvmModel ok(svc + "nr_class 3\ntotal_sv 3\nrho 1 2 3\nlabel 7 8 9\nnr_sv 1 1 1\nSV\n"
                            "1 2 1:1\n1 2 1:2\n1 2 1:3\n",
                      "t");
    const svm_node x[] = {{1, 2.0}, {-1, 0.0}};
    const double label = ok.predict(x);
    EXPECT_TRUE(label == 7 || label == 8 || label == 9) << label;
}

TEST(ModelLoad, SvmPredictsLikeTheFormula) {
    // RBF: sum_i coef_i * exp(-gamma * |x - sv_i|^2) - rho, with missing indices as 0.
    const SvmModel svm("svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 2\nrho -1.5\nSV\n"
                       "-4 1:0.5 2:0.25 \n4 1:0.125 \n",
                       "t");
    const svm_node x[] = {{1, 0.75}, {2, 0.5}, {-1, 0.0}};
    double d0 = 0.75 - 0.5, d1 = 0.5 - 0.25;
    const double k0 = std::exp(-0.04 * (d0 * d0 + d1 * d1));
    d0 = 0.75 - 0.125;
    const double k1 = std::exp(-0.04 * (d0 * d0 + 0.5 * 0.5));
    EXPECT_EQ(svm.predict(x), -4 * k0 + 4 * k1 - -1.5);
}

// Values of the wrong JSON type, however deeply nested, give an Error naming the file and the
// key (never nlohmann's own exceptions, nor a recursive dump of the value).
TEST_F(ModelFiles, WrongJsonTypes) {
    const auto load = [&](const std::string& text) {
        const std::string path = write("m.json", text);
        (void)Model(parse_model_spec("path=" + path));
    };
    const std::string deep = std::string(50, '[') + std::string(50, ']');
    nlohmann::json ok = constant_model(42.0);
    std::string text = ok.dump();
    const auto with = [&](const std::string& key, const std::string& value) {
        nlohmann::json j = ok;
        j["model_dict"][key] = "@@";
        std::string t = j.dump();
        return t.replace(t.find("\"@@\""), 4, value);
    };
    expect_error([&] { load(with("model_type", deep)); }, "model_type (a JSON array) is not LIBSVMNUSVR");
    expect_error([&] { load(with("norm_type", deep)); }, "norm_type (a JSON array) is not");
    expect_error([&] { load(with("norm_type", "17")); }, "norm_type 17 is not");
    expect_error([&] { load(with("feature_names", deep)); }, "feature_names holds a non-string");
    expect_error([&] { load(with("score_clip", "[0, \"x\"]")); }, "score_clip[1] is not a number");
    expect_error([&] { load(with("score_transform", "{\"knots\": [[0, {}]]}")); }, "knot y is not a number");
    expect_error([&] { load(with("score_transform", "{\"p1\": [1]}")); }, "score_transform.p1 is not a number");
    expect_error([&] { load(with("model", "1e400")); }, "not valid JSON");
    expect_error([&] { load(with("feature_opts_dicts", "[[1]]")); }, "feature_opts_dicts[0] is not an object");
    expect_error([&] { load("{\"0\": " + deep + ", \"1\": {}}"); }, "member 0: is not a JSON object");
    // Deeper nesting is refused before parsing: nlohmann's parser recurses (a stack overflow
    // at 100000 levels before the limit).
    const std::string deeper = std::string(100000, '[') + std::string(100000, ']');
    expect_error([&] { load(with("model_type", deeper)); }, "JSON nested 100002 levels deep (at most 64)");
    expect_error([&] { load(with("model", "\"" + std::string(1000, '[') + "\"")); }, "bad libsvm model text");
}

// A score computed from finite feature values must be finite: a model file whose numbers
// overflow makes prediction fail with an Error instead of printing inf or NaN.
TEST_F(ModelFiles, NonFiniteScoreFromFiniteFeatures) {
    nlohmann::json j = constant_model(1.0);
    j["model_dict"]["norm_type"] = "linear_rescale";
    j["model_dict"]["slopes"] = {0.0, 1.0};  // the score is (y - intercept) / 0
    j["model_dict"]["intercepts"] = {0.0, 0.0};
    const Model m(parse_model_spec("path=" + write("m.json", j.dump())));
    ScoreTable t;
    t.set(table_key(m.required_features().at(0), "VMAF_integer_feature_motion2_score"), 0, 0.5);
    expect_error([&] { m.predict(t, 0); }, "frame 0: score \"vmaf\" is inf although every feature value is finite");
    // A negative RBF gamma overflows exp().
    j = constant_model(1.0);
    j["model_dict"]["model"] = "svm_type nu_svr\nkernel_type rbf\ngamma -1e300\nnr_class 2\ntotal_sv 2\nrho 1\nSV\n"
                               "1 1:5\n-1 1:6\n";
    const Model g(parse_model_spec("path=" + write("g.json", j.dump())));
    expect_error([&] { g.predict(t, 0); }, "nan although every feature value is finite");
}

// NaN feature values pass through (as upstream, which prints them): the score is NaN, and in
// a collection the member scores are sorted without undefined behaviour (std::sort with < on
// NaN may read past the end of the range).
TEST_F(ModelFiles, NanFeatureValuesInCollection) {
    nlohmann::json member = constant_model(1.0);
    member["model_dict"]["model_type"] = "BOOTSTRAP_LIBSVMNUSVR";
    member["model_dict"]["model"] = "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n"
                                    "1 1:5\n";
    nlohmann::json doc;
    for (int i = 0; i <= 40; ++i) doc[std::to_string(i)] = member;
    const Model m(parse_model_spec("path=" + write("c.json", doc.dump()) + ":name=c"));
    ScoreTable t;
    t.set(table_key(m.required_features().at(0), "VMAF_integer_feature_motion2_score"), 0, std::nan(""));
    EXPECT_NO_THROW(m.predict(t, 0));
    EXPECT_TRUE(std::isnan(*t.get("c", 0)));
    EXPECT_TRUE(std::isnan(*t.get("c_ci_p95_hi", 0)));
}

TEST(ModelLoad, OverloadOfUnknownExtractor) {
    expect_error([] { (void)Model(parse_model_spec("version=vmaf_v0.6.1:nosuch.opt=1")); }, "no feature extractor \"nosuch\"");
}

// ---------------------------------------------------------------------------------------

TEST(ModelFeatures, RequiredFeatures) {
    REQUIRE_INTEGER_FEATURES();
    const std::vector<FeatureRequest> plain = Model(parse_model_spec("version=vmaf_v0.6.1")).required_features();
    ASSERT_EQ(plain.size(), 3u);  // the four vif scales come from one vif instance
    EXPECT_STREQ(plain[0].metric->name, "adm");
    EXPECT_STREQ(plain[1].metric->name, "motion");
    EXPECT_STREQ(plain[2].metric->name, "vif");
    for (const auto& r : plain) EXPECT_TRUE(r.options.empty());

    const std::vector<FeatureRequest> neg = Model(parse_model_spec("version=vmaf_v0.6.1neg")).required_features();
    ASSERT_EQ(neg.size(), 3u);
    using Opts = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(neg[0].options, (Opts{{"adm_enhn_gain_limit", "1"}}));
    EXPECT_TRUE(neg[1].options.empty());
    EXPECT_EQ(neg[2].options, (Opts{{"vif_enhn_gain_limit", "1"}}));
    EXPECT_EQ(table_key(neg[2], "VMAF_integer_feature_vif_scale0_score"), "integer_vif_scale0_egl_1");

    // A collection's members share the features of member 0.
    EXPECT_EQ(Model(parse_model_spec("version=vmaf_b_v0.6.3")).required_features().size(), 3u);
}

TEST(ModelFeatures, OverloadsReplaceModelOptions) {
    REQUIRE_INTEGER_FEATURES();
    const Model m(parse_model_spec("version=vmaf_v0.6.1neg:vif.vif_enhn_gain_limit=1.50:motion.motion_force_zero=true"));
    const std::vector<FeatureRequest> f = m.required_features();
    ASSERT_EQ(f.size(), 3u);
    using Opts = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(f[0].options, (Opts{{"adm_enhn_gain_limit", "1"}}));
    EXPECT_EQ(f[1].options, (Opts{{"motion_force_zero", "true"}}));
    EXPECT_EQ(f[2].options, (Opts{{"vif_enhn_gain_limit", "1.5"}}));
    // An overload of an extractor the model does not use changes nothing.
    const Model b(parse_model_spec("version=vmaf_b_v0.6.3:vif.vif_enhn_gain_limit=2"));
    for (const auto& r : b.required_features())
        if (std::string(r.metric->name) == "vif") {
            EXPECT_EQ(r.options, (Opts{{"vif_enhn_gain_limit", "2"}}));
        }
}

TEST_F(ModelFiles, UnknownFeature) {
    nlohmann::json j = constant_model(1.0);
    j["model_dict"]["feature_names"] = {"VMAF_feature_no_such_score"};
    const Model m(parse_model_spec("path=" + write("m.json", j.dump())));
    expect_error([&] { m.required_features(); }, "no feature extractor provides feature \"VMAF_feature_no_such_score\"");
    ScoreTable t;
    expect_error([&] { m.predict(t, 0); }, "VMAF_feature_no_such_score");
}

TEST_F(ModelFiles, UnknownFeatureOption) {
    nlohmann::json j = constant_model(1.0);
    j["model_dict"]["feature_opts_dicts"] = {{{"motion_no_such_option", 3}}};
    const Model m(parse_model_spec("path=" + write("m.json", j.dump())));
    expect_error([&] { m.required_features(); }, "motion_no_such_option");
    try {  // the model file is wrong, not the command line
        m.required_features();
    } catch (const UsageError& e) {
        ADD_FAILURE() << "an option of a model file is no usage error: " << e.what();
    } catch (const Error&) {
    }
}

TEST_F(ModelFiles, MissingFeatureValue) {
    const Model m(parse_model_spec("path=" + write("m.json", constant_model(1.0).dump())));
    ScoreTable t;
    const FeatureRequest r = m.required_features().at(0);
    t.set(table_key(r, "VMAF_integer_feature_motion2_score"), 0, 0.5);
    EXPECT_NO_THROW(m.predict(t, 0));
    expect_error([&] { m.predict(t, 1); }, "no value of feature \"VMAF_integer_feature_motion2_score\" at frame 1");
}

// ---------------------------------------------------------------------------------------

// The score of frame 0 by the model in file `path` (a constant_model) under -m flags `flags`.
double constant_score(const std::string& path, const std::string& flags) {
    const Model m(parse_model_spec("path=" + path + flags));
    ScoreTable t;
    t.set(table_key(m.required_features().at(0), "VMAF_integer_feature_motion2_score"), 0, 1.0);
    return m.predict_score(t, 0);
}

TEST_F(ModelFiles, ClipOnOff) {
    nlohmann::json j = constant_model(150.0);
    j["model_dict"]["score_clip"] = {0.0, 100.0};
    const std::string p = write("m.json", j.dump());
    EXPECT_EQ(constant_score(p, ""), 100.0);
    EXPECT_EQ(constant_score(p, ":disable_clip"), 150.0);
    EXPECT_EQ(constant_score(p, ":disable_clip=false"), 100.0);
    j = constant_model(-3.0);
    j["model_dict"]["score_clip"] = {0.0, 100.0};
    EXPECT_EQ(constant_score(write("n.json", j.dump()), ""), 0.0);
}

TEST_F(ModelFiles, PolynomialTransform) {
    const double raw = 42.0, p0 = 1.70674692, p1 = 1.72643844, p2 = -0.00705305;
    nlohmann::json j = constant_model(raw);
    j["model_dict"]["score_transform"] = {{"p0", p0}, {"p1", p1}, {"p2", p2}, {"out_gte_in", "true"}};
    const std::string off = write("off.json", j.dump());
    const double expected = p0 + p1 * raw + p2 * raw * raw;
    EXPECT_EQ(constant_score(off, ""), raw);  // not enabled in the file
    EXPECT_EQ(constant_score(off, ":enable_transform"), expected);
    j["model_dict"]["score_transform"]["enabled"] = true;
    const std::string on = write("on.json", j.dump());
    EXPECT_EQ(constant_score(on, ""), expected);
    EXPECT_EQ(constant_score(on, ":enable_transform=false"), expected);
    // out_gte_in: never below the input (here p2 pulls a large score down).
    nlohmann::json big = constant_model(200.0);
    big["model_dict"]["score_transform"] = {{"enabled", true}, {"p0", p0}, {"p1", p1}, {"p2", p2}, {"out_gte_in", "true"}};
    EXPECT_EQ(constant_score(write("big.json", big.dump()), ""), 200.0);
    big["model_dict"]["score_transform"]["out_gte_in"] = "false";
    EXPECT_EQ(constant_score(write("big2.json", big.dump()), ""), p0 + p1 * 200.0 + p2 * 200.0 * 200.0);
}

TEST_F(ModelFiles, KnotsAndOutLteIn) {
    const auto score = [&](double raw, bool lte) {
        nlohmann::json j = constant_model(raw);
        j["model_dict"]["score_transform"] = {{"enabled", true},
                                              {"knots", {{0.0, 0.0}, {50.0, 60.0}, {80.0, 60.0}, {100.0, 100.0}}}};
        if (lte) j["model_dict"]["score_transform"]["out_lte_in"] = "true";
        return constant_score(write("k.json", j.dump()), "");
    };
    EXPECT_EQ(score(25.0, false), (60.0 - 0.0) / 50.0 * 25.0 + 0.0);    // first segment, through 0
    EXPECT_EQ(score(70.0, false), 60.0);                                 // flat segment
    const double slope = (100.0 - 60.0) / (100.0 - 80.0), offset = 60.0 - 80.0 * slope;
    EXPECT_EQ(score(90.0, false), slope * 90.0 + offset);                // last segment
    EXPECT_EQ(score(110.0, false), slope * 110.0 + offset);              // beyond the last knot
    EXPECT_EQ(score(-10.0, false), (60.0 / 50.0) * -10.0);               // before the first knot
    EXPECT_EQ(score(25.0, true), 25.0);                                  // out_lte_in caps at the input
    EXPECT_EQ(score(70.0, true), 60.0);
}

// ---------------------------------------------------------------------------------------

// For every golden fixture and frame: the golden feature values of each model's features
// in a ScoreTable, predicted, must give the golden scores exactly (the golden files were
// made with these -m options).
TEST(ModelPredict, GoldenFixturesBitExact) {
    VMAFX_SKIP_IF_MISSING(test::missing_shared());
    REQUIRE_INTEGER_FEATURES();
    const char* const specs[] = {"version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg",
                                 "version=vmaf_b_v0.6.3:name=vmaf_b", "version=vmaf_4k_v0.6.1:name=vmaf_4k"};
    std::vector<Model> models;
    for (const char* s : specs) models.emplace_back(parse_model_spec(s));

    unsigned compared = 0, fixtures = 0;
    for (const std::string& fixture : test::golden_fixtures()) {
        SCOPED_TRACE(fixture);
        const nlohmann::json frames = test::golden(fixture).at("frames");
        if (frames.empty() || !frames[0].at("metrics").contains("vmaf")) continue;
        ++fixtures;
        ScoreTable table;
        for (unsigned i = 0; i < frames.size(); ++i) {
            const nlohmann::json& metrics = frames[i].at("metrics");
            for (const Model& m : models)
                for (const FeatureRequest& r : m.required_features())
                    for (const FeatureName& f : r.metric->features) {
                        const std::string key = table_key(r, f.name);
                        if (auto it = metrics.find(feature_alias(key)); it != metrics.end())
                            table.set(key, i, it->get<double>());
                    }
            for (const Model& m : models) {
                m.predict(table, i);
                for (const std::string& name : m.output_names()) {
                    ASSERT_TRUE(metrics.contains(name)) << name;
                    const std::optional<double> got = table.get(name, i);
                    ASSERT_TRUE(got.has_value()) << name;
                    const double want = metrics.at(name).get<double>();
                    EXPECT_EQ(*got, want) << name << " frame " << i << ": " << fmt::format("{:.17g} vs {:.17g}", *got, want);
                    ++compared;
                }
            }
        }
    }
    EXPECT_GT(fixtures, 0u);
    std::printf("[          ] %u scores of %u fixtures compared\n", compared, fixtures);
}

// predict_frames on several threads: the same values, bit for bit, and the same order of names
// as each frame predicted in turn with Model::predict; a missing feature value throws the error
// of the first frame that lacks it, in the order of the indices, and writes nothing.
TEST(PredictFrames, ThreadsGiveTheSequentialTable) {
    REQUIRE_INTEGER_FEATURES();
    const std::vector<Model> models{Model(parse_model_spec("version=vmaf_v0.6.1:name=vmaf")),
                                    Model(parse_model_spec("version=vmaf_b_v0.6.3:name=vmaf_b"))};
    std::vector<const Model*> pointers;
    for (const Model& m : models) pointers.push_back(&m);
    constexpr unsigned kFrames = 301;
    ScoreTable features;
    std::uint32_t state = 12345;
    const auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
    };
    for (unsigned i = 0; i < kFrames; ++i)
        for (const Model& m : models)
            for (const FeatureRequest& r : m.required_features())
                for (const FeatureName& f : r.metric->features) {
                    const std::string key = table_key(r, f.name);
                    const bool motion = key.find("motion") != std::string::npos;
                    features.set(key, i, motion ? 20.0 * next() : 0.5 + 0.5 * next());
                }
    std::vector<unsigned> indices;
    for (unsigned i = 0; i < kFrames; i += 2) indices.push_back(i);  // as --subsample 2

    ScoreTable sequential = features;
    for (const unsigned i : indices) {
        for (const Model& m : models) m.predict_score(sequential, i);
        for (const Model& m : models) m.predict_collection(sequential, i);
    }
    for (const unsigned threads : {1u, 3u, 8u}) {
        SCOPED_TRACE(fmt::format("{} threads", threads));
        ScoreTable parallel = features;
        predict_frames(pointers, parallel, indices, threads);
        ASSERT_EQ(parallel.names(), sequential.names());
        unsigned compared = 0;
        for (const std::string& name : sequential.names())
            for (unsigned i = 0; i < kFrames; ++i) {
                const std::optional<double> want = sequential.get(name, i), got = parallel.get(name, i);
                ASSERT_EQ(want.has_value(), got.has_value()) << name << " frame " << i;
                if (!want) continue;
                EXPECT_EQ(fmt::format("{:.17g}", *got), fmt::format("{:.17g}", *want)) << name << " frame " << i;
                ++compared;
            }
        std::size_t outputs = 0;
        for (const Model& m : models) outputs += m.output_names().size();
        EXPECT_GT(outputs, 20u);  // vmaf, then vmaf_b, its members and its 4 statistics
        EXPECT_EQ(compared, static_cast<unsigned>(kFrames * features.names().size() + indices.size() * outputs));
    }

    // Frames 70 and 250 lack adm2: the error names frame 70 whatever the threads.
    ScoreTable gaps;
    const std::string adm2 = table_key(models[0].required_features().at(0), "VMAF_integer_feature_adm2_score");
    for (const std::string& name : features.names())
        for (unsigned i = 0; i < kFrames; ++i)
            if (!(name == adm2 && (i == 70 || i == 250))) gaps.set(name, i, *features.get(name, i));
    for (const unsigned threads : {1u, 8u}) {
        ScoreTable t = gaps;
        try {
            predict_frames(pointers, t, indices, threads);
            ADD_FAILURE() << "no error with " << threads << " threads";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("frame 70"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(t.get("vmaf", 0).has_value());
    }
}

}  // namespace
}  // namespace vmafx
