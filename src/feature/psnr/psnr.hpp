// Integer PSNR (upstream libvmaf 3.2.0 feature extractor "psnr", src/feature/integer_psnr.c):
// descriptor, settings and the per-plane arithmetic.
//
// Per frame and plane p (Y, and with enable_chroma Cb and Cr), the exact sum of squared
// sample differences sse_p gives
//   mse_p  = sse_p / (w_p * h_p)
//   psnr_p = min(10 * log10(peak^2 / max(mse_p, 1e-16)), psnr_max_p)
// where peak = 2^bpc - 1 (with reduced_hbd_peak 255 * 2^(bpc - 8)) and the cap psnr_max_p is
// 6 * bpc + 12 dB, or with min_sse > 0: ceil(10 * log10(peak^2 / (min_sse / (w_p * h_p)))).
// Identical pictures thus score the cap (60 dB at 8 bits, 72 at 10, 84 at 12, 108 at 16).
// With enable_apsnr, the run's aggregate PSNR of each plane over every frame:
//   apsnr_p = min(10 * (log10(peak^2) + log10(sum_n) - log10(sum_sse)),
//                 ceil(10 * log10(peak^2 * sum_n * 2)))
// (sum_n: samples of the plane over all frames), written by flush() as aggregate metrics.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "feature/metric.hpp"

namespace vmafx::psnr {

/// Descriptor of "psnr" (listed in feature/metrics.def).
///
/// Options (upstream's table; none is a feature parameter, so output names never change):
/// enable_chroma (bool, true), enable_mse (bool, false), enable_apsnr (bool, false),
/// reduced_hbd_peak (bool, false), min_sse (double, [0, DBL_MAX], 0).
/// Per frame: psnr_y (and mse_y with enable_mse), then psnr_cb, mse_cb, psnr_cr, mse_cr with
/// enable_chroma. Aggregates (enable_apsnr): apsnr_y, apsnr_cb, apsnr_cr, always all three
/// (those of planes not scored are -inf: JSON null, as upstream). Reads every plane; no
/// previous pictures; sees every frame whatever the subsampling (upstream's TEMPORAL flag).
/// Limits: any size (1x1 up), bit depths 8, 10, 12 and 16 (upstream scores no other).
extern const MetricDescriptor descriptor;

/// One "psnr" instance's options (upstream integer_psnr.c PsnrState) and what init() derives
/// from them for a format.
struct Settings {
    /// The option table's defaults (descriptor.parse_options({}) bound): the members bound to
    /// options carry no default of their own, so that each default is written once, in the table.
    Settings();
    /// The options of `descriptor` bound to the members below.
    explicit Settings(const Options& options);

    bool enable_chroma;
    bool enable_mse;
    bool enable_apsnr;
    bool reduced_hbd_peak;
    double min_sse;

    /// The peak sample value at `bit_depth`: 2^bpc - 1, or 255 << (bpc - 8) with
    /// reduced_hbd_peak.
    std::uint32_t peak(int bit_depth) const;
    /// The cap of plane `p`'s PSNR (dB) for `format`: 6 * bpc + 12, or with min_sse > 0 the
    /// PSNR of an error of min_sse over the plane's samples, rounded up (the plane's own size,
    /// ceil(w/2) x ceil(h/2) for subsampled chroma).
    double psnr_max(const VideoFormat& format, int p) const;
};

/// One "psnr" instance's scoring from the planes' sums of squared errors, shared by the CPU
/// extractor and the CUDA twin (psnr_cuda.cu): the per-frame outputs of each plane and the
/// run's aggregates (enable_apsnr). Thread-safe: frames may be scored concurrently, in any
/// order (the aggregates are exact integer sums).
class Scorer {
public:
    /// Throws Error for options the table refuses.
    Scorer(const Options& options, const VideoFormat& format);
    /// The planes scored: 3 with enable_chroma, else 1 (luma).
    int planes() const { return planes_; }
    /// Appends the outputs of plane `p` (0 luma, 1 Cb, 2 Cr) of a frame whose squared errors sum
    /// to `sse` (psnr_<p>, then mse_<p> with enable_mse) and, with enable_apsnr, adds the plane
    /// to the run's totals.
    void score_plane(int p, std::uint64_t sse, FrameScores& out) const;
    /// A GPU twin's frame: score_plane of every scored plane from `sums` as the device left
    /// them (sums.sse[p], or with `planted_order` the planted kReductionOrder float sums
    /// sums.planted[p]). Sums: any struct with those arrays (each backend's layout).
    template <typename Sums>
    void score_device_sums(const Sums& sums, bool planted_order, FrameScores& out) const {
        for (int p = 0; p < planes_; ++p)
            score_plane(p, planted_order ? static_cast<std::uint64_t>(sums.planted[p]) : std::uint64_t(sums.sse[p]), out);
    }
    /// The aggregates (apsnr_y, apsnr_cb, apsnr_cr) with enable_apsnr; nothing otherwise.
    void flush(ScoreTable& table) const;

private:
    VideoFormat format_;
    Settings settings_;
    std::uint32_t peak_;
    int planes_;
    double psnr_max_[3] = {};
    // enable_apsnr's running totals per plane: the only state scoring changes, atomic and
    // order-free (integer sums), so concurrent frames give the bits of a serial run.
    mutable std::array<std::atomic<std::uint64_t>, 3> sse_sum_{};
    mutable std::array<std::atomic<std::uint64_t>, 3> samples_sum_{};
};

/// PSNR (dB) of a plane of `samples` samples whose squared errors sum to `sse`, for peak
/// value `peak` and cap `psnr_max`; `mse` receives sse / samples.
double plane_psnr(std::uint64_t sse, std::uint32_t samples, std::uint32_t peak, double psnr_max, double& mse);

/// Aggregate PSNR (dB) over a run: `sse` summed over every frame's plane, `samples` the
/// plane's samples over every frame (upstream integer_psnr.c flush()). -inf when samples is
/// 0; the cap when sse is 0.
double aggregate_psnr(std::uint64_t sse, std::uint64_t samples, std::uint32_t peak);

/// Sum of squared differences of two planes of one size (8-bit samples: each row summed in
/// 32 bits, wrapping as upstream's uint32_t row sum; 16-bit words: in 64 bits).
std::uint64_t plane_sse(const Plane& ref, const Plane& dist);

}  // namespace vmafx::psnr
