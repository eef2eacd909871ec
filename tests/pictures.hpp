// The tests' synthetic pictures: one library for every test that generates content (the
// readers' round trips, the metrics' hand-derived values, the twins' sweeps, the benchmarks).
// Every kind fills every plane (chroma too) of any VideoFormat, from a seed, so that content is
// repeatable: uniform random samples within the bit depth or over the whole sample word (above
// the bit depth from 9 to 15 bits), a smooth gradient with noise, a constant, samples that are 0
// or the largest value; distorted copies of a reference; clips mixing them; raw file bytes.
// Knows no metric and no test framework.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "picture/picture.hpp"

namespace vmafx::test {

/// xorshift32 (Marsaglia): a small deterministic generator. Seed 0 (a fixed point of xorshift)
/// is replaced by a fixed non-zero state.
class Random {
public:
    explicit Random(std::uint32_t seed) : state_(seed ? seed : 0x9e3779b9u) {}
    std::uint32_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 17;
        state_ ^= state_ << 5;
        return state_;
    }
    /// Uniform enough in [0, n) (n > 0).
    std::uint32_t below(std::uint32_t n) { return next() % n; }

private:
    std::uint32_t state_;
};

/// Largest sample of the format's bit depth: 2^bit_depth - 1.
std::uint32_t max_sample(const VideoFormat& format);
/// Largest value of the format's sample word: 255 at 8 bits, 65535 above.
std::uint32_t max_word(const VideoFormat& format);

/// Sets sample (x, y) of `plane` to `v`, which must fit its sample word.
void set_sample(Plane& plane, int x, int y, std::uint32_t v);

/// Sets every sample of every plane of `pic` to sample(plane index, x, y).
template <typename Sample>
void fill(Picture& pic, Sample&& sample) {
    for (int p = 0; p < 3; ++p) {
        Plane& plane = pic.planes[p];
        for (int y = 0; y < plane.height(); ++y)
            for (int x = 0; x < plane.width(); ++x) set_sample(plane, x, y, sample(p, x, y));
    }
}

/// Uniform random samples within the bit depth, every plane, luma first then Cb and Cr, each in
/// raster order from one xorshift32 stream seeded with `seed` (the VIF oracle values of
/// test_vif.cpp were computed by upstream from this luma).
Picture random_picture(const VideoFormat& format, std::uint32_t seed);
/// `count` random pictures, seeds seed, seed + 1, ...
std::vector<Picture> random_pictures(const VideoFormat& format, unsigned count, std::uint32_t seed);
/// Uniform random samples over the whole sample word: above the bit depth for 9 to 15 bits.
Picture random_word_picture(const VideoFormat& format, std::uint32_t seed);
/// A smooth diagonal gradient over the bit depth's range (each plane scaled to its own size)
/// with uniform noise of +-`noise` samples at 8 bits (scaled by 2^(bit_depth - 8) above),
/// clipped to the bit depth.
Picture smooth_picture(const VideoFormat& format, std::uint32_t seed, int noise = 4);
/// Every sample of every plane `value`.
Picture constant_picture(const VideoFormat& format, std::uint32_t value);
/// Samples that are each 0 or max_sample(), at random.
Picture extreme_picture(const VideoFormat& format, std::uint32_t seed);

/// A distorted copy of `ref`: each sample the rounded-down mean (left + 3 * here) / 4 of itself
/// and its left neighbour, plus noise in [-4, 4] units of max_sample() / 255 (the units are
/// samples at 8 bits), clipped to the bit depth; planes in order, one xorshift32 stream.
Picture distorted_picture(const Picture& ref, std::uint32_t seed);
/// `ref` with its contrast scaled around mid-grey by num / den (> 1: enhanced), clipped.
Picture contrast_picture(const Picture& ref, int num, int den);
/// `ref` with `count` samples of random planes and places set to random values within the bit
/// depth (most rows and windows unchanged).
Picture sprinkled_picture(const Picture& ref, unsigned count, std::uint32_t seed);

/// Reference and distorted pictures of a video, all of `format`.
struct Clip {
    VideoFormat format;
    std::vector<Picture> ref, dist;
    unsigned frames() const { return static_cast<unsigned>(ref.size()); }
};

/// Reference sample (x, y) of plane p, frame f at `bits` bits: a multiplicative hash's top bits.
std::uint32_t hashed_sample(int bits, int x, int y, int p, int f);
/// A clip of `frames` frames of `format` (8x6 4:2:0 unless told) at `bits` bits: references
/// hashed_sample(), distorted samples the reference's with the low three bits flipped by
/// (x + 2y + p + f) % 8 (the clip the psnr, float_psnr and float_moment oracle values use).
Clip hashed_clip(int bits, unsigned frames = 2, VideoFormat format = {8, 6, 8, Subsampling::k420});
/// One 4:4:4 frame of w x h at `bits` bits: random_picture(format, ref_seed) and
/// distorted_picture of it with dist_seed (or the reference itself when dist_seed is 0).
Clip pair_clip(int w, int h, int bits, std::uint32_t ref_seed, std::uint32_t dist_seed);

/// A clip of `count` frames of `format` from `seed`, samples within the bit depth, that mixes
/// what the metrics' arithmetic treats apart. Frame i is, by i % 6: random reference, distorted
/// copy; smooth reference, distorted copy; the previous reference repeated (zero temporal
/// difference) with an independent random distorted picture (negative covariances); a
/// constant reference (zero variances) with a smooth distorted one; 0-or-maximum reference
/// with a few samples changed; smooth reference with its contrast enhanced by 5/4 (gain
/// limits).
Clip synthetic_clip(const VideoFormat& format, unsigned count, std::uint32_t seed);

/// A 4-frame clip of `format` over the whole sample word: frames 0 and 2 random words in both
/// pictures (random_word_picture), frames 1 and 3 a reference of 0-or-maximum samples
/// (extreme_picture) and that reference with 9 samples changed (sprinkled_picture).
Clip whole_word_clip(const VideoFormat& format);

/// The samples of `pic` as a raw planar file holds them (16-bit little-endian above 8 bits).
std::string raw_bytes(const Picture& pic);
/// Writes `pics` one after another as a raw planar file at `path` (throws std::runtime_error
/// when it cannot).
void write_raw(const std::string& path, const std::vector<Picture>& pics);

/// "WxH B-bit SSS" (e.g. "33x35 10-bit 420"), for messages.
std::string format_label(const VideoFormat& format);

}  // namespace vmafx::test
