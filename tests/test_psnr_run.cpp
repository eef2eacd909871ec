// The integer PSNR extractor "psnr" through the engine and the writers (its own tests, which
// know no engine, are src/feature/psnr/psnr_test.cpp): upstream runs psnr on every frame
// whatever --subsample, so apsnr sums all frames; the aggregates as upstream's output.c prints
// them in JSON and XML.
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/printf.h>
#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "feature/psnr/psnr.hpp"
#include "output/writers.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using psnr::descriptor;

// Upstream runs psnr on every frame whatever --subsample (its TEMPORAL flag): apsnr sums all
// frames, while the frames written are every n-th.
class PsnrRun : public test::TempDirTest {};

TEST_F(PsnrRun, ApsnrSumsEveryFrameWhateverTheSubsampling) {
    const test::Clip clip = test::hashed_clip(10, 5);
    RunConfig config = raw_run(clip);
    config.features = {{"psnr", {{"enable_apsnr", "true"}}}};
    const RunResult all = run(config);
    config.subsample = 3;
    const RunResult sub = run(config);
    ASSERT_EQ(sub.scores.aggregates().size(), 3u);
    EXPECT_EQ(sub.scores.aggregates(), all.scores.aggregates());
    EXPECT_EQ(sub.scores.aggregates(), test::run_cpu(descriptor, descriptor.parse_options({{"enable_apsnr", "true"}}),
                                                     clip)
                                           .aggregates());

    // As every number of the output (upstream output.c): %.6f by default, %.17g with
    // --precision max; -inf is null in JSON and printf's "-inf" in XML.
    config.subsample = 1;
    config.features = {{"psnr", {{"enable_apsnr", "true"}, {"enable_chroma", "false"}}}};
    const RunResult y = run(config);
    const double apsnr_y = y.scores.aggregates().at(0).second;
    NumberFormat max;
    max.max_precision = true;
    for (const auto& [nf, text] : {std::pair{NumberFormat{}, fmt::sprintf("%.6f", apsnr_y)},
                                   std::pair{max, fmt::sprintf("%.17g", apsnr_y)}}) {
        const std::string json = render_output(y, OutputFormat::kJson, nf);
        EXPECT_NE(json.find(fmt::format("\"aggregate_metrics\": {{\n    \"apsnr_y\": {},\n    \"apsnr_cb\": null,\n"
                                        "    \"apsnr_cr\": null\n  }}\n}}\n",
                                        text)),
                  std::string::npos)
            << json;
        const std::string xml = render_output(y, OutputFormat::kXml, nf);
        EXPECT_NE(xml.find(fmt::format("<aggregate_metrics apsnr_y=\"{}\" apsnr_cb=\"-inf\" apsnr_cr=\"-inf\" />", text)),
                  std::string::npos)
            << xml;
    }
}

}  // namespace
}  // namespace vmafx
