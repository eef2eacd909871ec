#include "test_support.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

namespace vmafx::test {

namespace fs = std::filesystem;

fs::path shared_dir() {
    if (const char* env = std::getenv("VMAFX_SHARED")) return fs::is_directory(env) ? fs::path(env) : fs::path();
    const fs::path p = fs::path(VMAFX_SOURCE_DIR).parent_path() / "shared";
    return fs::is_directory(p / "golden") ? p : fs::path();
}

fs::path fixtures_dir() {
    if (const char* env = std::getenv("VMAFX_FIXTURES")) return fs::is_directory(env) ? fs::path(env) : fs::path();
    const fs::path p = fs::path(VMAFX_SOURCE_DIR) / ".fixtures";
    return fs::is_directory(p) ? p : fs::path();
}

VideoFormat fixture_format(const std::string& name) {
    std::ifstream in(fixtures_dir() / name / "fixture.ini");
    if (!in) throw std::runtime_error("no fixture.ini for " + name);
    std::map<std::string, std::string> kv;
    for (std::string line; std::getline(in, line);)
        if (auto eq = line.find('='); eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    VideoFormat f;
    f.width = std::stoi(kv.at("width"));
    f.height = std::stoi(kv.at("height"));
    const std::string pf = kv.at("pix_fmt");  // e.g. yuv420p10le
    parse_subsampling(pf.substr(3, 3), f.subsampling);
    const std::string rest = pf.substr(7);
    f.bit_depth = rest.size() > 2 && rest.ends_with("le") ? std::stoi(rest.substr(0, rest.size() - 2)) : 8;
    return f;
}

unsigned fixture_frames(const std::string& name) {
    const VideoFormat f = fixture_format(name);
    return static_cast<unsigned>(fs::file_size(fixtures_dir() / name / "ref.yuv") / f.frame_bytes());
}

Picture fixture_frame(const std::string& name, const std::string& which, unsigned index) {
    const VideoFormat f = fixture_format(name);
    Picture pic(f);
    std::ifstream in(fixtures_dir() / name / (which + ".yuv"), std::ios::binary);
    in.seekg(static_cast<std::streamoff>(f.frame_bytes() * index));
    for (int p = 0; p < 3; ++p) {
        Plane& pl = pic.planes[p];
        for (int y = 0; y < pl.height(); ++y)
            in.read(reinterpret_cast<char*>(pl.row<std::uint8_t>(y)),
                    static_cast<std::streamsize>(pl.width()) * pl.bytes_per_sample());
    }
    if (!in) throw std::runtime_error("short read of " + name + "/" + which + ".yuv");
    return pic;
}

nlohmann::json golden(const std::string& name) {
    std::ifstream in(shared_dir() / "golden" / (name + ".json"));
    return nlohmann::json::parse(in).at("result");
}

std::vector<std::string> golden_fixtures() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(shared_dir() / "golden"))
        if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace vmafx::test
