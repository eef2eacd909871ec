// Which of upstream's code paths vmafx reproduces where they disagree. Upstream libvmaf 3.2.0
// picks its kernels at run time: its C code, its AVX2 kernels, its AVX-512 kernels. They give
// different values in a few places (docs/metrics.md, "Where upstream's code paths differ"), and
// the golden values are the AVX-512 path's (an AMD EPYC with AVX-512, run-time dispatch), so
// vmafx follows that path. Each case below is content the test makes from a seed, written as
// raw .yuv files into the test's own temporary folder and scored by vmafx's engine; the expected
// values are what upstream computed for those exact files:
//
//   upstream_scores ref.yuv dist.yuv W H BPC 420 MASK FEATURE[:OPTIONS] OUTPUT
//
// (scripts/upstream_scores.c: upstream's public API, values printed with %.17g) with MASK 0
// (default dispatch: AVX-512 on the Intel Xeon it ran on, 2026-12-02), 16 (AVX-512 masked off:
// the AVX2 kernels) and 255 (every SIMD path masked off: the C code), upstream master f85a8536
// built as release with its run-time dispatch. vmafx must give the first bit for bit and must
// not give the value of a path that differs from it, so each case shows both that the paths
// differ and which one vmafx takes.
//
// With VMAFX_UPSTREAM_SCORES set to a built upstream_scores, the test also runs it on the same
// files with the three masks and checks the recorded values against it.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/printf.h>
#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

/// How a case makes its reference and distorted pictures (one frame each).
enum class Content {
    kEnhanced,  ///< smooth_picture(seed), and its contrast enhanced by 5/4 (gain limits act)
    kExtreme,   ///< extreme_picture(seed) and extreme_picture(seed + 1): full-range noise
    kDistorted  ///< smooth_picture(seed), and distorted_picture of it with seed + 1
};

struct Expected {
    const char* output;
    double avx512;  ///< upstream, default dispatch (the golden machine's path): vmafx's value
    double avx2;    ///< upstream --cpumask 16
    double c;       ///< upstream --cpumask 255
};

struct PathCase {
    const char* what;
    VideoFormat format;
    Content content;
    std::uint32_t seed;
    const char* feature;   ///< upstream's and vmafx's extractor name
    OptionValues options;  ///< its options
    std::vector<Expected> expected;
};

test::Clip make_clip(const PathCase& c) {
    test::Clip clip{c.format, {}, {}};
    switch (c.content) {
        case Content::kEnhanced:
            clip.ref.push_back(test::smooth_picture(c.format, c.seed));
            clip.dist.push_back(test::contrast_picture(clip.ref[0], 5, 4));
            break;
        case Content::kExtreme:
            clip.ref.push_back(test::extreme_picture(c.format, c.seed));
            clip.dist.push_back(test::extreme_picture(c.format, c.seed + 1));
            break;
        case Content::kDistorted:
            clip.ref.push_back(test::smooth_picture(c.format, c.seed));
            clip.dist.push_back(test::distorted_picture(clip.ref[0], c.seed + 1));
            break;
    }
    return clip;
}

std::string bits(double v) { return fmt::sprintf("%.17g", v); }

// Upstream's value of `output` for the files, with `mask`, through upstream_scores; NaN when
// it printed none.
double upstream_value(const std::string& tool, const RunConfig& config, const PathCase& c, unsigned mask,
                      const std::string& output, const std::string& dir) {
    std::string feature = c.feature;
    for (const auto& [k, v] : c.options) feature += ":" + k + "=" + v;
    const std::string out = dir + "/upstream.txt";
    const std::string cmd = fmt::format("{} {} {} {} {} {} {} {} {} {} >{}", tool, config.reference_path,
                                        config.distorted_path, c.format.width, c.format.height,
                                        c.format.bit_depth, subsampling_name(c.format.subsampling), mask, feature,
                                        output, out);
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    double value = std::nan("");
    if (std::FILE* f = std::fopen(out.c_str(), "r")) {
        unsigned frame = 0;
        char name[256], text[64];
        if (std::fscanf(f, "%u %255s %63s", &frame, name, text) == 3) value = std::strtod(text, nullptr);
        std::fclose(f);
    }
    return value;
}

class UpstreamPaths : public test::TempDirTest {};

// Cases. Sizes 96x64 unless said: the band widths of ADM's levels (48, 24, 12, 6) then hold
// whole AVX-512 and AVX2 vectors and the tails each leaves to upstream's C code.
const std::vector<PathCase>& cases() {
    static const std::vector<PathCase> all = {
        // 1. adm_enhn_gain_limit not an integer: upstream's decouple multiplies the restored
        // coefficient by the limit in double and converts it to int with rounding to nearest
        // in its AVX2 and AVX-512 kernels (cvtpd_epi32), truncating in its C code; integer
        // limits give every path the same product. Level 0 only at this size.
        {"egl 1.2, 8-bit",
         {96, 64, 8, Subsampling::k420},
         Content::kEnhanced,
         11,
         "adm",
         {{"adm_enhn_gain_limit", "1.2"}},
         {{"integer_adm_scale0_egl_1.2", 0.99446851480660259, 0.99447239002391608, 0.99441365895263034}, {"integer_adm2_egl_1.2", 1.0389766177891366, 1.038977591272741, 1.0389628375878894}}},
        {"egl 1.2, 10-bit",
         {96, 64, 10, Subsampling::k420},
         Content::kEnhanced,
         12,
         "adm",
         {{"adm_enhn_gain_limit", "1.2"}},
         {{"integer_adm_scale0_egl_1.2", 1.0105729127539933, 1.0106069964858977, 1.0103866695046591}, {"integer_adm2_egl_1.2", 1.0585790824610748, 1.0585875508691214, 1.0585327387465402}}},
        // 2. Full-range noise, default options: level 0's contrast masking adds |c| / 15 of the
        // centre coefficient as (8738 |c| + 2048) >> 12, which exceeds int16 for |c| > 15360.
        // Upstream's C code narrows that term to int16 (it wraps negative); its AVX2 and
        // AVX-512 kernels keep it in 32 bits in their vector columns (and narrow it in the
        // columns their scalar tails compute, which differ between the two widths). This is
        // all that differs here: vmafx with the centre tap narrowed in every column (a planted
        // change, 2026-12-02) gives upstream's C values below exactly.
        {"full-range noise, 8-bit",
         {96, 64, 8, Subsampling::k420},
         Content::kExtreme,
         21,
         "adm",
         {},
         {{"integer_adm_scale0", 0.40001558436730172, 0.39950984895268082, 0.4043774239797373}, {"VMAF_integer_feature_adm2_score", 0.31346612814503316, 0.31334143228023265, 0.31454159833531353}}},
        {"full-range noise, 10-bit",
         {96, 64, 10, Subsampling::k420},
         Content::kExtreme,
         23,
         "adm",
         {},
         {{"integer_adm_scale0", 0.39900191669118756, 0.39860387127567848, 0.40227133679533855}, {"VMAF_integer_feature_adm2_score", 0.36635518992549637, 0.366256324755042, 0.36716723740372348}}},
        // 3. Default options, ordinary content, some widths: scale 3. Upstream's SIMD kernels
        // of the horizontal DWT pass at levels 1..3 run in blocks from output 1 (8 outputs in
        // AVX-512, 4 in AVX2); where the last block ends exactly at the last output, its taps
        // past the row's end read the next row of upstream's scratch buffer instead of
        // mirroring, as the C code does. So the widths where this happens differ by path:
        // at 80x48 the AVX2 path reads past the row (AVX-512 and C agree), at 136x64 both SIMD
        // paths do (C differs). vmafx reproduces the AVX-512 kernel's reads (adm_math.hpp,
        // dwt_reads_past_row).
        {"scale 3, 80x48",
         {80, 48, 8, Subsampling::k420},
         Content::kDistorted,
         31,
         "adm",
         {},
         {{"integer_adm_scale3", 0.98335565601926134, 0.81009480966427483, 0.98335565601926134}}},
        {"scale 3, 136x64",
         {136, 64, 8, Subsampling::k420},
         Content::kDistorted,
         33,
         "adm",
         {},
         {{"integer_adm_scale3", 0.81501259481585997, 0.81501259481585997, 0.9792620560055022}}},
    };
    return all;
}

TEST_F(UpstreamPaths, VmafxGivesTheAvx512PathsValues) {
    const char* tool = std::getenv("VMAFX_UPSTREAM_SCORES");
    for (const PathCase& c : cases()) {
        SCOPED_TRACE(c.what);
        RunConfig config = raw_run(make_clip(c));
        config.features = {{c.feature, c.options}};
        config.threads = 1;
        const RunResult result = run(config);
        for (const Expected& e : c.expected) {
            SCOPED_TRACE(e.output);
            const std::optional<double> got = result.scores.get(e.output, 0);
            ASSERT_TRUE(got.has_value());
            EXPECT_EQ(std::bit_cast<std::uint64_t>(*got), std::bit_cast<std::uint64_t>(e.avx512))
                << "vmafx " << bits(*got) << ", upstream's AVX-512 path " << bits(e.avx512);
            // Each case is one where upstream's paths differ, and vmafx is on none of the
            // others.
            EXPECT_TRUE(e.c != e.avx512 || e.avx2 != e.avx512) << "not a case where the paths differ";
            if (e.c != e.avx512) {
                EXPECT_NE(std::bit_cast<std::uint64_t>(*got), std::bit_cast<std::uint64_t>(e.c))
                    << "upstream's C path " << bits(e.c);
            }
            if (e.avx2 != e.avx512) {
                EXPECT_NE(std::bit_cast<std::uint64_t>(*got), std::bit_cast<std::uint64_t>(e.avx2))
                    << "upstream's AVX2 path " << bits(e.avx2);
            }
            if (tool) {
                const double up[3] = {upstream_value(tool, config, c, 0, e.output, dir_.string()),
                                      upstream_value(tool, config, c, 16, e.output, dir_.string()),
                                      upstream_value(tool, config, c, 255, e.output, dir_.string())};
                std::printf("%s | %s | vmafx %s | default %s | avx2 %s | c %s\n", c.what, e.output,
                            bits(*got).c_str(), bits(up[0]).c_str(), bits(up[1]).c_str(), bits(up[2]).c_str());
                EXPECT_EQ(bits(up[0]), bits(e.avx512));
                EXPECT_EQ(bits(up[1]), bits(e.avx2));
                EXPECT_EQ(bits(up[2]), bits(e.c));
            }
        }
    }
}

}  // namespace
}  // namespace vmafx
