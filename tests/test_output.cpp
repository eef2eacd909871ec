// Pooling and the four writers: values, layouts, number formats, atomic writing.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/pooling.hpp"
#include "output/writers.hpp"

namespace vmafx {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

ScoreTable table_of(const std::string& name, const std::vector<double>& v) {
    ScoreTable t;
    for (unsigned i = 0; i < v.size(); ++i) t.set(name, i, v[i]);
    return t;
}

TEST(Pooling, MinMaxMeanHarmonic) {
    const ScoreTable t = table_of("s", {1.0, 3.0, 2.0, 6.0});
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMin, 4, 1), 1.0);
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMax, 4, 1), 6.0);
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMean, 4, 1), 3.0);
    // n / sum(1/(s+1)) - 1 with the sum taken in frame order
    const double inv = ((1.0 / 2.0 + 1.0 / 4.0) + 1.0 / 3.0) + 1.0 / 7.0;
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kHarmonicMean, 4, 1), 4 / inv - 1.0);
}

TEST(Pooling, SumIsInFrameOrder) {
    // 1e16 + 1 + 1 - 1e16 depends on the order: a running sum in frame order gives 0.
    const ScoreTable t = table_of("s", {1e16, 1.0, 1.0, -1e16});
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMean, 4, 1), 0.0);
}

TEST(Pooling, SubsampleAndMissing) {
    ScoreTable t = table_of("s", {4.0, 100.0, 8.0});
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMean, 3, 2), 6.0);
    EXPECT_EQ(*pool_score(t, "s", PoolMethod::kMax, 3, 2), 8.0);
    t.set("gap", 0, 1.0);
    t.set("gap", 2, 1.0);
    EXPECT_FALSE(pool_score(t, "gap", PoolMethod::kMean, 3, 1).has_value());
    EXPECT_TRUE(pool_score(t, "gap", PoolMethod::kMean, 3, 2).has_value());
    EXPECT_FALSE(pool_score(t, "absent", PoolMethod::kMean, 3, 1).has_value());
}

TEST(NumberFormat, LikeUpstreamAndMax) {
    EXPECT_EQ(format_number(93.123456789, {}), "93.123457");
    EXPECT_EQ(format_number(0.0000001234, {}), "0.0000001234000000");  // > 6 leading zeros: 16 decimals
    EXPECT_EQ(format_number(0.000001234, {}), "0.000001");
    EXPECT_EQ(format_number(0.0, {}), "0.000000");
    NumberFormat two;
    two.digits = 2;
    EXPECT_EQ(format_number(1.005, two), "1.00");  // correctly rounded binary value 1.00499..
    NumberFormat max;
    max.max_precision = true;
    const double x = 0.1 + 0.2;
    EXPECT_EQ(std::stod(format_number(x, max)), x);
    EXPECT_EQ(format_number(std::nan(""), max), "null");
}

class WriterTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vmafx_writer_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        r_.frames = 3;
        r_.format.width = 64;
        r_.format.height = 48;
        for (unsigned i = 0; i < 3; ++i) {
            r_.scores.set("VMAF_integer_feature_adm2_score", i, 0.5 + i);
            r_.scores.set("vmaf", i, 90.0 + i);
        }
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
    RunResult r_;
};

TEST_F(WriterTest, Json) {
    NumberFormat max;
    max.max_precision = true;
    write_output(r_, (dir_ / "o.json").string(), OutputFormat::kJson, max);
    const auto j = nlohmann::json::parse(slurp(dir_ / "o.json"));
    ASSERT_EQ(j["frames"].size(), 3u);
    EXPECT_EQ(j["frames"][2]["frameNum"], 2);
    EXPECT_EQ(j["frames"][2]["metrics"]["integer_adm2"], 2.5);  // printed by its alias
    EXPECT_EQ(j["frames"][1]["metrics"]["vmaf"], 91.0);
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["min"], 90.0);
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["max"], 92.0);
    EXPECT_EQ(j["pooled_metrics"]["vmaf"]["mean"], 91.0);
    EXPECT_TRUE(j["pooled_metrics"]["vmaf"].contains("harmonic_mean"));
    EXPECT_TRUE(j.contains("aggregate_metrics"));
}

TEST_F(WriterTest, Xml) {
    write_output(r_, (dir_ / "o.xml").string(), OutputFormat::kXml, {});
    const std::string x = slurp(dir_ / "o.xml");
    EXPECT_NE(x.find("<params qualityWidth=\"64\" qualityHeight=\"48\" />"), std::string::npos);
    EXPECT_NE(x.find("<frame frameNum=\"1\" integer_adm2=\"1.500000\" vmaf=\"91.000000\" />"), std::string::npos) << x;
    EXPECT_NE(x.find("<metric name=\"vmaf\" min=\"90.000000\" max=\"92.000000\" mean=\"91.000000\" harmonic_mean="),
              std::string::npos) << x;
    EXPECT_NE(x.find("</VMAF>"), std::string::npos);
}

TEST_F(WriterTest, Csv) {
    write_output(r_, (dir_ / "o.csv").string(), OutputFormat::kCsv, {});
    EXPECT_EQ(slurp(dir_ / "o.csv"),
              "Frame,integer_adm2,vmaf,\n0,0.500000,90.000000,\n1,1.500000,91.000000,\n2,2.500000,92.000000,\n");
}

TEST_F(WriterTest, Sub) {
    write_output(r_, (dir_ / "o.sub").string(), OutputFormat::kSub, {});
    const std::string s = slurp(dir_ / "o.sub");
    EXPECT_EQ(s.substr(0, s.find('\n')), "{0}{1}frame: 0|integer_adm2: 0.500000|vmaf: 90.000000|");
}

TEST_F(WriterTest, SubsampledFramesOnly) {
    r_.subsample = 2;
    write_output(r_, (dir_ / "o.csv").string(), OutputFormat::kCsv, {});
    EXPECT_EQ(slurp(dir_ / "o.csv"), "Frame,integer_adm2,vmaf,\n0,0.500000,90.000000,\n2,2.500000,92.000000,\n");
}

TEST_F(WriterTest, UnwritableLeavesNothing) {
    EXPECT_THROW(write_output(r_, (dir_ / "missing" / "o.json").string(), OutputFormat::kJson, {}), Error);
    EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

TEST_F(WriterTest, ReplacesExistingFileWhole) {
    std::ofstream(dir_ / "o.csv") << "old content that is longer than the new one ............................\n";
    write_output(r_, (dir_ / "o.csv").string(), OutputFormat::kCsv, {});
    EXPECT_EQ(slurp(dir_ / "o.csv").substr(0, 6), "Frame,");
    EXPECT_EQ(slurp(dir_ / "o.csv").find("old content"), std::string::npos);
}

}  // namespace
}  // namespace vmafx
