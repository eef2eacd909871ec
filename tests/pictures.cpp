#include "pictures.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace vmafx::test {

namespace {

std::uint32_t clip_to(std::int64_t v, std::uint32_t max) {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, static_cast<std::int64_t>(max)));
}

/// A copy of `ref` whose every sample is sample(plane index, x, y, ref's sample), planes in order.
template <typename Sample>
Picture transformed(const Picture& ref, Sample&& sample) {
    Picture out(ref.format);
    fill(out, [&](int p, int x, int y) { return sample(p, x, y, ref.planes[p].at(x, y)); });
    return out;
}

}  // namespace

std::uint32_t max_sample(const VideoFormat& format) { return (1u << format.bit_depth) - 1u; }

std::uint32_t max_word(const VideoFormat& format) { return format.bit_depth > 8 ? 65535u : 255u; }

void set_sample(Plane& plane, int x, int y, std::uint32_t v) {
    if (plane.bytes_per_sample() == 1) plane.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
    else plane.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
}

Picture random_picture(const VideoFormat& format, std::uint32_t seed) {
    Picture pic(format);
    Random rng(seed);
    const std::uint32_t mask = max_sample(format);  // 2^k - 1: the mask draws uniformly
    fill(pic, [&](int, int, int) { return rng.next() & mask; });
    return pic;
}

std::vector<Picture> random_pictures(const VideoFormat& format, unsigned count, std::uint32_t seed) {
    std::vector<Picture> pics;
    for (unsigned i = 0; i < count; ++i) pics.push_back(random_picture(format, seed + i));
    return pics;
}

Picture random_word_picture(const VideoFormat& format, std::uint32_t seed) {
    Picture pic(format);
    Random rng(seed);
    const std::uint32_t mask = max_word(format);
    fill(pic, [&](int, int, int) { return rng.next() & mask; });
    return pic;
}

Picture smooth_picture(const VideoFormat& format, std::uint32_t seed, int noise) {
    Picture pic(format);
    Random rng(seed);
    const std::uint32_t max = max_sample(format);
    const std::int64_t spread = static_cast<std::int64_t>(noise) << (format.bit_depth - 8);
    fill(pic, [&](int p, int x, int y) {
        const std::int64_t span = 3 * std::int64_t{format.plane_width(p)} + 5 * std::int64_t{format.plane_height(p)};
        const std::int64_t base = (3 * std::int64_t{x} + 5 * std::int64_t{y}) * max / span;
        const std::int64_t n = spread ? static_cast<std::int64_t>(rng.below(static_cast<std::uint32_t>(2 * spread + 1))) - spread : 0;
        return clip_to(base + n, max);
    });
    return pic;
}

Picture constant_picture(const VideoFormat& format, std::uint32_t value) {
    Picture pic(format);
    fill(pic, [&](int, int, int) { return value; });
    return pic;
}

Picture extreme_picture(const VideoFormat& format, std::uint32_t seed) {
    Picture pic(format);
    Random rng(seed);
    const std::uint32_t max = max_sample(format);
    fill(pic, [&](int, int, int) { return (rng.next() >> 7) & 1 ? max : 0u; });
    return pic;
}

Picture distorted_picture(const Picture& ref, std::uint32_t seed) {
    Random rng(seed);
    const std::uint32_t max = max_sample(ref.format);
    const std::int64_t unit = max / 255;
    return transformed(ref, [&](int p, int x, int y, std::uint32_t here) {
        const std::int64_t left = ref.planes[p].at(x > 0 ? x - 1 : x, y);
        const std::int64_t noise = static_cast<std::int64_t>(rng.next() % 9) - 4;
        return clip_to((left + 3 * std::int64_t{here}) / 4 + noise * unit, max);
    });
}

Picture contrast_picture(const Picture& ref, int num, int den) {
    const std::uint32_t max = max_sample(ref.format);
    const std::int64_t mid = max / 2;
    return transformed(ref, [&](int, int, int, std::uint32_t here) {
        return clip_to(mid + (std::int64_t{here} - mid) * num / den, max);
    });
}

Picture sprinkled_picture(const Picture& ref, unsigned count, std::uint32_t seed) {
    Picture out = ref;
    Random rng(seed);
    for (unsigned k = 0; k < count; ++k) {
        Plane& plane = out.planes[rng.below(3)];
        set_sample(plane, static_cast<int>(rng.below(static_cast<std::uint32_t>(plane.width()))),
                   static_cast<int>(rng.below(static_cast<std::uint32_t>(plane.height()))),
                   rng.next() & max_sample(ref.format));
    }
    return out;
}

Clip whole_word_clip(const VideoFormat& format) {
    Clip clip{format, {}, {}};
    for (std::uint32_t i = 0; i < 4; ++i) {
        clip.ref.push_back(i % 2 ? extreme_picture(format, 2 * i + 1) : random_word_picture(format, 2 * i + 1));
        clip.dist.push_back(i % 2 ? sprinkled_picture(clip.ref.back(), 9, 2 * i + 2)
                                  : random_word_picture(format, 2 * i + 2));
    }
    return clip;
}

Clip synthetic_clip(const VideoFormat& format, unsigned count, std::uint32_t seed) {
    Clip clip{format, {}, {}};
    const std::uint32_t base = seed * 7919u + static_cast<std::uint32_t>(format.width * 31 + format.height * 17) +
                               static_cast<std::uint32_t>(format.bit_depth * 3 + static_cast<int>(format.subsampling));
    for (unsigned i = 0; i < count; ++i) {
        const std::uint32_t s = base + 101u * i;
        Picture ref, dist;
        switch (i % 6) {
        case 0:
            ref = random_picture(format, s);
            dist = distorted_picture(ref, s + 1);
            break;
        case 1:
            ref = smooth_picture(format, s);
            dist = distorted_picture(ref, s + 1);
            break;
        case 2:
            ref = clip.ref.back();
            dist = random_picture(format, s + 1);
            break;
        case 3:
            ref = constant_picture(format, max_sample(format) / 3);
            dist = smooth_picture(format, s + 1);
            break;
        case 4:
            ref = extreme_picture(format, s);
            dist = sprinkled_picture(ref, 5, s + 1);
            break;
        default:
            ref = smooth_picture(format, s, 1);
            dist = contrast_picture(ref, 5, 4);
            break;
        }
        clip.ref.push_back(std::move(ref));
        clip.dist.push_back(std::move(dist));
    }
    return clip;
}

std::string raw_bytes(const Picture& pic) {
    std::string out;
    for (const Plane& plane : pic.planes)
        for (int y = 0; y < plane.height(); ++y)
            for (int x = 0; x < plane.width(); ++x) {
                const std::uint32_t v = plane.at(x, y);
                out += static_cast<char>(v & 0xff);
                if (plane.bytes_per_sample() == 2) out += static_cast<char>(v >> 8);
            }
    return out;
}

void write_raw(const std::string& path, const std::vector<Picture>& pics) {
    std::ofstream out(path, std::ios::binary);
    for (const Picture& pic : pics) out << raw_bytes(pic);
    if (!out) throw std::runtime_error(path + ": cannot write");
}

std::string format_label(const VideoFormat& format) {
    return fmt::format("{}x{} {}-bit {}", format.width, format.height, format.bit_depth,
                       subsampling_name(format.subsampling));
}

std::uint32_t hashed_sample(int bits, int x, int y, int p, int f) {
    const std::uint32_t h = static_cast<std::uint32_t>(x * 37 + y * 101 + p * 59 + f * 17) * 2654435761u;
    return h >> (32 - bits);
}

Clip hashed_clip(int bits, unsigned frames, VideoFormat format) {
    format.bit_depth = bits;
    Clip clip{format, {}, {}};
    for (unsigned f = 0; f < frames; ++f) {
        const int fi = static_cast<int>(f);
        Picture ref(format), dist(format);
        fill(ref, [&](int p, int x, int y) { return hashed_sample(bits, x, y, p, fi); });
        fill(dist, [&](int p, int x, int y) {
            return hashed_sample(bits, x, y, p, fi) ^ static_cast<std::uint32_t>((x + 2 * y + p + fi) % 8);
        });
        clip.ref.push_back(std::move(ref));
        clip.dist.push_back(std::move(dist));
    }
    return clip;
}

Clip pair_clip(int w, int h, int bits, std::uint32_t ref_seed, std::uint32_t dist_seed) {
    const VideoFormat format{w, h, bits, Subsampling::k444};
    Clip clip{format, {random_picture(format, ref_seed)}, {}};
    clip.dist.push_back(dist_seed ? distorted_picture(clip.ref[0], dist_seed) : clip.ref[0]);
    return clip;
}

}  // namespace vmafx::test
