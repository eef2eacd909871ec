// The IQA machinery shared by float_ssim and float_ms_ssim (see iqa.hpp).
#include "feature/common/iqa.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace vmafx::iqa {

namespace {

/// The 1-D Gaussian taps (iqa_math.hpp's gaussian_tap), as an array for the host loops.
constexpr float kGaussian[kGaussianLen] = {gaussian_tap(0), gaussian_tap(1), gaussian_tap(2), gaussian_tap(3),
                                           gaussian_tap(4), gaussian_tap(5), gaussian_tap(6), gaussian_tap(7),
                                           gaussian_tap(8), gaussian_tap(9), gaussian_tap(10)};

/// _iqa_convolve (1-D separable build) with the Gaussian window: only where the window lies
/// inside the w x h image, giving (w - 10) x (h - 10) floats, packed, in `dst`. Horizontal
/// pass over every row into a float cache, then the vertical pass over the cache; each output
/// is the double sum of the float products sample * tap, taps in order (add_product), rounded
/// to float. (The loops run the taps outside and the samples of a row inside, so that a row's
/// sums advance together; each output still adds its products in upstream's order.) `dst` may
/// be `img`.
void convolve_gaussian(const float* img, int w, int h, float* dst) {
    const int dw = w - kGaussianLen + 1;
    const int dh = h - kGaussianLen + 1;
    std::vector<float> cache(static_cast<std::size_t>(dw) * static_cast<std::size_t>(h));
    std::vector<double> sum(static_cast<std::size_t>(dw));
    for (int y = 0; y < h; ++y) {
        const float* row = img + static_cast<std::ptrdiff_t>(y) * w;
        std::fill(sum.begin(), sum.end(), 0.0);
        for (int k = 0; k < kGaussianLen; ++k) {
            const float tap = kGaussian[k];
            for (int x = 0; x < dw; ++x) sum[x] = add_product(sum[x], row[x + k], tap);
        }
        float* out = cache.data() + static_cast<std::ptrdiff_t>(y) * dw;
        for (int x = 0; x < dw; ++x) out[x] = static_cast<float>(sum[x]);
    }
    for (int y = 0; y < dh; ++y) {
        std::fill(sum.begin(), sum.end(), 0.0);
        for (int k = 0; k < kGaussianLen; ++k) {
            const float tap = kGaussian[k];
            const float* row = cache.data() + static_cast<std::ptrdiff_t>(y + k) * dw;
            for (int x = 0; x < dw; ++x) sum[x] = add_product(sum[x], row[x], tap);
        }
        float* out = dst + static_cast<std::ptrdiff_t>(y) * dw;
        for (int x = 0; x < dw; ++x) out[x] = static_cast<float>(sum[x]);
    }
}

/// The maps of _iqa_ssim over the (w - 10) x (h - 10) windows of two w x h images: the Gaussian
/// means, the clamped variances (iqa_math.hpp's variance) and the covariance (covariance).
struct SsimMaps {
    int windows_w = 0, windows_h = 0;
    std::vector<float> ref_mu, cmp_mu, ref_var, cmp_var, cov;
};

SsimMaps ssim_maps(const float* ref, const float* cmp, int w, int h) {
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    SsimMaps m;
    std::vector<float>&ref_mu = m.ref_mu, &cmp_mu = m.cmp_mu, &ref_sq = m.ref_var, &cmp_sq = m.cmp_var,
        &both = m.cov;
    ref_mu.resize(n);
    cmp_mu.resize(n);
    ref_sq.resize(n);
    cmp_sq.resize(n);
    both.resize(n);
    convolve_gaussian(ref, w, h, ref_mu.data());
    convolve_gaussian(cmp, w, h, cmp_mu.data());
    for (std::size_t i = 0; i < n; ++i) {
        ref_sq[i] = ref[i] * ref[i];
        cmp_sq[i] = cmp[i] * cmp[i];
        both[i] = ref[i] * cmp[i];
    }
    convolve_gaussian(ref_sq.data(), w, h, ref_sq.data());
    convolve_gaussian(cmp_sq.data(), w, h, cmp_sq.data());
    convolve_gaussian(both.data(), w, h, both.data());
    m.windows_w = w - kGaussianLen + 1;
    m.windows_h = h - kGaussianLen + 1;
    const std::size_t windows = static_cast<std::size_t>(m.windows_w) * static_cast<std::size_t>(m.windows_h);
    // The variances (clamped at 0) and the covariance, in place.
    for (std::size_t i = 0; i < windows; ++i) {
        ref_sq[i] = variance(ref_sq[i], ref_mu[i]);
        cmp_sq[i] = variance(cmp_sq[i], cmp_mu[i]);
        both[i] = covariance(both[i], ref_mu[i], cmp_mu[i]);
    }
    return m;
}

}  // namespace

void decimate(float* img, int w, int h, int factor, std::span<const float> kernel, int klen, float* dst) {
    const int sw = decimated_size(w, factor);
    const int sh = decimated_size(h, factor);
    const int c = klen / 2;
    const int last = c - ((klen & 1) ? 0 : 1);  // the kernel covers [-c, last]
    // Outputs whose kernel lies inside the picture: x * factor in [c, w - c).
    const int x0 = std::min(sw, (c + factor - 1) / factor);
    const int x1 = std::max(x0, std::min(sw, (w - c + factor - 1) / factor));
    std::vector<double> sum(static_cast<std::size_t>(std::max(0, x1 - x0)));
    std::vector<float> row_out(static_cast<std::size_t>(sw));
    // In place, an output only overwrites samples no later output reads (factor >= 2, as
    // upstream): a row of outputs is formed, then stored, before the next row is read.
    for (int y = 0; y < sh; ++y) {
        const int cy = y * factor;
        if (cy < c || cy >= h - c) {
            for (int x = 0; x < sw; ++x)
                row_out[static_cast<std::size_t>(x)] = filter_pixel(img, w, h, x * factor, cy, kernel.data(), klen);
        } else {
            for (int x = 0; x < x0; ++x)
                row_out[static_cast<std::size_t>(x)] = filter_pixel(img, w, h, x * factor, cy, kernel.data(), klen);
            for (int x = x1; x < sw; ++x)
                row_out[static_cast<std::size_t>(x)] = filter_pixel(img, w, h, x * factor, cy, kernel.data(), klen);
            // The inner outputs, taps in filter_pixel's order (rows, then columns), each
            // output's double sum advancing one tap at a time.
            std::fill(sum.begin(), sum.end(), 0.0);
            int k = 0;
            for (int v = -c; v <= last; ++v) {
                const float* src = img + static_cast<std::ptrdiff_t>(cy + v) * w;
                for (int u = -c; u <= last; ++u, ++k) {
                    const float tap = kernel[static_cast<std::size_t>(k)];
                    for (int x = x0; x < x1; ++x) {
                        double& acc = sum[static_cast<std::size_t>(x - x0)];
                        acc = add_product(acc, src[x * factor + u], tap);
                    }
                }
            }
            for (int x = x0; x < x1; ++x)
                row_out[static_cast<std::size_t>(x)] = static_cast<float>(sum[static_cast<std::size_t>(x - x0)]);
        }
        std::copy(row_out.begin(), row_out.end(), dst + static_cast<std::ptrdiff_t>(y) * sw);
    }
}

SsimMeans ssim_means(const float* ref, const float* cmp, int w, int h) {
    const SsimMaps m = ssim_maps(ref, cmp, w, h);
    const std::size_t windows = static_cast<std::size_t>(m.windows_w) * static_cast<std::size_t>(m.windows_h);
    TermSums sums{};
    for (std::size_t i = 0; i < windows; ++i) {
        const WindowTerms t = window_terms(m.ref_mu[i], m.cmp_mu[i], m.ref_var[i], m.cmp_var[i], m.cov[i]);
        sums[kRowLcs] += t.lcs;
        sums[kRowL] += t.l;
        sums[kRowC] += t.c;
        sums[kRowS] += t.s;
    }
    return means_from_sums(sums, w, h);
}

void window_term_rows(const float* ref, const float* cmp, int w, int h, double* rows, std::size_t pitch) {
    const SsimMaps m = ssim_maps(ref, cmp, w, h);
    const std::size_t windows = static_cast<std::size_t>(m.windows_w) * static_cast<std::size_t>(m.windows_h);
    for (std::size_t i = 0; i < windows; ++i) {
        const WindowTerms t = window_terms(m.ref_mu[i], m.cmp_mu[i], m.ref_var[i], m.cmp_var[i], m.cov[i]);
        rows[kRowL * pitch + i] = t.l;
        rows[kRowC * pitch + i] = t.c;
        rows[kRowS * pitch + i] = t.s;
        rows[kRowLcs * pitch + i] = t.lcs;
    }
}

SsimMeans means_from_sums(const TermSums& sums, int w, int h) {
    // Upstream divides by (double)(w * h) with int w and h: the window count.
    const double count = static_cast<double>(ssim_windows(w, h));
    return {static_cast<float>(sums[kRowLcs] / count), static_cast<float>(sums[kRowL] / count),
            static_cast<float>(sums[kRowC] / count), static_cast<float>(sums[kRowS] / count)};
}

double max_db(bool clip, int bit_depth, int width, int height) {
    if (!clip) return std::numeric_limits<double>::infinity();
    // Upstream's unsigned arithmetic: peak * peak and width * height as unsigned.
    const unsigned peak = (1u << bit_depth) - 1u;
    const double mse = 0.5 / static_cast<double>(static_cast<unsigned>(width) * static_cast<unsigned>(height));
    return std::ceil(10. * std::log10(static_cast<double>(peak * peak) / mse));
}

double to_db(double score, double max_db) {
    const double db = -10. * std::log10(1 - score);
    return db < max_db ? db : max_db;
}

}  // namespace vmafx::iqa
