// The arithmetic of SpEED's CUDA twins (speed_cuda.cuh) proven on the host: the per-sample
// functions the kernels run (speed_twin.hpp), walked over a picture as the kernels' threads walk
// it, give the CPU reference's band-pass picture bit for bit (speed::band_pass: the rescale of
// floatimg::scale, the anti-alias convolve() and its decimation, the local-mean band-pass), at
// every speed_prescale method and several kernel scales and sizes; and each planted defect
// changes it. Runs without a GPU (the kernels add only their thread indexing).
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "feature/common/float_image.hpp"
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_twin.hpp"

namespace vmafx {
namespace {

/// A w x h picture of float samples as picture_copy makes them from random `bits`-bit samples.
std::vector<float> random_picture(int w, int h, int bits, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::int32_t> sample(0, (1 << bits) - 1);
    const float scaler = bits == 8 ? 0.0f : static_cast<float>(1 << (bits - 8));
    std::vector<float> out(static_cast<std::size_t>(w) * h);
    for (float& v : out) v = floatimg::picture_copy_sample(sample(rng), scaler, -128.0f);
    return out;
}

/// The twin's steps 1-3 on the host: speed_cuda.cuh's BandPass::enqueue, each kernel's thread
/// loop written as a loop over its outputs calling the same function.
std::vector<float> twin_band_pass(const speed::Geometry& g, const speed::Params& p, const std::vector<float>& picture,
                                  speed::TwinPlant plant) {
    const bool rescale = !(std::fabs(p.prescale - 1.0) < 1.0e-3) &&
                         (g.scaled_width != g.width || g.scaled_height != g.height);
    std::vector<float> scaled;
    const float* src = picture.data();
    int stride = g.width;
    if (rescale) {
        const floatimg::ScaleTaps x = floatimg::scale_taps(p.method, g.width, g.scaled_width);
        const floatimg::ScaleTaps y = floatimg::scale_taps(p.method, g.height, g.scaled_height);
        scaled.resize(static_cast<std::size_t>(g.scaled_width) * g.scaled_height);
        for (int yy = 0; yy < g.scaled_height; ++yy)
            for (int xx = 0; xx < g.scaled_width; ++xx)
                scaled[static_cast<std::size_t>(yy) * g.scaled_width + xx] =
                    floatimg::scaled_sample(src, stride, xx, yy, x.index.data(), x.weight.data(), y.index.data(),
                                         y.weight.data(), x.taps);
        src = scaled.data();
        stride = g.scaled_width;
    }
    const std::vector<float> aa = speed::anti_alias_filter(p), mean = speed::local_mean_filter(p);
    const int ow = g.operating_width, oh = g.operating_height;
    std::vector<float> decimated(static_cast<std::size_t>(ow) * oh), band(decimated.size());
    for (int k = 0; k < ow * oh; ++k)
        decimated[k] = speed::anti_aliased_sample(src, stride, g.scaled_width, g.scaled_height, aa.data(),
                                                  static_cast<int>(aa.size()), k % ow, k / ow, plant);
    for (int k = 0; k < ow * oh; ++k)
        band[k] = speed::band_pass_at(decimated.data(), ow, oh, mean.data(), static_cast<int>(mean.size()), k % ow,
                                      k / ow, plant);
    return band;
}

/// The CPU's band-pass picture (speed::band_pass), packed to operating_width columns.
std::vector<float> cpu_band_pass(const speed::Geometry& g, const speed::Params& p, const std::vector<float>& picture) {
    std::vector<float> frame(g.buffer_size(), 0.0f), curr(g.buffer_size()), tmp(g.buffer_size());
    for (int y = 0; y < g.height; ++y)
        std::memcpy(frame.data() + static_cast<std::size_t>(y) * g.alloc_width,
                    picture.data() + static_cast<std::size_t>(y) * g.width, sizeof(float) * g.width);
    speed::band_pass(g, p, frame.data(), curr.data(), tmp.data());
    std::vector<float> out(static_cast<std::size_t>(g.operating_width) * g.operating_height);
    for (int y = 0; y < g.operating_height; ++y)
        std::memcpy(out.data() + static_cast<std::size_t>(y) * g.operating_width,
                    frame.data() + static_cast<std::size_t>(y) * g.alloc_width, sizeof(float) * g.operating_width);
    return out;
}

/// The number of samples whose bits differ.
int differing(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    int n = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) ++n;
    return n;
}

speed::Params params(double prescale, speed::ScaleMethod method, double kernelscale) {
    return {kernelscale, prescale, method, 0.29, 0.0, 0};
}

const speed::TwinPlant kNoPlant{};

TEST(SpeedTwinArithmetic, BandPassAsTheCpuAtEveryPrescaleMethod) {
    const speed::ScaleMethod methods[] = {speed::ScaleMethod::kNearest, speed::ScaleMethod::kBilinear,
                                          speed::ScaleMethod::kBicubic, speed::ScaleMethod::kLanczos4};
    // (w, h, prescale): 1 (no rescale), down and up, odd sizes, a prescale that keeps the size.
    struct Case {
        int w, h;
        double prescale;
    };
    const Case cases[] = {{83, 97, 1.0},  {176, 176, 0.5}, {171, 163, 0.6}, {97, 85, 1.5},
                          {61, 45, 2.0},  {40, 41, 4.0},   {100, 100, 1.002}, {250, 230, 0.37}};
    int compared = 0;
    for (const Case& c : cases)
        for (const speed::ScaleMethod m : methods) {
            const speed::Geometry g = speed::Geometry::of(c.w, c.h, c.prescale);
            ASSERT_FALSE(g.too_small()) << c.w << "x" << c.h << " at " << c.prescale;
            for (const int bits : {8, 10, 16}) {
                const speed::Params p = params(c.prescale, m, 1.0);
                const std::vector<float> picture = random_picture(c.w, c.h, bits, 7u * c.w + bits);
                const std::vector<float> cpu = cpu_band_pass(g, p, picture);
                EXPECT_EQ(differing(twin_band_pass(g, p, picture, kNoPlant), cpu), 0)
                    << c.w << "x" << c.h << " prescale " << c.prescale << " method " << static_cast<int>(m)
                    << " bits " << bits;
                compared += static_cast<int>(cpu.size());
            }
        }
    EXPECT_GT(compared, 4000);
}

TEST(SpeedTwinArithmetic, BandPassAsTheCpuAtKernelScales) {
    for (const double ks : {0.5, 1.0, 1.5, 2.0, 2.0 / 3.0, 3.0, 360.0 / 97.0})
        for (const double prescale : {1.0, 0.5}) {
            const int w = 171, h = 203;
            const speed::Geometry g = speed::Geometry::of(w, h, prescale);
            const speed::Params p = params(prescale, speed::ScaleMethod::kBicubic, ks);
            const std::vector<float> picture = random_picture(w, h, 12, 11u);
            EXPECT_EQ(differing(twin_band_pass(g, p, picture, kNoPlant), cpu_band_pass(g, p, picture)), 0)
                << "kernelscale " << ks << " prescale " << prescale;
        }
}

TEST(SpeedTwinArithmetic, ScaleTablesGiveTheCpuScaler) {
    const speed::ScaleMethod methods[] = {speed::ScaleMethod::kNearest, speed::ScaleMethod::kBilinear,
                                          speed::ScaleMethod::kBicubic, speed::ScaleMethod::kLanczos4};
    const int sizes[][4] = {{37, 23, 74, 46}, {37, 23, 22, 14}, {64, 48, 37, 61}, {9, 7, 9, 20}};
    for (const speed::ScaleMethod m : methods)
        for (const auto& s : sizes) {
            const std::vector<float> src = random_picture(s[0], s[1], 10, 3u);
            std::vector<float> cpu(static_cast<std::size_t>(s[2]) * s[3]);
            floatimg::scale(m, src.data(), s[0], s[1], s[0], cpu.data(), s[2], s[3], s[2]);
            const floatimg::ScaleTaps x = floatimg::scale_taps(m, s[0], s[2]);
            const floatimg::ScaleTaps y = floatimg::scale_taps(m, s[1], s[3]);
            std::vector<float> twin(cpu.size());
            for (int yy = 0; yy < s[3]; ++yy)
                for (int xx = 0; xx < s[2]; ++xx)
                    twin[static_cast<std::size_t>(yy) * s[2] + xx] = floatimg::scaled_sample(
                        src.data(), s[0], xx, yy, x.index.data(), x.weight.data(), y.index.data(), y.weight.data(),
                        x.taps);
            EXPECT_EQ(differing(twin, cpu), 0) << static_cast<int>(m) << " " << s[0] << "x" << s[1] << " -> " << s[2]
                                               << "x" << s[3];
        }
}

// The device's covariance matrix: the 25 means, the 325 x 17 chains and their reduction
// (speed_twin.hpp, as means_kernel, chains_kernel and covariance_kernel run them) give the CPU's
// covariance_matrix bit for bit, on band-pass pictures whose widths put the 16-runs, the 8-run
// and the rest in every combination.
TEST(SpeedTwinArithmetic, CovarianceMatrixAsTheCpu) {
    for (const int w : {80, 208, 240, 336, 400, 480, 560, 1100})
        for (const int h : {80, 96, 144}) {
            const speed::Geometry g = speed::Geometry::of(w, h, 1.0);
            const speed::Params p = params(1.0, speed::ScaleMethod::kNearest, 1.0);
            const std::vector<float> band = cpu_band_pass(g, p, random_picture(w, h, 10, 3u * w + h));
            const int stride = g.operating_width;
            std::vector<float> cpu(625), twin(625, -1.0f);
            speed::covariance_matrix(g, band.data(), stride, cpu.data());
            float means[speed::kPositions];
            for (int t = 0; t < speed::kPositions; ++t)
                means[t] = speed::shifted_mean(band.data(), stride, t / 5, t % 5, g.sub_height, g.sub_width);
            std::vector<double> chains(static_cast<std::size_t>(speed::kPairs) * speed::kChains);
            for (int k = 0; k < speed::kPairs * speed::kChains; ++k) {
                int xi = 0, yi = 0;
                speed::covariance_pair(k / speed::kChains, xi, yi);
                chains[k] = speed::covariance_chain(band.data() + (xi / 5) * stride + xi % 5,
                                                    band.data() + (yi / 5) * stride + yi % 5, stride, g.sub_height,
                                                    g.sub_width, means[xi], means[yi], k % speed::kChains, false);
            }
            const double count = static_cast<double>(g.sub_width) * g.sub_height;
            for (int q = 0; q < speed::kPairs; ++q)
                speed::covariance_element(chains.data() + static_cast<std::size_t>(q) * speed::kChains, q, count,
                                          twin.data());
            EXPECT_EQ(differing(twin, cpu), 0) << w << "x" << h << " (sub " << g.sub_width << ")";
        }
}

TEST(SpeedTwinArithmetic, CovariancePairsEnumerateTheLowerTriangle) {
    int p = 0;
    for (int xi = 0; xi < speed::kPositions; ++xi)
        for (int yi = 0; yi <= xi; ++yi, ++p) {
            int x = -1, y = -1;
            speed::covariance_pair(p, x, y);
            EXPECT_EQ(x, xi);
            EXPECT_EQ(y, yi);
        }
    EXPECT_EQ(p, speed::kPairs);
}

// Each planted defect (speed_cuda.cuh) changes the band-pass picture on a plain picture.
TEST(SpeedTwinArithmetic, EachPlantChangesTheBandPass) {
    const speed::Geometry g = speed::Geometry::of(176, 144, 1.0);
    const speed::Params p = params(1.0, speed::ScaleMethod::kNearest, 1.0);
    const std::vector<float> picture = random_picture(176, 144, 8, 5u);
    const std::vector<float> cpu = cpu_band_pass(g, p, picture);
    const speed::TwinPlant plants[] = {{true, false, false, false}, {false, true, false, false},
                                       {false, false, true, false}, {false, false, false, true}};
    for (const speed::TwinPlant& plant : plants)
        EXPECT_GT(differing(twin_band_pass(g, p, picture, plant), cpu), 0)
            << plant.fma << plant.mirror << plant.toward_zero << plant.order;
}

}  // namespace
}  // namespace vmafx
