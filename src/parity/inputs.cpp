#include "parity/inputs.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

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

std::vector<ParityInput> random_inputs(const std::string& dir, unsigned count, unsigned seed) {
    fs::create_directories(dir);
    std::mt19937 rng(seed);
    std::vector<ParityInput> out;
    for (int depth : {8, 10, 12, 16})
        for (unsigned k = 0; k < count; ++k) {
            VideoFormat f;
            f.width = 33 + 2 * static_cast<int>(rng() % 200);   // odd, 33..431
            f.height = 33 + 2 * static_cast<int>(rng() % 120);  // odd, 33..271
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


std::vector<ParityInput> hard_inputs(const std::string& dir) {
    fs::create_directories(dir);
    std::vector<ParityInput> out;
    const auto add = [&](const std::string& label, const VideoFormat& f, auto ref, auto dist) {
        const std::string base = fmt::format("{}/hard_{}x{}_{}bit_{}", dir, f.width, f.height, f.bit_depth,
                                             subsampling_name(f.subsampling));
        write_video(base + "_ref.yuv", f, 2, ref);
        write_video(base + "_dist.yuv", f, 2, dist);
        out.push_back({label, base + "_ref.yuv", base + "_dist.yuv", f, false});
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
    return out;
}

}  // namespace vmafx
