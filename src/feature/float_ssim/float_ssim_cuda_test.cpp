// The CUDA twins of float_ssim and float_ms_ssim (src/feature/common/iqa_cuda.cuh,
// float_ssim_cuda.cu, float_ms_ssim_cuda.cu) as far as the host can check them, beyond the
// registry-driven twin suites (test_twins.cpp, test_parity_gate.cpp, which need a GPU):
//  - the SSIM constants and Gaussian taps the shared header spells as literals;
//  - the term-row layout the twins sum (iqa::window_term_rows): each row added in order from 0
//    gives ssim_means' sums, so means_from_sums of them is the CPU's means, bit for bit;
//  - the twins' decomposition run on the host (iqa_twin.hpp: the kernels' per-thread functions,
//    in the kernels' order, with separate buffers per pyramid level, and a plain sequential sum
//    of each row standing for gpu::SequentialSum) gives the CPU extractors' outputs bit for bit
//    at odd sizes down to each metric's minimum, every bit depth, every option;
//  - each planted regression, run the same way, changes an output on the parity gate's random
//    inputs (parity::random_inputs(dir, 1, 5), the planted-defect test's) with the gate's cases.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/common/iqa.hpp"
#include "feature/common/iqa_twin.hpp"
#include "feature/float_ms_ssim/float_ms_ssim.hpp"
#include "feature/float_ms_ssim/float_ms_ssim_twin.hpp"
#include "feature/float_ssim/float_ssim.hpp"
#include "feature/float_ssim/float_ssim_twin.hpp"
#include "gpu/sequential_sum_core.hpp"
#include "parity/inputs.hpp"
#include "pictures.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using iqa::kRowC;
using iqa::kRowL;
using iqa::kRowLcs;
using iqa::kRowS;
using iqa::kTermRows;

TEST(FloatSsimCuda, ConstantsAndTapsAreUpstreams) {
    volatile float k1 = 0.01f, k2 = 0.03f;
    volatile int l = 255;
    const float c1 = (k1 * l) * (k1 * l), c2 = (k2 * l) * (k2 * l);
    EXPECT_EQ(iqa::kC1, c1);
    EXPECT_EQ(iqa::kC2, c2);
    EXPECT_EQ(iqa::kC3, c2 / 2.0f);
    const float upstream[iqa::kGaussianLen] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                                               0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};
    for (int k = 0; k < iqa::kGaussianLen; ++k) EXPECT_EQ(iqa::gaussian_tap(k), upstream[k]) << k;
}

/// w x h floats: random samples of `bits` bits as picture_copy gives them (/ 4, 16, 256).
std::vector<float> random_floats(int w, int h, int bits, std::uint32_t seed) {
    test::Random rng(seed);
    const float scaler = bits == 10 ? 4.0f : bits == 12 ? 16.0f : bits == 16 ? 256.0f : 0.0f;
    std::vector<float> out(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    for (float& v : out) v = iqa::sample_float(rng.below(1u << bits), scaler);
    return out;
}

// The rows the twins sum: each added in order from 0 (what gpu::SequentialSum reproduces) gives
// ssim_means' running sums, so the means are the CPU's bits.
TEST(FloatSsimCuda, TermRowsSummedInOrderGiveTheCpuMeans) {
    for (const auto& [w, h] : {std::pair{11, 11}, std::pair{12, 17}, std::pair{37, 29}, std::pair{64, 48}}) {
        for (const int bits : {8, 16}) {
            SCOPED_TRACE(fmt::format("{}x{} {} bits", w, h, bits));
            const std::vector<float> ref = random_floats(w, h, bits, 7u + static_cast<unsigned>(w));
            std::vector<float> cmp = ref;
            test::Random rng(99);
            for (float& v : cmp) v += static_cast<float>(rng.below(9)) - 4.0f;
            const std::size_t windows = static_cast<std::size_t>(iqa::ssim_windows(w, h));
            const std::size_t pitch = windows + 7;
            std::vector<double> rows(kTermRows * pitch, -1.0);
            iqa::window_term_rows(ref.data(), cmp.data(), w, h, rows.data(), pitch);
            iqa::TermSums sums{};
            for (int r = 0; r < kTermRows; ++r)
                for (std::size_t i = 0; i < windows; ++i) sums[r] += rows[r * pitch + i];
            const iqa::SsimMeans got = iqa::means_from_sums(sums, w, h);
            const iqa::SsimMeans want = iqa::ssim_means(ref.data(), cmp.data(), w, h);
            EXPECT_EQ(got.ssim, want.ssim);
            EXPECT_EQ(got.l, want.l);
            EXPECT_EQ(got.c, want.c);
            EXPECT_EQ(got.s, want.s);
        }
    }
}

/// Chunks of SequentialSum's emulation over the model's rows, and those it added one by one.
std::size_t g_chunks = 0, g_sequential = 0;

/// The twin's pipeline on the host (iqa_cuda.cuh's SsimPipeline::enqueue, kernel by kernel:
/// sample_float, filter_pixel into a buffer per level, horizontal_at, terms_at) with each formed
/// row summed in order from 0: the sums of each scored level.
std::vector<iqa::TermSums> model_sums(const iqa::TwinPlan& plan, const Picture& ref, const Picture& dist,
                                      int bit_depth, iqa::Plant plant) {
    const int w0 = ref.luma().width(), h0 = ref.luma().height();
    const float scaler = bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : bit_depth == 16 ? 256.0f : 0.0f;
    std::vector<std::array<int, 2>> size = {{w0, h0}};
    std::vector<std::vector<float>> r(1), c(1);
    for (int p = 0; p < 2; ++p) {
        const Plane& plane = (p == 0 ? ref : dist).luma();
        std::vector<float>& dst = p == 0 ? r[0] : c[0];
        dst.resize(static_cast<std::size_t>(w0) * static_cast<std::size_t>(h0));
        for (int y = 0; y < h0; ++y)
            for (int x = 0; x < w0; ++x)
                dst[static_cast<std::size_t>(y) * w0 + x] =
                    iqa::sample_float(bit_depth == 8 ? plane.row<std::uint8_t>(y)[x] : plane.row<std::uint16_t>(y)[x],
                                      scaler);
    }
    for (int k = 1; k < plan.levels; ++k) {
        const auto [pw, ph] = size[k - 1];
        const int sw = iqa::decimated_size(pw, plan.factor), sh = iqa::decimated_size(ph, plan.factor);
        size.push_back({sw, sh});
        r.emplace_back(static_cast<std::size_t>(sw) * sh);
        c.emplace_back(static_cast<std::size_t>(sw) * sh);
        for (int y = 0; y < sh; ++y)
            for (int x = 0; x < sw; ++x) {
                r[k][static_cast<std::size_t>(y) * sw + x] = iqa::decimate_at(
                    r[k - 1].data(), pw, ph, x * plan.factor, y * plan.factor, plan.taps.data(), plan.klen,
                    plant.mirror_shift);
                c[k][static_cast<std::size_t>(y) * sw + x] = iqa::decimate_at(
                    c[k - 1].data(), pw, ph, x * plan.factor, y * plan.factor, plan.taps.data(), plan.klen,
                    plant.mirror_shift);
            }
    }
    std::vector<iqa::TermSums> out;
    for (const int k : plan.scored) {
        const auto [w, h] = size[k];
        const int dw = w - iqa::kGaussianLen + 1, dh = h - iqa::kGaussianLen + 1;
        const std::size_t plane = static_cast<std::size_t>(dw) * h + 5;  // not packed: as the twin's padded planes
        std::vector<float> maps(iqa::kMaps * plane, -1.0f);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < dw; ++x) iqa::horizontal_at(r[k].data(), c[k].data(), w, x, y, maps.data(), plane, plant);
        const std::size_t pitch = static_cast<std::size_t>(dw) * dh + 3;
        std::vector<double> rows(kTermRows * pitch, -1.0);
        for (int y = 0; y < dh; ++y)
            for (int x = 0; x < dw; ++x)
                iqa::terms_at(maps.data(), plane, dw, x, y, rows.data(), pitch, plan.row_mask(), plant);
        iqa::TermSums sums{};
        const std::size_t windows = static_cast<std::size_t>(dw) * dh;
        for (int row = plan.first_row; row < plan.first_row + plan.row_count; ++row) {
            for (std::size_t i = 0; i < windows; ++i) sums[row] += rows[row * pitch + i];
            // gpu::SequentialSum's method (its host emulation, the device's chunking) on the row.
            gpu::seqsum::SeqStats stats;
            const double emulated = gpu::seqsum::seq_emulate<double>(rows.data() + row * pitch, windows, &stats);
            EXPECT_EQ(emulated, sums[row]) << "row " << row << " of " << windows << " terms";
            g_chunks += stats.chunks;
            g_sequential += stats.sequential;
        }
        out.push_back(sums);
    }
    return out;
}

/// One frame's outputs from the host model of the twin of `metric` (finish()'s host code).
FrameScores model_frame(const MetricDescriptor& metric, const Options& options, const Picture& ref,
                        const Picture& dist, const VideoFormat& format, PlantedDefect defect) {
    FrameScores out;
    const iqa::Plant plant = iqa::Plant::of(defect);
    if (&metric == &float_ssim::descriptor) {
        const float_ssim::Settings settings(options);
        const int factor = settings.checked_factor(format);
        const std::vector<iqa::TermSums> sums =
            model_sums(iqa::float_ssim_plan(settings, factor), ref, dist, format.bit_depth, plant);
        const int sw = factor > 1 ? iqa::decimated_size(format.width, factor) : format.width;
        const int sh = factor > 1 ? iqa::decimated_size(format.height, factor) : format.height;
        settings.write_frame(iqa::means_from_sums(sums[0], sw, sh),
                             iqa::max_db(settings.clip_db, format.bit_depth, format.width, format.height), out);
    } else {
        const float_ms_ssim::Settings settings(options);
        metric.check(options, format);
        const std::vector<iqa::TermSums> sums =
            model_sums(iqa::float_ms_ssim_plan(), ref, dist, format.bit_depth, plant);
        std::array<iqa::SsimMeans, float_ms_ssim::kScales> means;
        for (int k = 0; k < float_ms_ssim::kScales; ++k) {
            const auto [w, h] = float_ms_ssim::scale_size(format.width, format.height, k);
            means[k] = iqa::means_from_sums(sums[k], w, h);
        }
        settings.write_frame(means, iqa::max_db(settings.clip_db, format.bit_depth, format.width, format.height), 0,
                             out);
    }
    return out;
}

FrameScores cpu_frame(const MetricDescriptor& metric, const Options& options, const Picture& ref, const Picture& dist,
                      const VideoFormat& format) {
    FrameScores out;
    metric.make_extractor(options, format)->extract(FrameInput{0, &ref, &dist}, out);
    return out;
}

/// Number of outputs whose bits differ (an output on one side only counts too).
int differences(const FrameScores& want, const FrameScores& got, bool report) {
    int n = want.size() == got.size() ? 0 : 1;
    if (report) {
        EXPECT_EQ(want.size(), got.size());
    }
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
        const bool same = want[i].first == got[i].first &&
                          (want[i].second == got[i].second || (want[i].second != want[i].second && got[i].second != got[i].second));
        if (!same) ++n;
        if (report) {
            EXPECT_TRUE(same) << want[i].first << ": cpu " << fmt::format("{:.17g}", want[i].second) << ", model "
                              << got[i].first << " " << fmt::format("{:.17g}", got[i].second);
        }
    }
    return n;
}

const std::vector<OptionValues>& option_sets(const MetricDescriptor& metric) {
    static const std::vector<OptionValues> ssim = {
        {}, {{"enable_lcs", "true"}}, {{"enable_db", "true"}}, {{"enable_db", "true"}, {"clip_db", "true"}},
        {{"scale", "1"}, {"enable_lcs", "true"}}, {{"scale", "2"}, {"enable_lcs", "true"}},
        {{"scale", "3"}, {"enable_lcs", "true"}}, {{"scale", "10"}}};
    static const std::vector<OptionValues> ms = {
        {}, {{"enable_lcs", "true"}}, {{"enable_db", "true"}}, {{"enable_db", "true"}, {"clip_db", "true"}}};
    return &metric == &float_ssim::descriptor ? ssim : ms;
}

// The kernels' decomposition on the host gives the CPU extractors' outputs bit for bit: odd and
// even sizes down to each metric's minimum (float_ssim 11x11; float_ms_ssim 176x176), every bit
// depth, every option, content that mixes random, smooth, constant and extreme pictures.
TEST(FloatSsimCuda, KernelDecompositionOnTheHostIsTheCpu) {
    struct Size {
        const MetricDescriptor* metric;
        int w, h;
    };
    const Size sizes[] = {{&float_ssim::descriptor, 11, 11},    {&float_ssim::descriptor, 13, 24},
                          {&float_ssim::descriptor, 45, 33},    {&float_ssim::descriptor, 111, 67},
                          {&float_ms_ssim::descriptor, 176, 176}, {&float_ms_ssim::descriptor, 183, 177}};
    for (const Size& s : sizes) {
        for (const int bits : {8, 10, 12, 16}) {
            const VideoFormat format{s.w, s.h, bits, Subsampling::k420};
            const test::Clip clip = test::synthetic_clip(format, s.metric == &float_ssim::descriptor ? 6 : 2, 3);
            for (const OptionValues& values : option_sets(*s.metric)) {
                const Options options = s.metric->parse_options(values);
                for (unsigned i = 0; i < clip.frames(); ++i) {
                    SCOPED_TRACE(fmt::format("{} {}x{} {} bits frame {} {}", s.metric->name, s.w, s.h, bits, i,
                                             options.key()));
                    FrameScores want;
                    try {
                        want = cpu_frame(*s.metric, options, clip.ref[i], clip.dist[i], format);
                    } catch (const Error&) {
                        // The CPU refuses (a scale too large for the size): the twin refuses the same way.
                        EXPECT_THROW(model_frame(*s.metric, options, clip.ref[i], clip.dist[i], format,
                                                 PlantedDefect::kNone),
                                     Error);
                        continue;
                    }
                    differences(want, model_frame(*s.metric, options, clip.ref[i], clip.dist[i], format,
                                                  PlantedDefect::kNone),
                                true);
                }
            }
        }
    }
    std::cout << "SequentialSum emulation: " << g_sequential << " of " << g_chunks << " chunks added one by one\n";
}

/// Luma of frame `frame` of a raw planar file of `format`.
Picture read_luma(const std::string& path, const VideoFormat& format, unsigned frame) {
    std::size_t frame_bytes = 0;
    for (int p = 0; p < 3; ++p)
        frame_bytes += static_cast<std::size_t>(format.plane_width(p)) * format.plane_height(p) * format.bytes_per_sample();
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(frame_bytes * frame));
    Picture pic(format);
    std::vector<unsigned char> row(static_cast<std::size_t>(format.width) * format.bytes_per_sample());
    for (int y = 0; y < format.height; ++y) {
        in.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(row.size()));
        for (int x = 0; x < format.width; ++x)
            test::set_sample(pic.luma(), x, y,
                             format.bit_depth > 8 ? row[2 * x] | (row[2 * x + 1] << 8) : row[static_cast<std::size_t>(x)]);
    }
    EXPECT_TRUE(in.good()) << path;
    return pic;
}

// The same on the fixtures up to 1280x720 and autumn_1920x1080 (frame 0, defaults and enable_lcs): long rows of
// real content, where SequentialSum's method must still give the CPU's sums; prints how many of
// its chunks fall back to one-by-one adds (the device's slow path).
TEST(FloatSsimCuda, KernelDecompositionOnTheFixtures) {
    VMAFX_REQUIRE_FIXTURES();
    for (const ParityInput& input : fixture_inputs(test::fixtures_dir().string())) {
        const VideoFormat& format = *input.raw_format;
        // Every fixture up to 1280x720, and one of 1920x1080 (the others add time, not cases).
        if (static_cast<long>(format.width) * format.height > 1280L * 720L && input.label != "autumn_1920x1080_420p8")
            continue;
        const Picture ref = read_luma(input.reference_path, format, 0);
        const Picture dist = read_luma(input.distorted_path, format, 0);
        for (const MetricDescriptor* metric : {&float_ssim::descriptor, &float_ms_ssim::descriptor}) {
            if (format.width < metric->limits.min_width || format.height < metric->limits.min_height) continue;
            std::vector<OptionValues> sets = {{}, {{"enable_lcs", "true"}}};
            if (metric == &float_ssim::descriptor) sets.push_back({{"enable_lcs", "true"}, {"scale", "1"}});
            for (const OptionValues& values : sets) {
                const Options options = metric->parse_options(values);
                SCOPED_TRACE(input.label + " " + metric->name + " " + options.key());
                differences(cpu_frame(*metric, options, ref, dist, format),
                            model_frame(*metric, options, ref, dist, format, PlantedDefect::kNone), true);
            }
        }
        std::cout << input.label << ": SequentialSum emulation added " << g_sequential << " of " << g_chunks
                  << " chunks one by one so far\n";
    }
}

class FloatSsimCudaPlanted : public test::TempDirTest {};

// Each planted regression, run through the host model, changes at least one output of the
// parity gate's planted-defect inputs (random_inputs(dir, 1, 5): four frames at each bit depth)
// under the gate's cases for the metric (defaults, each option at its corners); the model
// without a defect is the CPU. Prints how many (case, input, frame) outputs each defect moves.
TEST_F(FloatSsimCudaPlanted, EachDefectChangesAnOutputOnTheGatesInputs) {
    const std::vector<ParityInput> inputs = random_inputs(dir_.string(), 1, 5);
    for (const MetricDescriptor* metric : {&float_ssim::descriptor, &float_ms_ssim::descriptor}) {
        std::vector<OptionValues> cases = {{}, {{"enable_lcs", "true"}}, {{"enable_db", "true"}}, {{"clip_db", "true"}}};
        if (metric == &float_ssim::descriptor) cases.push_back({{"scale", "10"}});
        for (const PlantedDefect defect :
             {PlantedDefect::kContraction, PlantedDefect::kMirrorShift, PlantedDefect::kRoundingConstant}) {
            int moved = 0, compared = 0;
            for (const ParityInput& input : inputs) {
                const VideoFormat& format = *input.raw_format;
                for (const OptionValues& values : cases) {
                    const Options options = metric->parse_options(values);
                    for (unsigned frame = 0; frame < 4; ++frame) {
                        const Picture ref = read_luma(input.reference_path, format, frame);
                        const Picture dist = read_luma(input.distorted_path, format, frame);
                        FrameScores want;
                        try {
                            want = cpu_frame(*metric, options, ref, dist, format);
                        } catch (const Error&) {
                            continue;  // below the metric's limits, as the gate skips it
                        }
                        if (defect == PlantedDefect::kContraction)  // once per frame: the control
                            differences(want, model_frame(*metric, options, ref, dist, format, PlantedDefect::kNone),
                                        true);
                        const FrameScores planted = model_frame(*metric, options, ref, dist, format, defect);
                        ++compared;
                        if (differences(want, planted, false) > 0) ++moved;
                    }
                }
            }
            std::cout << "[ " << metric->name << " ] planted " << planted_defect_name(defect) << " moves " << moved
                      << " of " << compared << " frames\n";
            EXPECT_GT(moved, 0) << metric->name << ": " << planted_defect_name(defect);
        }
    }
}

}  // namespace
}  // namespace vmafx
