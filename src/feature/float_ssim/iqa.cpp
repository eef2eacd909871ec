// The IQA machinery shared by float_ssim and float_ms_ssim (see iqa.hpp).
#include "feature/float_ssim/iqa.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace vmafx::iqa {

namespace {

/// The 1-D Gaussian taps upstream applies horizontally and vertically (g_gaussian_window_h
/// and g_gaussian_window_v of iqa/ssim_tools.h, the same values), as floats.
constexpr float kGaussian[kGaussianLen] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                                           0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};

/// _iqa_convolve (1-D separable build) with the Gaussian window: only where the window lies
/// inside the w x h image, giving (w - 10) x (h - 10) floats, packed, in `dst`. Horizontal
/// pass over every row into a float cache, then the vertical pass over the cache; each output
/// is the double sum of the float products sample * tap, taps in order, rounded to float.
/// (The loops run the taps outside and the samples of a row inside, so that a row's sums
/// advance together; each output still adds its products in upstream's order.) `dst` may be
/// `img`.
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
            for (int x = 0; x < dw; ++x) sum[x] += row[x + k] * tap;
        }
        float* out = cache.data() + static_cast<std::ptrdiff_t>(y) * dw;
        for (int x = 0; x < dw; ++x) out[x] = static_cast<float>(sum[x]);
    }
    for (int y = 0; y < dh; ++y) {
        std::fill(sum.begin(), sum.end(), 0.0);
        for (int k = 0; k < kGaussianLen; ++k) {
            const float tap = kGaussian[k];
            const float* row = cache.data() + static_cast<std::ptrdiff_t>(y + k) * dw;
            for (int x = 0; x < dw; ++x) sum[x] += row[x] * tap;
        }
        float* out = dst + static_cast<std::ptrdiff_t>(y) * dw;
        for (int x = 0; x < dw; ++x) out[x] = static_cast<float>(sum[x]);
    }
}

/// KBND_SYMMETRIC's one reflection of an index outside [0, n).
inline int mirror(int i, int n) {
    if (i < 0) return -1 - i;
    if (i >= n) return n - (i - n) - 1;
    return i;
}

/// _iqa_filter_pixel with scale 1: the klen x klen kernel centred on (x, y).
float filter_pixel(const float* img, int w, int h, int x, int y, const float* kernel, int klen) {
    const int c = klen / 2;
    const int even = (klen & 1) ? 0 : 1;
    const bool edge = x < c || y < c || x >= w - c || y >= h - c;
    double sum = 0.0;
    int k = 0;
    for (int v = -c; v <= c - even; ++v) {
        for (int u = -c; u <= c - even; ++u, ++k) {
            const float sample = edge ? img[static_cast<std::ptrdiff_t>(mirror(y + v, h)) * w + mirror(x + u, w)]
                                      : img[static_cast<std::ptrdiff_t>(y + v) * w + x + u];
            sum += sample * kernel[k];
        }
    }
    return static_cast<float>(sum);
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
                    for (int x = x0; x < x1; ++x) sum[static_cast<std::size_t>(x - x0)] += src[x * factor + u] * tap;
                }
            }
            for (int x = x0; x < x1; ++x)
                row_out[static_cast<std::size_t>(x)] = static_cast<float>(sum[static_cast<std::size_t>(x - x0)]);
        }
        std::copy(row_out.begin(), row_out.end(), dst + static_cast<std::ptrdiff_t>(y) * sw);
    }
}

SsimMeans ssim_means(const float* ref, const float* cmp, int w, int h) {
    const float K1 = 0.01f, K2 = 0.03f;
    const int L = 255;
    const float C1 = (K1 * L) * (K1 * L);
    const float C2 = (K2 * L) * (K2 * L);
    const float C3 = C2 / 2.0f;

    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> ref_mu(n), cmp_mu(n), ref_sq(n), cmp_sq(n), both(n);
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
    const int dw = w - kGaussianLen + 1;
    const int dh = h - kGaussianLen + 1;
    const std::size_t windows = static_cast<std::size_t>(dw) * static_cast<std::size_t>(dh);

    // The variances and the covariance, the variances clamped at 0 (upstream's
    // MAX(0.0, v): a double comparison, stored back as float).
    for (std::size_t i = 0; i < windows; ++i) {
        ref_sq[i] -= ref_mu[i] * ref_mu[i];
        cmp_sq[i] -= cmp_mu[i] * cmp_mu[i];
        ref_sq[i] = static_cast<float>(0.0 > ref_sq[i] ? 0.0 : static_cast<double>(ref_sq[i]));
        cmp_sq[i] = static_cast<float>(0.0 > cmp_sq[i] ? 0.0 : static_cast<double>(cmp_sq[i]));
        both[i] -= ref_mu[i] * cmp_mu[i];
    }

    double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
    for (std::size_t i = 0; i < windows; ++i) {
        const float mu1 = ref_mu[i], mu2 = cmp_mu[i];
        // sqrt of the float product in double, stored as float.
        const float s1s2 = static_cast<float>(std::sqrt(static_cast<double>(ref_sq[i] * cmp_sq[i])));
        // Numerators in double, denominators summed in float.
        const double l = (2.0 * mu1 * mu2 + C1) / static_cast<double>(mu1 * mu1 + mu2 * mu2 + C1);
        const double c = (2.0 * s1s2 + C2) / static_cast<double>(ref_sq[i] + cmp_sq[i] + C2);
        // Flat identical windows can leave a tiny negative covariance: taken as 0 there.
        const float s12 = (both[i] < 0.0f && s1s2 <= 0.0f) ? 0.0f : both[i];
        const double s = (s12 + C3) / (s1s2 + C3);  // a float quotient
        ssim_sum += l * c * s;
        l_sum += l;
        c_sum += c;
        s_sum += s;
    }
    // Upstream divides by (double)(w * h) with int w and h: the window count.
    const double count = static_cast<double>(dw * dh);
    return {static_cast<float>(ssim_sum / count), static_cast<float>(l_sum / count),
            static_cast<float>(c_sum / count), static_cast<float>(s_sum / count)};
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
