// Single-precision image tools of the floating-point metrics (see float_image.hpp).
#include "feature/common/float_image.hpp"
#include "feature/common/float_image_kernels.hpp"

#include "base/libm.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>

namespace vmafx::floatimg {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Upstream's 21 accepted kernel scales (vif_tools.h valid_kernelscales), as floats.
constexpr float kValidKernelscales[] = {
    1.0f,        1.0f / 2.0f,  3.0f / 2.0f,  2.0f,      2.0f / 3.0f, 24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,       1.0f / 2.25f,
    1.4746f,     1.54f,        1.6f,         1.06667f,  0.711111f,   0.740740f,    1.111111f,
};

// The scalers' per-sample arithmetic is float_image_math.hpp's (shared with the GPU twins).
float ratio(int src, int dst) { return scale_ratio(src, dst); }
float source_position(int dst, float r) { return scale_source_position(dst, r); }
float mirror_f(float i, float left, float right) { return scale_mirror(i, left, right); }

// A read-only strided view of width x height floats.
struct View {
    const float* data;
    int width;
    int height;
    std::ptrdiff_t stride;
    const float* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
    float at(int x, int y) const { return row(y)[x]; }
};

// A writable strided destination.
struct Out {
    float* data;
    int width;
    int height;
    std::ptrdiff_t stride;
    float* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

void scale_nearest(const View& src, const Out& dst) {
    const float rx = ratio(src.width, dst.width);
    const float ry = ratio(src.height, dst.height);
    for (int y = 0; y < dst.height; ++y)
        for (int x = 0; x < dst.width; ++x) {
            const int sy = scale_nearest_index(y, ry);
            const int sx = scale_nearest_index(x, rx);
            dst.row(y)[x] = src.at(sx, sy);
        }
}

void scale_bilinear(const View& src, const Out& dst) {
    const int dst_w = dst.width;
    std::vector<int> x1(static_cast<std::size_t>(dst_w));
    std::vector<int> x2(static_cast<std::size_t>(dst_w));
    std::vector<float> dx(static_cast<std::size_t>(dst_w));
    bilinear_axis(src.width, dst_w, x1.data(), x2.data(), dx.data());
    std::vector<int> y1(static_cast<std::size_t>(dst.height));
    std::vector<int> y2(static_cast<std::size_t>(dst.height));
    std::vector<float> dy(static_cast<std::size_t>(dst.height));
    bilinear_axis(src.height, dst.height, y1.data(), y2.data(), dy.data());
    for (int y = 0; y < dst.height; ++y) {
        const float* r1 = src.row(y1[y]);
        const float* r2 = src.row(y2[y]);
        float* out = dst.row(y);
        for (int x = 0; x < dst_w; ++x)
            out[x] = bilinear_sample(dy[y], dx[x], r1[x1[x]], r1[x2[x]], r2[x1[x]], r2[x2[x]]);
    }
}

float bicubic_at(const View& src, float x, float y) {
    const int x0 = static_cast<int>(std::floor(x));
    const int y0 = static_cast<int>(std::floor(y));
    const float dx = x - static_cast<float>(x0);
    const float dy = y - static_cast<float>(y0);
    float wx[4];
    float wy[4];
    for (int i = -1; i <= 2; ++i) {
        wx[i + 1] = bicubic_kernel(static_cast<float>(i) - dx);
        wy[i + 1] = bicubic_kernel(static_cast<float>(i) - dy);
    }
    const float right_x = static_cast<float>(src.width - 1);
    const float right_y = static_cast<float>(src.height - 1);
    float v = 0.0f;
    for (int j = -1; j <= 2; ++j)
        for (int i = -1; i <= 2; ++i) {
            const int xi = static_cast<int>(mirror_f(static_cast<float>(x0 + i), 0.0f, right_x));
            const int yi = static_cast<int>(mirror_f(static_cast<float>(y0 + j), 0.0f, right_y));
            const float w = tap_weight(wx[i + 1], wy[j + 1]);
            v = add_tap(v, src.at(xi, yi), w);
        }
    return v;
}

float lanczos4_kernel(float x, float a) {
    if (x == 0.0f) return 1.0f;
    if (x > -a && x < a) {
        const double xd = x;
        const double ad = a;
        return static_cast<float>(ad * std::sin(kPi * xd) * std::sin(kPi * xd / ad) / (kPi * kPi * xd * xd));
    }
    return 0.0f;
}

float lanczos4_at(const View& src, float x, float y) {
    constexpr int a = 4;
    const int x0 = static_cast<int>(std::floor(x));
    const int y0 = static_cast<int>(std::floor(y));
    const float dx = x - static_cast<float>(x0);
    const float dy = y - static_cast<float>(y0);
    float wx[2 * a + 1];
    float wy[2 * a + 1];
    for (int i = -a; i <= a; ++i) {
        wx[i + a] = lanczos4_kernel(static_cast<float>(i) - dx, static_cast<float>(a));
        wy[i + a] = lanczos4_kernel(static_cast<float>(i) - dy, static_cast<float>(a));
    }
    const float right_x = static_cast<float>(src.width - 1);
    const float right_y = static_cast<float>(src.height - 1);
    float value = 0.0f;
    float weight_sum = 0.0f;
    for (int iy = -a; iy <= a; ++iy)
        for (int ix = -a; ix <= a; ++ix) {
            const float w = tap_weight(wx[ix + a], wy[iy + a]);
            weight_sum += w;
            const int xi = static_cast<int>(mirror_f(static_cast<float>(x0 + ix), 0.0f, right_x));
            const int yi = static_cast<int>(mirror_f(static_cast<float>(y0 + iy), 0.0f, right_y));
            value = add_tap(value, src.at(xi, yi), w);
        }
    return value / weight_sum;
}

template <typename At>
void scale_pointwise(const View& src, const Out& dst, At at) {
    const float rx = ratio(src.width, dst.width);
    const float ry = ratio(src.height, dst.height);
    for (int y = 0; y < dst.height; ++y) {
        const float yy = source_position(y, ry);
        for (int x = 0; x < dst.width; ++x) dst.row(y)[x] = at(src, source_position(x, rx), yy);
    }
}

// Upstream's 1-D Gaussian: exp in double of the float arguments, over a float normaliser.
float gaussian_pdf(float x, float mean, float stdev) {
    const float num = static_cast<float>(
        libm::exp(-0.5 * static_cast<double>(x - mean) / stdev * static_cast<double>(x - mean) / stdev));
    const float den = static_cast<float>(1 / (static_cast<double>(stdev) * std::sqrt(2 * kPi)));
    return num / den;
}

}  // namespace

void to_float(const Plane& plane, int bit_depth, float* dst_data, std::ptrdiff_t stride, int offset) {
    const int w = plane.width();
    const int h = plane.height();
    const float off = static_cast<float>(offset);
    const float scaler = picture_copy_scaler(bit_depth);
    for (int y = 0; y < h; ++y) {
        float* dst = dst_data + static_cast<std::ptrdiff_t>(y) * stride;
        if (scaler != 0.0f) {
            const std::uint16_t* src = plane.row<std::uint16_t>(y);
            for (int x = 0; x < w; ++x) dst[x] = picture_copy_sample(src[x], scaler, off);
        } else {
            // 8 bits, and upstream's byte-wise reading of 9, 11, 13, 14 and 15 bits.
            const std::uint8_t* src = plane.row<std::uint8_t>(y);
            for (int x = 0; x < w; ++x) dst[x] = picture_copy_sample(src[x], 0.0f, off);
        }
    }
}

Image to_float(const Plane& plane, int bit_depth, int offset) {
    Image out(plane.width(), plane.height());
    to_float(plane, bit_depth, out.data.data(), out.width, offset);
    return out;
}

namespace {

// The reference row kernels: the loops over the samples of a row innermost, taps outermost,
// each output a float sum from 0 of filter[k] * tap in the order k = 0, 1, ... (as upstream).
void reference_vertical(const float* filter, int taps, const float* const* rows, const float* const* rows2,
                        Product product, int w, float* t) {
    for (int j = 0; j < w; ++j) t[j] = 0;
    for (int k = 0; k < taps; ++k) {
        const float c = filter[k];
        const float* s = rows[k];
        if (product == Product::kPlain) {
            for (int j = 0; j < w; ++j) t[j] += c * s[j];
        } else if (product == Product::kSquare) {
            for (int j = 0; j < w; ++j) t[j] += c * (s[j] * s[j]);
        } else {
            const float* s2 = rows2[k];
            for (int j = 0; j < w; ++j) t[j] += c * (s[j] * s2[j]);
        }
    }
}

void reference_horizontal(const float* filter, int taps, const float* t, int w, float* d) {
    const int r = taps / 2;
    for (int j = 0; j < w; ++j) d[j] = 0;
    for (int k = 0; k < taps; ++k) {
        const float c = filter[k];
        const float* s = t - r + k;
        for (int j = 0; j < w; ++j) d[j] += c * s[j];
    }
}

}  // namespace

const ConvolveKernels& reference_convolve_kernels() {
    static const ConvolveKernels kernels{"reference", reference_vertical, reference_horizontal};
    return kernels;
}

void convolve_with(const ConvolveKernels& kernels, std::span<const float> filter, const float* src,
                   const float* src2, Product product, int w, int h, std::ptrdiff_t src_stride, float* dst,
                   std::ptrdiff_t dst_stride) {
    const int fw = static_cast<int>(filter.size());
    const int r = fw / 2;
    assert(r <= w - 1 && r <= h - 1);
    std::vector<float> tmp(static_cast<std::size_t>(w) + 2 * static_cast<std::size_t>(r));
    float* t = tmp.data() + r;  // t[-r .. w + r): the vertically filtered row, then its mirrored borders
    std::vector<const float*> rows(static_cast<std::size_t>(fw)), rows2(static_cast<std::size_t>(fw));
    for (int i = 0; i < h; ++i) {
        for (int k = 0; k < fw; ++k) {
            const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(mirror(i - r + k, h)) * src_stride;
            rows[k] = src + row;
            if (product == Product::kCross) rows2[k] = src2 + row;
        }
        kernels.vertical(filter.data(), fw, rows.data(), product == Product::kCross ? rows2.data() : nullptr,
                         product, w, t);
        for (int j = 1; j <= r; ++j) {
            t[-j] = t[mirror(-j, w)];
            t[w - 1 + j] = t[mirror(w - 1 + j, w)];
        }
        kernels.horizontal(filter.data(), fw, t, w, dst + static_cast<std::ptrdiff_t>(i) * dst_stride);
    }
}

void convolve(std::span<const float> filter, const float* src, const float* src2, Product product, int w, int h,
              std::ptrdiff_t src_stride, float* dst, std::ptrdiff_t dst_stride) {
    convolve_with(simd_convolve_kernels(), filter, src, src2, product, w, h, src_stride, dst, dst_stride);
}

Image convolve(std::span<const float> filter, const Image& src, Product product, const Image* src2) {
    Image dst(src.width, src.height);
    convolve(filter, src.data.data(), src2 ? src2->data.data() : nullptr, product, src.width, src.height,
             src.width, dst.data.data(), dst.width);
    return dst;
}

std::vector<float> gaussian_filter(int size, float stdev) {
    std::vector<float> out(static_cast<std::size_t>(size));
    float sum = 0;
    const int k = (size - 1) / 2;
    for (int i = 0; i < size; ++i) {
        out[i] = gaussian_pdf(static_cast<float>(i - k), 0.0f, stdev);
        sum += out[i];
    }
    for (int i = 0; i < size; ++i) out[i] /= sum;
    return out;
}

int vif_filter_size(int scale, float kernelscale) {
    const int n = (1 << (4 - scale)) + 1;
    int size = static_cast<int>(std::ceil(static_cast<float>(n) * kernelscale));
    if (size % 2 == 0) size += 1;
    return size > 3 ? size : 3;
}

std::vector<float> vif_filter(int scale, float kernelscale) {
    const int size = vif_filter_size(scale, kernelscale);
    return gaussian_filter(size, static_cast<float>(size) / 5.0f);
}

bool vif_kernelscale_valid(float kernelscale) {
    for (float v : kValidKernelscales)
        if (std::fabs(kernelscale - v) < 1e-3) return true;
    return false;
}

void scale(ScaleMethod method, const float* src, int src_w, int src_h, std::ptrdiff_t src_stride, float* dst,
           int dst_w, int dst_h, std::ptrdiff_t dst_stride) {
    const View in{src, src_w, src_h, src_stride};
    const Out out{dst, dst_w, dst_h, dst_stride};
    if (src_w == dst_w && src_h == dst_h) {
        for (int y = 0; y < dst_h; ++y) std::copy(in.row(y), in.row(y) + dst_w, out.row(y));
        return;
    }
    switch (method) {
    case ScaleMethod::kNearest: scale_nearest(in, out); break;
    case ScaleMethod::kBilinear: scale_bilinear(in, out); break;
    case ScaleMethod::kBicubic: scale_pointwise(in, out, bicubic_at); break;
    case ScaleMethod::kLanczos4: scale_pointwise(in, out, lanczos4_at); break;
    }
}

void bilinear_axis(int src, int dst, int* i1, int* i2, float* d) {
    const float r = ratio(src, dst);
    const float right = static_cast<float>(src - 1);
    for (int k = 0; k < dst; ++k) {
        const float pos = source_position(k, r);
        i1[k] = static_cast<int>(mirror_f(static_cast<float>(std::floor(pos)), 0.0f, right));
        i2[k] = static_cast<int>(mirror_f(static_cast<float>(std::ceil(pos)), 0.0f, right));
        d[k] = pos - static_cast<float>(i1[k]);
    }
}

Image scale(ScaleMethod method, const Image& src, int dst_w, int dst_h) {
    if (src.width == dst_w && src.height == dst_h) return src;
    Image dst(dst_w, dst_h);
    scale(method, src.data.data(), src.width, src.height, src.width, dst.data.data(), dst_w, dst_h, dst_w);
    return dst;
}

ScaleTaps scale_taps(ScaleMethod method, int src_size, int dst_size) {
    ScaleTaps t;
    t.taps = method == ScaleMethod::kNearest ? 1 : method == ScaleMethod::kBilinear ? 2
             : method == ScaleMethod::kBicubic ? 4 : 9;
    const std::size_t n = static_cast<std::size_t>(dst_size) * static_cast<std::size_t>(t.taps);
    t.index.assign(n, 0);
    t.weight.assign(n, 0.0f);
    const float r = ratio(src_size, dst_size);
    const float right = static_cast<float>(src_size - 1);
    std::vector<int> i1, i2;
    std::vector<float> d;
    if (method == ScaleMethod::kBilinear) {
        i1.resize(static_cast<std::size_t>(dst_size));
        i2.resize(static_cast<std::size_t>(dst_size));
        d.resize(static_cast<std::size_t>(dst_size));
        bilinear_axis(src_size, dst_size, i1.data(), i2.data(), d.data());
    }
    for (int x = 0; x < dst_size; ++x) {
        int* index = t.index.data() + static_cast<std::size_t>(x) * t.taps;
        float* weight = t.weight.data() + static_cast<std::size_t>(x) * t.taps;
        if (method == ScaleMethod::kNearest) {
            index[0] = scale_nearest_index(x, r);
            continue;
        }
        if (method == ScaleMethod::kBilinear) {  // as scale_bilinear
            index[0] = i1[x];
            index[1] = i2[x];
            weight[0] = d[x];
            continue;
        }
        const float xx = source_position(x, r);
        const int x0 = static_cast<int>(std::floor(xx));  // as bicubic_at, lanczos4_at
        const float dx = xx - static_cast<float>(x0);
        const int a = method == ScaleMethod::kBicubic ? 1 : 4;  // taps x0 - a .. x0 + taps - 1 - a
        for (int i = 0; i < t.taps; ++i) {
            index[i] = static_cast<int>(mirror_f(static_cast<float>(x0 + i - a), 0.0f, right));
            weight[i] = method == ScaleMethod::kBicubic
                            ? bicubic_kernel(static_cast<float>(i - a) - dx)
                            : lanczos4_kernel(static_cast<float>(i - a) - dx, 4.0f);
        }
    }
    return t;
}

}  // namespace vmafx::floatimg
