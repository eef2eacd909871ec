// The SpEED core shared by speed_chroma and speed_temporal (see speed.hpp), bit-exact to
// upstream libvmaf 3.2.0 src/feature/speed.c with the covariance sums of x86/speed_avx512.c.
// The picture tools speed.c shares with vif_tools.c (Gaussian windows, mirrored filter,
// scalers, float conversion) are feature/common/float_image's, once for both; the matrix
// algebra and the per-block steps after the covariance matrix are speed_blocks.hpp's host/device
// functions, which the CUDA twins run too.
// Every float and double step below is the one upstream's C takes: float arithmetic stays
// float, libm calls take and return double where upstream's C calls them on floats (C's
// sqrt/log2/exp are double functions), and nothing is contracted (-ffp-contract=off).
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_blocks.hpp"
#include "feature/speed/speed_kernels.hpp"
#include "feature/speed/speed_math.hpp"

#include "base/libm.hpp"
#include "base/libm_log2.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace vmafx::speed {

namespace {

constexpr int kBlock = 5;                ///< DEFAULT_BLOCK_SIZE
constexpr int kElements = kBlock * kBlock;  ///< elements_in_block
constexpr int kScales = 4;               ///< NUM_SCALES

// C's double log2, called on float arguments as upstream's C does, with glibc 2.36's bits on
// every host (base/libm.hpp: the golden values' libm).
inline double dlog2(double x) { return libm::log2(x); }

void subtract(float* a, const float* b, int w, int h, int stride) {
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j)
            a[static_cast<std::ptrdiff_t>(i) * stride + j] = band_pass_sample(
                a[static_cast<std::ptrdiff_t>(i) * stride + j], b[static_cast<std::ptrdiff_t>(i) * stride + j]);
}

}  // namespace

std::vector<float> anti_alias_filter(const Params& p) {
    const int aa_width = floatimg::vif_filter_size(1, static_cast<float>(p.kernelscale));
    return floatimg::gaussian_filter(aa_width,
                                     static_cast<float>(std::sqrt(static_cast<double>(kScales)) * aa_width / 5.0f));
}

std::vector<float> local_mean_filter(const Params& p) {
    const int fw = floatimg::vif_filter_size(kScales, static_cast<float>(p.kernelscale));
    return floatimg::gaussian_filter(fw, static_cast<float>(fw) / 5.0f);
}

// speed.c filter_and_downscale: `frame` becomes the operating band-pass picture.
void band_pass(const Geometry& g, const Params& p, float* frame, float* curr, float* tmp) {
    const int stride = g.alloc_width;
    if (!(std::fabs(p.prescale - 1.0) < 1.0e-3)) {
        std::memcpy(tmp, frame, sizeof(float) * g.buffer_size());
        floatimg::scale(p.method, tmp, g.width, g.height, stride, frame, g.scaled_width, g.scaled_height,
                        stride);
    }
    const std::vector<float> aa = anti_alias_filter(p);
    floatimg::convolve(aa, frame, nullptr, floatimg::Product::kPlain, g.scaled_width, g.scaled_height, stride,
                       curr, stride);
    for (int i = 0; i < g.scaled_height / kDecimation; ++i)
        for (int j = 0; j < g.scaled_width / kDecimation; ++j)
            frame[static_cast<std::ptrdiff_t>(i) * stride + j] =
                curr[static_cast<std::size_t>(i * kDecimation) * stride + j * kDecimation];
    const int w = g.scaled_width >> kScales, h = g.scaled_height >> kScales;
    const std::vector<float> window = local_mean_filter(p);
    floatimg::convolve(window, frame, nullptr, floatimg::Product::kPlain, w, h, stride, curr, stride);
    subtract(frame, curr, w, h, stride);
}

// --- speed.c est_params ---------------------------------------------------------------------

// Documented in speed_kernels.hpp (the lanes and the reduction order).
double covariance_sum_reference(const float* x, const float* y, int stride, int h, int w, double mx, double my) {
    double acc0[8] = {}, acc1[8] = {};
    double tail = 0.0;
    for (int i = 0; i < h; ++i) {
        const float* rx = x + static_cast<std::ptrdiff_t>(i) * stride;
        const float* ry = y + static_cast<std::ptrdiff_t>(i) * stride;
        int j = 0;
        for (; j + 15 < w; j += 16)
            for (int l = 0; l < 8; ++l) {
                acc0[l] = std::fma(static_cast<double>(rx[j + l]) - mx, static_cast<double>(ry[j + l]) - my, acc0[l]);
                acc1[l] = std::fma(static_cast<double>(rx[j + 8 + l]) - mx, static_cast<double>(ry[j + 8 + l]) - my,
                                   acc1[l]);
            }
        for (; j + 7 < w; j += 8)
            for (int l = 0; l < 8; ++l)
                acc0[l] = std::fma(static_cast<double>(rx[j + l]) - mx, static_cast<double>(ry[j + l]) - my, acc0[l]);
        covariance_add_rest(rx, ry, j, w, mx, my, tail);
    }
    return covariance_reduce(acc0, acc1, tail);
}

namespace {

struct Stats {
    std::vector<float> entropies, variances;
};

}  // namespace

// Step 1 of est_params: the means of the 25 shifted sub-pictures, the covariance matrix.
void covariance_matrix(const Geometry& g, const float* data, std::ptrdiff_t stride, float* cov) {
    float means[kElements];
    const std::size_t samples = static_cast<std::size_t>(g.sub_width) * static_cast<std::size_t>(g.sub_height);
    const float count = static_cast<float>(samples);
    for (int r = 0; r < kBlock; ++r)
        for (int c = 0; c < kBlock; ++c) {
            float sum = 0;
            for (int i = 0; i < g.sub_height; ++i)
                for (int j = 0; j < g.sub_width; ++j) sum += data[static_cast<std::ptrdiff_t>(r + i) * stride + c + j];
            means[r * kBlock + c] = sum / count;
        }
    const double dcount = static_cast<double>(samples);
    for (int xi = 0; xi < kElements; ++xi)
        for (int yi = 0; yi <= xi; ++yi) {
            const int rx = xi / kBlock, cx = xi % kBlock, ry = yi / kBlock, cy = yi % kBlock;
            const double sum = covariance_sum_simd(data + static_cast<std::ptrdiff_t>(rx) * stride + cx,
                                              data + static_cast<std::ptrdiff_t>(ry) * stride + cy, stride,
                                              g.sub_height, g.sub_width, means[rx * kBlock + cx],
                                              means[ry * kBlock + cy]);
            const float v = static_cast<float>(sum / dcount);
            cov[xi * kElements + yi] = v;
            cov[yi * kElements + xi] = v;
        }
}

namespace {

/// est_params for one band-pass picture whose covariance matrix (step 1) is `cov`; false when K
/// is singular (then X = 0). Steps 2-9 are speed_blocks.hpp's functions, which the CUDA twins'
/// kernels run too: per block, its samples Y, K X = Y, S = sum(X * Y) / 25 and the entropy.
bool est_params(const Geometry& g, const float* data, std::ptrdiff_t stride, const float* cov, float sigma_nn,
                Stats& out) {
    const int nb = g.blocks;
    // Step 2: eigenvalues.
    float eig[kElements];
    {
        blocks::EigenWork work;
        blocks::eigenvalues(cov, eig, work);
    }
    // Step 4's factors of K (when the eigenvalues let upstream solve).
    std::vector<float> factors(2 * blocks::kMatrix);
    float* q = factors.data();
    float* r = q + blocks::kMatrix;
    bool ok = blocks::eigenvalues_regular(eig);
    if (ok) {
        blocks::QrWork work;
        blocks::qr_factor(cov, q, r, work);
        ok = blocks::solvable(r);
    }
    // Step 3: the blocks' samples Y, 25 rows of nb (block b in column b).
    const std::size_t n = static_cast<std::size_t>(kElements) * static_cast<std::size_t>(nb);
    std::vector<float> y(n), x(n, 0.0f), rhs(n);
    for (int b = 0; b < nb; ++b) blocks::block_samples(data, stride, g.blocks_horizontal, b, y.data() + b, nb);
    // Step 4: K X = Y (X stays 0 when K is singular).
    if (ok) blocks::solve_blocks(q, r, y.data(), x.data(), rhs.data(), nb);
    // Steps 5-9: per block S = sum(X * Y) / 25 and the entropy.
    const double l2 = log2_2pi_e();
    const libm::Log2Tables& tables = libm::log2_tables();
    out.entropies.assign(static_cast<std::size_t>(nb), 0.0f);
    out.variances.assign(static_cast<std::size_t>(nb), 0.0f);
    for (int b = 0; b < nb; ++b) {
        const float v = blocks::block_variance(x.data() + b, y.data() + b, nb);
        out.variances[static_cast<std::size_t>(b)] = v;
        out.entropies[static_cast<std::size_t>(b)] = blocks::block_entropy(eig, v, sigma_nn, l2, tables);
    }
    return ok;
}

/// The blocks' terms of the score (speed_blocks.hpp's block_term), in the blocks' order.
std::vector<float> score_terms(const Geometry& g, const Stats& ref, const Stats& dis, float sigma_nn, float nn_floor,
                               int mode) {
    const float base = noise_floor_entropy(sigma_nn, nn_floor);
    const libm::Log2Tables& tables = libm::log2_tables();
    std::vector<float> terms(static_cast<std::size_t>(g.blocks));
    for (int i = 0; i < g.blocks; ++i)
        terms[static_cast<std::size_t>(i)] = blocks::block_term(ref.entropies[i], dis.entropies[i], ref.variances[i],
                                                                dis.variances[i], base, mode, tables);
    return terms;
}

}  // namespace

double log2_2pi_e() { return std::log2(2 * M_PI * M_E); }

float noise_floor_entropy(float sigma_nn, float nn_floor) {
    return static_cast<float>(kElements * (dlog2((1 + nn_floor) * sigma_nn) + log2_2pi_e()));
}

ScaleMethod parse_scale_method(const std::string& metric, const std::string& text) {
    if (text == "nearest") return ScaleMethod::kNearest;
    if (text == "bilinear") return ScaleMethod::kBilinear;
    if (text == "bicubic") return ScaleMethod::kBicubic;
    if (text == "lanczos4") return ScaleMethod::kLanczos4;
    throw Error(fmt::format("{}: invalid speed_prescale_method \"{}\" (nearest, bilinear, bicubic or lanczos4)",
                            metric, text));
}

Geometry Geometry::of(int width, int height, double prescale) {
    Geometry g;
    g.width = width;
    g.height = height;
    g.scaled_width = static_cast<int>(static_cast<double>(width) * prescale + 0.5);
    g.scaled_height = static_cast<int>(static_cast<double>(height) * prescale + 0.5);
    g.alloc_width = std::max(width, g.scaled_width);
    g.alloc_height = std::max(height, g.scaled_height);
    g.operating_width = g.scaled_width >> kScales;
    g.operating_height = g.scaled_height >> kScales;
    g.truncated_width = g.operating_width / kBlock * kBlock;
    g.truncated_height = g.operating_height / kBlock * kBlock;
    g.blocks_horizontal = g.truncated_width / kBlock;
    g.blocks_vertical = g.truncated_height / kBlock;
    g.blocks = g.blocks_horizontal * g.blocks_vertical;
    g.sub_width = g.truncated_width - kBlock + 1;
    g.sub_height = g.truncated_height - kBlock + 1;
    return g;
}

int smallest_plane_side(double prescale) {
    int n = 1;
    while (Geometry::of(n, n, prescale).too_small()) ++n;  // (scaled sides grow with n: prescale >= 0.1)
    return n;
}

void check(const char* metric, const char* what, const Params& params, int plane_width,
           int plane_height, bool unscaled_buffers) {
    if (!floatimg::vif_kernelscale_valid(static_cast<float>(params.kernelscale)))
        throw Error(fmt::format("{}: invalid speed_kernelscale {:g} (upstream accepts only its 21 kernel scales: "
                                "1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, "
                                "1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111)",
                                metric, params.kernelscale));
    const Geometry g = Geometry::of(plane_width, plane_height, params.prescale);
    if (g.too_small())
        throw Error(fmt::format("{}: {} {}x{} is too small at speed_prescale {:g}: scaled to {}x{}, it must be at "
                                "least 80x80 (SpEED's operating picture, 1/16 of it, needs a 5x5 block)",
                                metric, what, plane_width, plane_height, params.prescale, g.scaled_width,
                                g.scaled_height));
    // speed_prescale within 1e-3 of 1 skips the rescale (ALMOST_EQUAL) but not the new size:
    // upstream then filters samples of its buffers it never wrote.
    if (std::fabs(params.prescale - 1.0) < 1.0e-3 && (g.scaled_width != plane_width || g.scaled_height != plane_height))
        throw Error(fmt::format("{}: speed_prescale {:g} is not supported for a {} {}x{}: within 1e-3 of 1 upstream "
                                "does not rescale, yet scores a {}x{} picture (samples it never wrote)",
                                metric, params.prescale, what, plane_width, plane_height, g.scaled_width,
                                g.scaled_height));
    if (unscaled_buffers && g.scaled_height > plane_height)
        throw Error(fmt::format("{}: speed_prescale {:g} is not supported: upstream sizes its frame buffers by the "
                                "unscaled height and writes the {} rows of the rescaled {} past them (it aborts); "
                                "speed_prescale must leave the height at most {}",
                                metric, params.prescale, g.scaled_height, what, plane_height));
}

BufferPool::Lease BufferPool::lease() const {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!free_.empty()) {
            auto set = std::move(free_.back());
            free_.pop_back();
            return Lease(*this, std::move(set));
        }
    }
    auto set = std::make_unique<std::vector<std::vector<float>>>(static_cast<std::size_t>(count_));
    for (auto& buffer : *set) buffer.assign(floats_, 0.0f);
    return Lease(*this, std::move(set));
}

void BufferPool::give_back(std::unique_ptr<std::vector<std::vector<float>>> set) const {
    if (!set) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(set));
}

float score(const Geometry& g, const Params& p, float* ref, float* dis, bool& singular) {
    std::vector<float> curr(g.buffer_size()), tmp(g.buffer_size());
    return score(g, p, ref, dis, singular, curr.data(), tmp.data());
}

float score(const Geometry& g, const Params& p, float* ref, float* dis, bool& singular, float* curr, float* tmp) {
    band_pass(g, p, ref, curr, tmp);
    band_pass(g, p, dis, curr, tmp);
    return score_band_pass(g, p, ref, dis, g.alloc_width, singular);
}

float score_band_pass(const Geometry& g, const Params& p, const float* ref, const float* dis, std::ptrdiff_t stride,
                      bool& singular) {
    float ref_cov[kElements * kElements], dis_cov[kElements * kElements];
    covariance_matrix(g, ref, stride, ref_cov);
    covariance_matrix(g, dis, stride, dis_cov);
    return score_band_pass(g, p, ref, ref_cov, dis, dis_cov, stride, singular);
}

float score_band_pass(const Geometry& g, const Params& p, const float* ref, const float* ref_cov, const float* dis,
                      const float* dis_cov, std::ptrdiff_t stride, bool& singular) {
    const float sigma_nn = static_cast<float>(p.sigma_nn);
    Stats rs, ds;
    const bool ok_ref = est_params(g, ref, stride, ref_cov, sigma_nn, rs);
    const bool ok_dis = est_params(g, dis, stride, dis_cov, sigma_nn, ds);
    const std::vector<float> terms =
        score_terms(g, rs, ds, sigma_nn, static_cast<float>(p.nn_floor), p.weight_var_mode);
    const blocks::PairScore result = blocks::pair_score(ok_ref, ok_dis, terms.data(), g.blocks);
    singular = result.singular != 0;
    return result.score;
}

}  // namespace vmafx::speed
