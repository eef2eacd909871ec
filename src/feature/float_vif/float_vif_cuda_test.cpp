// The CUDA twin of float_vif (float_vif_cuda.cu) beyond the registry-driven twin suites
// (test_twins.cpp, the parity gate):
//  - on the host (runs everywhere, CI included): the kernels' per-thread functions
//    (float_vif_twin.hpp), run in the kernels' decomposition (decimation as the vertical pass at
//    even rows then the horizontal pass at even columns, the five maps' vertical pass, then each
//    sample's horizontal pass and terms, row sums, then the rows' sum), give the CPU's
//    compute_vif bit for bit at many sizes and option sets, and each planted regression changes
//    a sum; log2_approx equals a plain transcription of upstream's log2f_approx on every 97th
//    float and every float in [1, 2) (the arguments the metric gives it are >= 1, or NaN / inf);
//    sigma_max_inv_of is (double)(s * s) / 65025 as GCC compiled upstream's powf(s, 2.0f);
//  - on a CUDA device (skips without one): the device's log2_approx against the host's over all
//    2^32 floats (0 differing inputs), and twin runs at formats the sweep does not reach.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "feature/common/float_image.hpp"
#include "feature/float_vif/float_vif.hpp"
#include "feature/float_vif/float_vif_math.hpp"
#include "feature/float_vif/float_vif_twin.hpp"
#include "pictures.hpp"
#include "test_support.hpp"
#include "twin_support.hpp"

namespace vmafx {
namespace {

using floatimg::Image;

// The twin's pipeline on the host, in its kernels' decomposition (float_vif_cuda.cu), with the
// plant of `defect`.
float_vif::ScaleSums emulate_twin(const Image& ref, const Image& dis, const float_vif::Settings& settings,
                                  PlantedDefect defect = PlantedDefect::kNone) {
    const float_vif::Plant plant = float_vif::Plant::of(defect);
    const float ks = static_cast<float>(settings.kernelscale);
    const float limit = static_cast<float>(settings.gain_limit);
    const float smi = float_vif::sigma_max_inv_of(settings.sigma_nsq);
    std::vector<float> cur_ref(ref.data.begin(), ref.data.end());
    std::vector<float> cur_dis(dis.data.begin(), dis.data.end());
    int w = ref.width, h = ref.height;
    float_vif::ScaleSums sums{};
    for (int sc = settings.skip_scale0 ? 1 : 0; sc < 4; ++sc) {
        const std::vector<float> f = floatimg::vif_filter(sc, ks);
        const int fw = static_cast<int>(f.size());
        if (sc > 0) {
            const int w2 = w / 2, h2 = h / 2;
            for (std::vector<float>* img : {&cur_ref, &cur_dis}) {
                std::vector<float> tmp(static_cast<std::size_t>(w) * h2);
                for (int i = 0; i < h2; ++i)
                    for (int x = 0; x < w; ++x)
                        tmp[static_cast<std::size_t>(i) * w + x] =
                            float_vif::vertical_plain_at(img->data(), w, h, x, 2 * i, f.data(), fw);
                std::vector<float> next(static_cast<std::size_t>(w2) * h2);
                for (int i = 0; i < h2; ++i)
                    for (int j = 0; j < w2; ++j)
                        next[static_cast<std::size_t>(i) * w2 + j] = float_vif::horizontal_at(
                            tmp.data() + static_cast<std::size_t>(i) * w, w, 2 * j, f.data(), fw, false, false);
                *img = std::move(next);
            }
            w = w2;
            h = h2;
        }
        const std::size_t plane = static_cast<std::size_t>(w) * h;
        std::vector<float> maps(float_vif::kMaps * plane), terms(2 * plane);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                float_vif::vertical_maps_at(cur_ref.data(), cur_dis.data(), w, h, x, y, f.data(), fw, maps.data(), plane,
                                            plant.fma);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                float_vif::terms_at(maps.data(), plane, w, h, x, y, f.data(), fw, limit, settings.sigma_nsq, smi,
                                    terms.data(), plant.mirror, plant.toward_zero);
        float num = 0.0f, den = 0.0f;
        for (int y = 0; y < h; ++y) {
            const float* nrow = terms.data() + static_cast<std::size_t>(y) * w;
            const float* drow = terms.data() + static_cast<std::size_t>(h + y) * w;
            float rn = 0.0f, rd = 0.0f;
            if (plant.order) {
                rn = float_vif::reversed_row_sum(nrow, w);
                rd = float_vif::reversed_row_sum(drow, w);
            } else {
                for (int x = 0; x < w; ++x) {
                    rn += nrow[x];
                    rd += drow[x];
                }
            }
            num += rn;
            den += rd;
        }
        sums[2 * static_cast<std::size_t>(sc)] = num;
        sums[2 * static_cast<std::size_t>(sc) + 1] = den;
    }
    return sums;
}

// A w x h float picture minus 128 of 8-bit samples: smooth gradients with noise of `noise`.
Image picture(int w, int h, std::uint32_t seed, int noise) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> n(-noise, noise);
    Image img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int v = std::clamp((x * 7 + y * 3) % 256 + (noise ? n(rng) : 0), 0, 255);
            img.row(y)[x] = static_cast<float>(v) - 128.0f;
        }
    return img;
}

// A distorted copy: blurred-ish and noisy, with a flat patch (the linear term) and a negated
// patch (a negative covariance).
Image distort(const Image& ref, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> n(-6, 6);
    Image d(ref.width, ref.height);
    for (int y = 0; y < ref.height; ++y)
        for (int x = 0; x < ref.width; ++x) {
            float v = ref.row(y)[x] + static_cast<float>(n(rng));
            if (x < ref.width / 4 && y < ref.height / 4) v = 3.0f;
            if (x > ref.width * 3 / 4 && y > ref.height * 3 / 4) v = -ref.row(y)[x];
            d.row(y)[x] = std::clamp(v, -128.0f, 127.0f);
        }
    return d;
}

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

const std::vector<OptionValues>& option_sets() {
    static const std::vector<OptionValues> sets = {
        {},
        {{"vif_skip_scale0", "true"}},
        {{"vif_kernelscale", "0.5"}},
        {{"vif_kernelscale", "1.5"}},
        {{"vif_kernelscale", "3.71134"}, {"vif_skip_scale0", "true"}},
        {{"vif_sigma_nsq", "0.5"}, {"vif_enhn_gain_limit", "1"}},
        {{"vif_sigma_nsq", "0"}},
        {{"vif_sigma_nsq", "5"}, {"vif_enhn_gain_limit", "1.5"}},
    };
    return sets;
}

TEST(FloatVifTwinHost, KernelDecompositionGivesTheCpuSums) {
    const std::array<std::array<int, 2>, 4> sizes{{{16, 16}, {37, 23}, {64, 48}, {131, 67}}};
    int compared = 0;
    for (const OptionValues& values : option_sets()) {
        const float_vif::Settings settings(float_vif::descriptor.parse_options(values));
        for (const auto& [w, h] : sizes) {
            try {
                settings.check(w, h);
            } catch (const Error&) {
                continue;  // too small for this kernel scale
            }
            for (const int noise : {0, 3, 40}) {
                SCOPED_TRACE(fmt::format("{} {}x{} noise {}", test::option_label(values), w, h, noise));
                const Image ref = picture(w, h, 7u + static_cast<unsigned>(w), noise);
                const Image dis = distort(ref, 11u + static_cast<unsigned>(h));
                const float_vif::ScaleSums want = float_vif::compute_vif(ref, dis, settings);
                const float_vif::ScaleSums got = emulate_twin(ref, dis, settings);
                for (std::size_t i = 0; i < want.size(); ++i)
                    EXPECT_EQ(bits(want[i]), bits(got[i])) << "sum " << i << ": " << want[i] << " vs " << got[i];
                ++compared;
            }
        }
    }
    EXPECT_GE(compared, 60);
}

// Each plant changes a sum (the parity gate's breach needs one changed output bit).
TEST(FloatVifTwinHost, EachPlantChangesASum) {
    const float_vif::Settings settings(float_vif::descriptor.parse_options({}));
    const Image ref = picture(64, 48, 3, 20);
    const Image dis = distort(ref, 5);
    const float_vif::ScaleSums want = float_vif::compute_vif(ref, dis, settings);
    for (const PlantedDefect d : {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                  PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder}) {
        const float_vif::ScaleSums got = emulate_twin(ref, dis, settings, d);
        int changed = 0;
        for (std::size_t i = 0; i < want.size(); ++i) changed += bits(want[i]) != bits(got[i]);
        EXPECT_GT(changed, 0) << planted_defect_name(d);
    }
}

// The twin's rescaling (floatimg::scaled_sample over floatimg::scale_taps' tables) is the CPU scaler, every
// method, shrinking and enlarging, at odd sizes.
TEST(FloatVifTwinHost, ScaledAtIsTheCpuScaler) {
    using floatimg::ScaleMethod;
    const Image src = picture(71, 49, 9, 30);
    int compared = 0;
    for (const ScaleMethod method :
         {ScaleMethod::kNearest, ScaleMethod::kBilinear, ScaleMethod::kBicubic, ScaleMethod::kLanczos4})
        for (const auto& [dw, dh] : std::vector<std::array<int, 2>>{{36, 25}, {107, 74}, {53, 37}, {284, 196}}) {
            SCOPED_TRACE(fmt::format("method {} to {}x{}", static_cast<int>(method), dw, dh));
            const Image want = floatimg::scale(method, src, dw, dh);
            const floatimg::ScaleTaps x = floatimg::scale_taps(method, src.width, dw);
            const floatimg::ScaleTaps y = floatimg::scale_taps(method, src.height, dh);
            ASSERT_EQ(x.taps, y.taps);
            int differing = 0;
            for (int j = 0; j < dh; ++j)
                for (int i = 0; i < dw; ++i) {
                    const float got = floatimg::scaled_sample(src.data.data(), src.width, i, j, x.index.data(),
                                                           x.weight.data(), y.index.data(), y.weight.data(), x.taps);
                    differing += std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want.at(i, j));
                }
            EXPECT_EQ(differing, 0);
            ++compared;
        }
    EXPECT_EQ(compared, 16);
}

// Upstream's log2f_approx as upstream writes it (decimal literals, an array, memcpy), for the
// comparison with the shared-subset version.
float upstream_log2f_approx(float x) {
    static const float kPoly[9] = {-0.012671635276421f, 0.064841182402670f, -0.157048836463065f,
                                   0.257167726303123f,  -0.353800560300520f, 0.480131410397451f,
                                   -0.721314327952201f, 1.442694803896991f,  0.0f};
    if (x == 0) return -INFINITY;
    if (x < 0) return NAN;
    std::uint32_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    const std::uint32_t mant_one = (u & 0x007FFFFFu) | 0x3F800000u;
    float remain = 0.0f;
    std::memcpy(&remain, &mant_one, sizeof remain);
    const float log_base = static_cast<float>(static_cast<std::int32_t>((u & 0x7F800000u) >> 23) - 127);
    const float t = remain - 1.0f;
    float v = 0;
    for (float c : kPoly) v = v * t + c;
    return log_base + v;
}

TEST(FloatVifMath, Log2ApproxIsUpstreamsOnEvery97thFloatAndAllOfOneToTwo) {
    std::uint64_t checked = 0, differing = 0;
    const auto check = [&](std::uint32_t b) {
        const float x = std::bit_cast<float>(b);
        differing += std::bit_cast<std::uint32_t>(float_vif::log2_approx(x)) !=
                     std::bit_cast<std::uint32_t>(upstream_log2f_approx(x));
        ++checked;
    };
    for (std::uint64_t b = 0; b <= 0xFFFFFFFFu; b += 97) check(static_cast<std::uint32_t>(b));
    for (std::uint32_t b = 0x3F800000u; b < 0x40000000u; ++b) check(b);
    for (const std::uint32_t b : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x00000001u})
        check(b);
    EXPECT_EQ(checked, 44278014u + 8388608u + 6u);
    EXPECT_EQ(differing, 0u) << "of " << checked;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(float_vif::log2_approx(0.0f)), 0xFF800000u);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(float_vif::log2_approx(-1.0f)), 0x7FC00000u);
    EXPECT_EQ(float_vif::log2_approx(1.0f), 0.0f);
    EXPECT_EQ(float_vif::log2_approx(8.0f), 3.0f);
}

// The coefficients and eps of float_vif_math.hpp, written as exact decimals, are the floats of
// upstream's decimal literals.
TEST(FloatVifMath, ConstantsAreUpstreamsFloats) {
    EXPECT_EQ(float_vif::kEps, 1.0e-10f);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(float_vif::kEps), 0x2edbe6ffu);
}

// sigma_max_inv_of(s) = float((double)(s * s) / (255.0 * 255.0)): the float product GCC makes of
// powf(s, 2.0f); over the option's range the float square is also what a correctly rounded
// power gives (checked against the exact square in double, every 97th float of [0, 5]).
TEST(FloatVifMath, SigmaMaxInvIsTheFloatSquare) {
    for (std::uint32_t b = 0; b <= std::bit_cast<std::uint32_t>(5.0f); b += 97) {
        const float s = std::bit_cast<float>(b);
        const double exact = static_cast<double>(s) * static_cast<double>(s);  // exact: 48 bits
        const float want = static_cast<float>(static_cast<double>(static_cast<float>(exact)) / (255.0 * 255.0));
        ASSERT_EQ(std::bit_cast<std::uint32_t>(float_vif::sigma_max_inv_of(s)), std::bit_cast<std::uint32_t>(want))
            << s;
    }
    EXPECT_EQ(float_vif::sigma_max_inv_of(2.0), static_cast<float>(4.0 / 65025.0));
}

// At vif_sigma_nsq 0 a flat reference (s1 = 0) gives the denominator's argument 1 + 0 / 0: on
// x86 the default NaN 0xfff8000000000000, kept by the add and converted to the float
// 0xffc00000, whose bits log2_approx reads (exponent field 255: 128 + p(0.5)). x86_nan pins that
// NaN, so the device (whose NaNs are positive) and the CPU agree.
TEST(FloatVifMath, TheNanArgumentIsX86s) {
    volatile double zero = 0.0;
    const double q = zero / zero;
    const float arg = static_cast<float>(1.0 + q);
#if defined(__x86_64__)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(q), 0xfff8000000000000u);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(arg), 0xffc00000u);
#endif
    EXPECT_EQ(std::bit_cast<std::uint32_t>(float_vif::x86_nan(arg)), 0xffc00000u);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(float_vif::x86_nan(std::bit_cast<float>(0x7fffffffu))), 0xffc00000u);
    EXPECT_EQ(float_vif::x86_nan(1.5f), 1.5f);
    const float_vif::SampleTerms t = float_vif::sample_terms(3.0f, 3.0f, 9.0f, 9.0f, 9.0f, 100.0f, 0.0, 0.0f);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(t.den),
              std::bit_cast<std::uint32_t>(float_vif::log2_approx(std::bit_cast<float>(0xffc00000u))));
    EXPECT_GT(t.den, 128.0f);
    EXPECT_LT(t.den, 129.0f);
}

// --- on a CUDA device ---

// The device's log2_approx equals the host's on every one of the 2^32 floats.
TEST(FloatVifCuda, Log2ApproxOnAllFloats) {
    VMAFX_REQUIRE_GPU();
#ifdef VMAFX_HAVE_CUDA
    constexpr std::size_t kChunk = std::size_t{1} << 28;
    std::vector<float> device(kChunk), host(kChunk);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::uint64_t differing = 0;
    std::uint32_t first_differing = 0;
    for (std::uint64_t start = 0; start < (std::uint64_t{1} << 32); start += kChunk) {
        const auto first = static_cast<std::uint32_t>(start);
        float_vif::device_log2_approx(first, kChunk, device.data());
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                for (std::size_t i = t; i < kChunk; i += threads)
                    host[i] = float_vif::log2_approx(std::bit_cast<float>(first + static_cast<std::uint32_t>(i)));
            });
        for (std::thread& th : pool) th.join();
        for (std::size_t i = 0; i < kChunk; ++i)
            if (std::bit_cast<std::uint32_t>(device[i]) != std::bit_cast<std::uint32_t>(host[i])) {
                if (differing == 0) first_differing = first + static_cast<std::uint32_t>(i);
                ++differing;
            }
    }
    EXPECT_EQ(differing, 0u) << "first differing input bits 0x" << std::hex << first_differing;
#endif
}

// Formats and options beyond the sweep: 9- and 15-bit (read byte by byte), 16-bit, odd sizes
// with every scale odd, vif_sigma_nsq 0 (infinite and NaN arguments of the logarithm), several
// frames in flight.
TEST(FloatVifCuda, MatchesTheCpuAtFormatsBeyondTheSweep) {
    VMAFX_REQUIRE_GPU();
    const std::vector<std::pair<VideoFormat, OptionValues>> cases = {
        {{67, 45, 9, Subsampling::k420}, {{"debug", "true"}}},
        {{67, 45, 15, Subsampling::k444}, {{"debug", "true"}}},
        {{96, 64, 16, Subsampling::k420}, {{"debug", "true"}, {"vif_skip_scale0", "true"}}},
        {{135, 77, 8, Subsampling::k422}, {{"debug", "true"}, {"vif_sigma_nsq", "0"}}},
        {{135, 77, 10, Subsampling::k420}, {{"debug", "true"}, {"vif_kernelscale", "1.5"}}},
        {{128, 72, 12, Subsampling::k420}, {{"debug", "true"}, {"vif_prescale", "1.003"}}},
    };
    for (const auto& [format, values] : cases) {
        SCOPED_TRACE(fmt::format("{} {}", test::format_label(format), test::option_label(values)));
        const test::Clip clip = test::synthetic_clip(format, 5, 21);
        EXPECT_TRUE(test::expect_twin_matches_cpu(float_vif::descriptor, values, clip, 3));
    }
}

// Every prescale method, shrinking and enlarging, at odd sizes and several depths.
TEST(FloatVifCuda, MatchesTheCpuAtEveryPrescaleMethod) {
    VMAFX_REQUIRE_GPU();
    for (const char* method : {"nearest", "bilinear", "bicubic", "lanczos4"})
        for (const char* prescale : {"0.5", "1.5", "0.75"})
            for (const int bits : {8, 10}) {
                const VideoFormat format{71, 49, bits, Subsampling::k420};
                const OptionValues values{{"debug", "true"}, {"vif_prescale", prescale}, {"vif_prescale_method", method}};
                SCOPED_TRACE(fmt::format("{} {}", test::format_label(format), test::option_label(values)));
                const test::Clip clip = test::synthetic_clip(format, 2, 17);
                EXPECT_TRUE(test::expect_twin_matches_cpu(float_vif::descriptor, values, clip, 2));
            }
}

}  // namespace
}  // namespace vmafx
