#include "parity/inputs.hpp"

#include <algorithm>
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

void write_random_video(const std::string& path, const VideoFormat& f, int frames, unsigned seed, int noise) {
    std::mt19937 rng(seed);
    std::mt19937 base_rng(7);  // the same base content for every seed: ref and dist correlate
    const int max = (1 << f.bit_depth) - 1;
    std::ofstream out(path, std::ios::binary);
    std::vector<unsigned char> row;
    for (int i = 0; i < frames; ++i)
        for (int p = 0; p < 3; ++p)
            for (int y = 0; y < f.plane_height(p); ++y) {
                row.clear();
                for (int x = 0; x < f.plane_width(p); ++x) {
                    const int smooth = ((x * 7 + y * 3 + i * 5) * (max / 255 + 1)) % (max + 1);
                    int v = smooth + static_cast<int>(base_rng() % 9) - 4;
                    if (noise) v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
                    v = std::clamp(v, 0, max);
                    row.push_back(static_cast<unsigned char>(v & 0xff));
                    if (f.bit_depth > 8) row.push_back(static_cast<unsigned char>(v >> 8));
                }
                out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
            }
    if (!out) throw Error(fmt::format("{}: cannot write", path));
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

}  // namespace vmafx
