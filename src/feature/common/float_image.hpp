// Single-precision image tools shared by the floating-point metrics (float_vif, float_motion,
// float_adm, float_ansnr, float_ssim / float_ms_ssim, speed_chroma / speed_temporal): the float
// copy of a luma or chroma plane, the separable mirrored convolution, the Gaussian kernels of
// VIF and SpEED, and the frame scalers; each exactly once, on packed Images or, for callers with
// their own buffers (SpEED), on strided float arrays. Every function keeps upstream libvmaf
// 3.2.0's C types and evaluation order (float where upstream stores a float, double where C
// promotes), so that each value is the float upstream computes.
// Upstream: libvmaf/src/feature/picture_copy.c, common/convolution.c, common/convolution_avx.c
// (the AVX path upstream's dispatch picks: the same sums in the same order, no FMA),
// vif_tools.c (kernels, filters, scalers; speed.c uses the same functions).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

#include <tbb/scalable_allocator.h>

#include "base/error.hpp"
#include "feature/common/float_image_math.hpp"
#include "picture/picture.hpp"

namespace vmafx::floatimg {

/// Allocator of Image samples: oneTBB's scalable allocator, which keeps the large blocks a
/// frame's images free for the next frame's (with the standard allocator every frame's
/// megabytes of images were fresh pages: float_adm spent a third of its time in page faults);
/// the standard allocator in sanitized builds, so that AddressSanitizer knows each image's bounds.
#if VMAFX_SANITIZED
using SampleAllocator = std::allocator<float>;
#else
using SampleAllocator = tbb::scalable_allocator<float>;
#endif

/// A width x height image of floats, rows packed (stride = width).
struct Image {
    int width = 0;
    int height = 0;
    std::vector<float, SampleAllocator> data;

    Image() = default;
    /// Throws OutOfMemory (naming the size and the bytes) when the samples cannot be allocated.
    Image(int w, int h) : width(w), height(h), data(allocate(w, h)) {}
    float* row(int y) { return data.data() + static_cast<std::ptrdiff_t>(y) * width; }
    const float* row(int y) const { return data.data() + static_cast<std::ptrdiff_t>(y) * width; }
    float at(int x, int y) const { return row(y)[x]; }

private:
    static std::vector<float, SampleAllocator> allocate(int w, int h) {
        const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
        try {
            return std::vector<float, SampleAllocator>(n);
        } catch (const std::bad_alloc&) {
            throw OutOfMemory(n * sizeof(float), "a " + std::to_string(w) + "x" + std::to_string(h) + " float image");
        }
    }
};

/// Upstream picture_copy(): each sample as float, divided by 4, 16 or 256 at 10, 12 or 16
/// bits, plus `offset` (-128 for the VMAF metrics). Other bit depths (9, 11, 13..15) are read
/// as 8-bit samples, byte by byte, as upstream reads them: sample j of a row is byte j of the
/// row's little-endian 16-bit words (upstream's quirk, kept).
Image to_float(const Plane& plane, int bit_depth, int offset = -128);
/// As above, into `dst` (rows `stride` floats apart, at least plane.width() each).
void to_float(const Plane& plane, int bit_depth, float* dst, std::ptrdiff_t stride, int offset = -128);
// The depths picture_copy converts as such (8, 10, 12, 16) are the metrics' descriptors'
// kWholeUnitBitDepths (feature/metric.hpp).

// mirror(i, size): the convolution's edge mirror, in float_image_math.hpp (shared with the twins).

/// What the vertical pass filters: the samples, their squares, or the products of two images.
enum class Product { kPlain, kSquare, kCross };

/// Separable convolution with `filter` (odd length, radius = length / 2), first vertically
/// (of src, src * src, or src * src2) into a float row, then horizontally, both with mirrored
/// edges; each output is the float sum, from 0, of filter[k] * tap for k = 0..length-1.
/// Needs radius <= width - 1 and radius <= height - 1. Upstream: convolution_f32_avx_s /
/// _sq_s / _xy_s and vif_filter1d_s / _sq_s / _xy_s (identical arithmetic).
Image convolve(std::span<const float> filter, const Image& src, Product product = Product::kPlain,
               const Image* src2 = nullptr);
/// As above on strided arrays: the width x height samples of `src` (and `src2` for kCross),
/// rows `src_stride` floats apart, into `dst` (rows `dst_stride` apart; not one of the sources).
void convolve(std::span<const float> filter, const float* src, const float* src2, Product product, int width,
              int height, std::ptrdiff_t src_stride, float* dst, std::ptrdiff_t dst_stride);

/// Upstream's normalised 1-D Gaussian of `size` taps (odd) and deviation `stdev`: each tap the
/// float of exp(-x^2 / (2 stdev^2)) (in double) over the float 1 / (stdev sqrt(2 pi)), then
/// each divided by their float sum (vif_tools.c vif_gaussian_kernel / speed.c).
std::vector<float> gaussian_filter(int size, float stdev);

/// VIF's Gaussian filter length at `scale` (0..3) for `kernelscale` (upstream
/// vif_get_filter_size: the odd ceiling of (2^(4 - scale) + 1) * kernelscale, at least 3).
int vif_filter_size(int scale, float kernelscale);
/// VIF's normalised Gaussian filter at `scale` (upstream vif_get_filter: sigma = length / 5).
std::vector<float> vif_filter(int scale, float kernelscale);
/// Whether `kernelscale` is one of upstream's 21 accepted values (within 1e-3).
bool vif_kernelscale_valid(float kernelscale);

/// Frame scalers of upstream vif_scale_frame_s.
enum class ScaleMethod { kNearest, kBilinear, kBicubic, kLanczos4 };
/// Widest output of the bilinear scaler (upstream VIF_BILINEAR_MAX_WIDTH).
inline constexpr int kBilinearMaxWidth = 7680;
/// The bilinear scaler's taps along one axis from `src` samples to `dst` (dst > 0): for each
/// output position k in [0, dst), the two source indices i1[k] <= i2[k] (floor and ceiling of
/// the source position, mirrored into [0, src)) and the float fraction d[k] = position - i1[k]
/// (upstream vif_scale_frame_s's bilinear columns and rows alike). Each array holds dst values.
void bilinear_axis(int src, int dst, int* i1, int* i2, float* d);
/// Scales `src` to dst_w x dst_h with `method` (a copy when the size is the same).
Image scale(ScaleMethod method, const Image& src, int dst_w, int dst_h);
/// As above on strided arrays: src_w x src_h samples of `src` (rows `src_stride` floats apart)
/// into dst_w x dst_h of `dst` (rows `dst_stride` apart; not `src`).
void scale(ScaleMethod method, const float* src, int src_w, int src_h, std::ptrdiff_t src_stride, float* dst,
           int dst_w, int dst_h, std::ptrdiff_t dst_stride);

/// One axis of a scaler (floatimg::scale with `method`, src_size samples to dst_size) as
/// tables, for the GPU twins that rescale: per destination index x, `taps` source indices
/// (index[x * taps + i], mirrored into [0, src_size)) and weights (weight[x * taps + i]), each
/// the value the CPU scaler computes for that index. Nearest: 1 tap, the source index (weight
/// unused). Bilinear: 2 taps, bilinear_axis's i1 and i2, weight[0] its fraction (dx or dy of
/// float_image_math.hpp's bilinear_sample; weight[1] unused). Bicubic: 4 taps (x0 - 1 .. x0 + 2),
/// the bicubic_kernel weights. Lanczos4: 9 taps (x0 - 4 .. x0 + 4), the lanczos4 weights (sin
/// in double: glibc's, computed here on the host). The 2-D sample at (x, y) is then
/// float_image_math.hpp's mix of the rows' and columns' taps, in the CPU's order (rows outer).
struct ScaleTaps {
    int taps = 0;
    std::vector<int> index;
    std::vector<float> weight;
};
/// The tables of one axis (src_size, dst_size >= 1).
ScaleTaps scale_taps(ScaleMethod method, int src_size, int dst_size);

}  // namespace vmafx::floatimg
