#include "parity/inputs.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <tuple>

#include <fmt/format.h>

namespace vmafx {

namespace fs = std::filesystem;

std::vector<ParityInput> fixture_inputs(const std::string& dir) {
    std::vector<ParityInput> out;
    if (!fs::is_directory(dir)) throw Error(fmt::format("{}: no such fixtures folder", dir));
    std::vector<fs::path> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (fs::is_regular_file(e.path() / "fixture.ini") && fs::is_regular_file(e.path() / "ref.yuv"))
            names.push_back(e.path());
    std::sort(names.begin(), names.end());
    for (const auto& p : names) {
        std::ifstream ini(p / "fixture.ini");
        std::map<std::string, std::string> kv;
        for (std::string line; std::getline(ini, line);)
            if (auto eq = line.find('='); eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
        VideoFormat f;
        try {
            f.width = std::stoi(kv.at("width"));
            f.height = std::stoi(kv.at("height"));
            const std::string pf = kv.at("pix_fmt");  // ffmpeg's name, e.g. yuv420p10le
            if (pf.size() < 7 || !parse_subsampling(pf.substr(3, 3), f.subsampling)) throw std::invalid_argument(pf);
            const std::string depth = pf.substr(7);
            f.bit_depth = depth.ends_with("le") ? std::stoi(depth.substr(0, depth.size() - 2)) : 8;
        } catch (const std::exception&) {
            throw Error(fmt::format("{}: malformed fixture.ini", (p / "fixture.ini").string()));
        }
        out.push_back({p.filename().string(), (p / "ref.yuv").string(), (p / "dist.yuv").string(), f});
    }
    if (out.empty()) throw Error(fmt::format("{}: no fixtures (folders with fixture.ini and ref.yuv)", dir));
    return out;
}

namespace {

/// Writes `frames` frames of `f` to `path`, sample (plane, x, y, frame) from `sample`.
template <typename Fn>
void write_video(const std::string& path, const VideoFormat& f, int frames, Fn sample) {
    std::ofstream out(path, std::ios::binary);
    std::vector<unsigned char> row;
    for (int i = 0; i < frames; ++i)
        for (int p = 0; p < 3; ++p)
            for (int y = 0; y < f.plane_height(p); ++y) {
                row.clear();
                for (int x = 0; x < f.plane_width(p); ++x) {
                    const int v = sample(p, x, y, i);
                    row.push_back(static_cast<unsigned char>(v & 0xff));
                    if (f.bit_depth > 8) row.push_back(static_cast<unsigned char>(v >> 8));
                }
                out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
            }
    if (!out) throw Error(fmt::format("{}: cannot write", path));
}

}  // namespace

void write_random_video(const std::string& path, const VideoFormat& f, int frames, unsigned seed, int noise) {
    std::mt19937 rng(seed);
    std::mt19937 base_rng(7);  // the same base content for every seed: ref and dist correlate
    const int max = (1 << f.bit_depth) - 1;
    // write_video asks for the samples in file order, so the generators run in that order.
    write_video(path, f, frames, [&](int, int x, int y, int i) {
        const int smooth = ((x * 7 + y * 3 + i * 5) * (max / 255 + 1)) % (max + 1);
        int v = smooth + static_cast<int>(base_rng() % 9) - 4;
        if (noise) v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
        return std::clamp(v, 0, max);
    });
}

std::vector<ParityInput> random_inputs(const std::string& dir, unsigned count, unsigned seed, int max_side) {
    fs::create_directories(dir);
    std::mt19937 rng(seed);
    std::vector<ParityInput> out;
    for (int depth : {8, 10, 12, 16})
        for (unsigned k = 0; k < count; ++k) {
            VideoFormat f;
            f.width = 33 + 2 * static_cast<int>(rng() % 200);   // odd, 33..431
            f.height = 33 + 2 * static_cast<int>(rng() % 120);  // odd, 33..271
            f.width = std::min(f.width, max_side);
            f.height = std::min(f.height, max_side);
            f.bit_depth = depth;
            f.subsampling = Subsampling::k420;
            const std::string base = fmt::format("{}/random_{}x{}_{}bit_{}", dir, f.width, f.height, depth, k);
            write_random_video(base + "_ref.yuv", f, 4, seed + k, 0);
            write_random_video(base + "_dist.yuv", f, 4, seed + k + 1000, 3 << (depth - 8));
            out.push_back({fmt::format("random {}x{} {}-bit", f.width, f.height, depth), base + "_ref.yuv",
                           base + "_dist.yuv", f, true});
        }
    return out;
}


void write_banded_pair(const std::string& base, const VideoFormat& f, int frames) {
    const int w = f.width, h = f.height, max = (1 << f.bit_depth) - 1, unit = 1 << (f.bit_depth - 8);
    const auto smooth = [=](int p, int x, int y, int i) {
        const long long cx = x - w / 2, cy = y - h / 2;
        const int ramp = (200 + (x * 300) / w + (y * 80) / h + i * 3 + p * 60) * unit / 4;
        // The vignette scaled with the width: at 3840 wide, (cx^2 + cy^2) / 90000.
        return ramp - static_cast<int>((cx * cx + cy * cy) * 3840 * 3840 / (90000LL * w * w) * unit / 4);
    };
    const auto grain = [](int p, int x, int y, int i) {
        std::uint32_t g = static_cast<std::uint32_t>(x) * 73856093u ^ static_cast<std::uint32_t>(y) * 19349663u ^
                          static_cast<std::uint32_t>(i * 3 + p) * 83492791u;
        g ^= g >> 13;
        g *= 0x5bd1e995u;
        return static_cast<int>((g ^ (g >> 15)) % 3) - 1;
    };
    write_video(base + "_ref.yuv", f, frames,
                [&](int p, int x, int y, int i) { return std::clamp(smooth(p, x, y, i) + grain(p, x, y, i), 0, max); });
    // Above 10 bits, 2 codes added where (x + y) % 3 == 0: samples that are not multiples of the
    // 10-bit step, so that CAMBI's conversion to 10 bits rounds (its rounding constant matters).
    const int offset = f.bit_depth > 10 ? 2 : 0;
    write_video(base + "_dist.yuv", f, frames, [&](int p, int x, int y, int i) {
        return std::clamp(smooth(p, x, y, i) / unit * unit + ((x + y) % 3 == 0 ? offset : 0), 0, max);
    });
}

std::vector<ParityInput> banded_inputs(const std::string& dir) {
    fs::create_directories(dir);
    std::vector<ParityInput> out;
    for (const int depth : {8, 10, 12}) {
        VideoFormat f;
        f.width = 433;
        f.height = 245;
        f.bit_depth = depth;
        const std::string base = fmt::format("{}/banded_{}x{}_{}bit", dir, f.width, f.height, depth);
        write_banded_pair(base, f, 3);
        out.push_back({fmt::format("banded {}x{} {}-bit", f.width, f.height, depth), base + "_ref.yuv",
                       base + "_dist.yuv", f, true});
    }
    return out;
}

std::vector<ParityInput> hard_inputs(const std::string& dir) {
    fs::create_directories(dir);
    std::vector<ParityInput> out;
    const auto add = [&](const std::string& label, const VideoFormat& f, auto ref, auto dist,
                         std::vector<std::string> corner_metrics = {}, int frames = 2) {
        const std::string base = fmt::format("{}/hard_{}x{}_{}bit_{}", dir, f.width, f.height, f.bit_depth,
                                             subsampling_name(f.subsampling));
        write_video(base + "_ref.yuv", f, frames, ref);
        write_video(base + "_dist.yuv", f, frames, dist);
        out.push_back({label, base + "_ref.yuv", base + "_dist.yuv", f, false, std::move(corner_metrics)});
    };
    // A hash of the position: noise that is the same for both videos where they agree.
    const auto hash = [](int p, int x, int y, int i) {
        std::uint32_t h = static_cast<std::uint32_t>(x) * 73856093u ^ static_cast<std::uint32_t>(y) * 19349663u ^
                          static_cast<std::uint32_t>(i * 3 + p) * 83492791u;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        return h ^ (h >> 15);
    };
    {
        // 3.7 million luma samples near 65535: each float square is about 2^32 units of 2^-16,
        // so the sums pass 2^53 units; the distorted video is dark (squared differences alike).
        VideoFormat f;
        f.width = 2560;
        f.height = 1440;
        f.bit_depth = 16;
        add("hard 2560x1440 16-bit bright (sums past 2^53 units)", f,
            [&](int p, int x, int y, int i) { return 65535 - static_cast<int>(hash(p, x, y, i) % 700); },
            [&](int p, int x, int y, int i) { return static_cast<int>(hash(p, x, y, i + 7) % 1000); });
    }
    {
        VideoFormat f;
        f.width = 3840;
        f.height = 2160;
        f.bit_depth = 8;
        add("hard 3840x2160 8-bit (longest sums)", f,
            [&](int p, int x, int y, int i) { return ((x / 3 + y / 2 + i * 9 + p * 40) % 200) + static_cast<int>(hash(p, x, y, 0) % 31); },
            [&](int p, int x, int y, int i) {
                return std::clamp(((x / 3 + y / 2 + i * 9 + p * 40) % 200) + static_cast<int>(hash(p, x, y, 0) % 31) +
                                      static_cast<int>(hash(p, x, y, i + 1) % 9) - 4,
                                  0, 255);
            });
    }
    {
        // Left half: identical flat areas (blocks of one value); right half: noise on a ramp.
        VideoFormat f;
        f.width = 640;
        f.height = 360;
        f.bit_depth = 8;
        f.subsampling = Subsampling::k444;
        const auto flat = [](int p, int x, int y) { return 16 + 37 * ((x / 40 + y / 24 + p) % 6); };
        add("hard 640x360 8-bit 4:4:4 (identical flat areas)", f,
            [&](int p, int x, int y, int i) {
                return x < 320 ? flat(p, x, y) : std::clamp(x / 3 + static_cast<int>(hash(p, x, y, i) % 41) - 20, 0, 255);
            },
            [&](int p, int x, int y, int i) {
                return x < 320 ? flat(p, x, y)
                               : std::clamp(x / 3 + static_cast<int>(hash(p, x, y, i + 11) % 41) - 20, 0, 255);
            });
    }
    {
        // CAMBI's case at full 4K: cambi's option corners (its largest window included) run on it.
        VideoFormat f;
        f.width = 3840;
        f.height = 2160;
        f.bit_depth = 10;
        const std::string base = fmt::format("{}/hard_{}x{}_{}bit_banded", dir, f.width, f.height, f.bit_depth);
        write_banded_pair(base, f, 2);
        out.push_back({"hard 3840x2160 10-bit banded gradients (cambi's corners)", base + "_ref.yuv", base + "_dist.yuv", f,
                       false, {"cambi"}});
    }
    {
        // ciede's case: saturated colours (chroma at and beyond the legal 16..240 range, every
        // hue, luma across its range) at 4:2:2 and 4:4:4, the distorted picture's chroma pulled
        // toward grey by a few codes and its luma shifted.
        for (const auto& [sub, depth, width, height] :
             {std::tuple{Subsampling::k422, 8, 1280, 720}, std::tuple{Subsampling::k444, 10, 640, 360}}) {
            VideoFormat f;
            f.width = width;
            f.height = height;
            f.bit_depth = depth;
            f.subsampling = sub;
            const int max = (1 << depth) - 1, unit = 1 << (depth - 8);
            const auto colour = [=](int p, int x, int y, int i) {
                if (p == 0) return ((x * 7 + y * 5 + i * 11) % 256) * unit;
                const int cell = (x / 8 + (y / 8) * 37 + p * 5) % 16;
                return std::clamp(cell < 8 ? cell * 4 * unit : max - (cell - 8) * 4 * unit, 0, max);
            };
            add(fmt::format("hard {}x{} {}-bit {} saturated colours (ciede)", width, height, depth, subsampling_name(sub)), f,
                colour, [=](int p, int x, int y, int i) {
                    const int v = colour(p, x, y, i);
                    const int mid = 128 * unit;
                    return p == 0 ? std::clamp(v + 3 * unit, 0, max) : v + (mid - v) / 24;
                });
        }
    }
    {
        // The gain limits' case: a distorted picture sharper than its reference (an unsharp mask
        // with gain 2 on a blurred texture), so ADM's enhancement gain limit binds; adm's and
        // float_adm's option corners (the non-integer limit 1.2 among them) run on it.
        VideoFormat f;
        f.width = 960;
        f.height = 540;
        f.bit_depth = 8;
        const auto texture = [&](int p, int x, int y, int i) {
            return 128 + ((x / 6 + y / 4 + i) % 2 ? 40 : -40) + static_cast<int>(hash(p, x / 3, y / 3, i) % 21) - 10;
        };
        const auto blurred = [&](int p, int x, int y, int i) {
            int s = 0;
            for (int d = -2; d <= 2; ++d) s += texture(p, std::max(x + d, 0), y, i) + texture(p, x, std::max(y + d, 0), i);
            return s / 10;
        };
        add("hard 960x540 8-bit sharpened distortion (adm gain limits)", f,
            [&](int p, int x, int y, int i) { return std::clamp(blurred(p, x, y, i), 0, 255); },
            [&](int p, int x, int y, int i) { return std::clamp(3 * texture(p, x, y, i) - 2 * blurred(p, x, y, i), 0, 255); },
            {"adm", "float_adm"});
    }
    {
        // SpEED's case: a 1920x1080 8-bit pair of three frames (temporal differences on two)
        // with detail at several scales, on which speed_chroma's and speed_temporal's option
        // corners run: every prescale method and the smallest and largest prescale.
        VideoFormat f;
        f.width = 1920;
        f.height = 1080;
        f.bit_depth = 8;
        const auto scene = [&](int p, int x, int y, int i) {
            return ((x / 5 + y / 3 + i * 7 + p * 30) % 160) + 40 + static_cast<int>(hash(p, x / 2, y / 2, i) % 25);
        };
        add("hard 1920x1080 8-bit detail at several scales (SpEED's corners)", f, scene,
            [&](int p, int x, int y, int i) { return std::clamp(scene(p, x, y, i) + static_cast<int>(hash(p, x, y, i + 5) % 13) - 6, 0, 255); },
            {"speed_chroma", "speed_temporal"}, 3);
    }
    return out;
}

}  // namespace vmafx
