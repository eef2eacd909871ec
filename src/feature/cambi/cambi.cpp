// CAMBI, bit-exact to upstream libvmaf 3.2.0 (src/feature/cambi.c, cambi.h, luminance_tools.c,
// and x86/cambi_avx2.c, which produced the golden values: its kernels give the C code's bits):
// the options, what an instance derives from them (Plan), the extractor and the heatmap files.
// A picture's stages: cambi_preprocess.cpp (to 10 bits, the spatial mask) and cambi_contrast.cpp
// (contrast values, pooling, the score over five scales); cambi_internal.hpp lists the files.
#include "feature/cambi/cambi.hpp"
#include "feature/cambi/cambi_internal.hpp"
#include "feature/cambi/cambi_levels.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace vmafx {

namespace {

using cambi::Settings;

// Option table, as upstream's `options[]` of cambi.c.
constexpr OptionSpec kCambiOptions[] = {
    option<&Settings::max_val>("cambi_max_val", "cmxv", 1000.0, 0.0, 1000.0, OptionRole::kFeatureParameter,
                               "maximum value allowed; larger values will be clipped to this value").also_at("0.5"),
    option<&Settings::enc_width>("enc_width", "encw", 0, 180, 7680, OptionRole::kFeatureParameter, "Encoding width"),
    option<&Settings::enc_height>("enc_height", "ench", 0, 150, 7680, OptionRole::kFeatureParameter, "Encoding height"),
    option<&Settings::enc_bitdepth>("enc_bitdepth", "encbd", 0, 6, 16, OptionRole::kFeatureParameter, "Encoding bitdepth").also_at("8"),
    option<&Settings::src_width>("src_width", "srcw", 0, 320, 7680, OptionRole::kFeatureParameter, "Source width. Only used when full_ref=true."),
    option<&Settings::src_height>("src_height", "srch", 0, 200, 4320, OptionRole::kFeatureParameter,
                                  "Source height. Only used when full_ref=true."),
    option<&Settings::window_size>("window_size", "ws", 65, 15, 127, OptionRole::kFeatureParameter,
                                   "Window size to compute CAMBI: 65 corresponds to ~1 degree at 4k"),
    option<&Settings::topk>("topk", nullptr, 0.6, 0.0001, 1.0, OptionRole::kFeatureParameter,
                            "Ratio of pixels for the spatial pooling computation, must be 0 < topk <= 1.0"),
    option<&Settings::cambi_topk>("cambi_topk", "ctpk", 0.6, 0.0001, 1.0, OptionRole::kFeatureParameter,
                                  "Ratio of pixels for the spatial pooling computation, must be 0 < cambi_topk <= 1.0").also_at("0.2"),
    option<&Settings::tvi_threshold>("tvi_threshold", "tvit", 0.019, 0.0001, 1.0, OptionRole::kFeatureParameter,
                                     "Visibilty threshold for luminance \xCE\x94L < tvi_threshold*L_mean").also_at("0.1"),
    option<&Settings::vis_lum_threshold>("cambi_vis_lum_threshold", "vlt", 0.0, 0.0, 300.0, OptionRole::kFeatureParameter,
                                         "Luminance value below which we assume any banding is not visible").also_at("0.06,10,83.8352"),
    option<&Settings::max_log_contrast>(
        "max_log_contrast", "mlc", 2, 0, 5, OptionRole::kFeatureParameter,
        "Maximum contrast in log luma level (2^max_log_contrast) at 10-bits, e.g., 2 is equivalent to 4 luma "
        "levels at 10-bit and 1 luma level at 8-bit. From 0 to 5: default 2 is recommended for banding from "
        "compression."),
    option<&Settings::heatmaps_path>("heatmaps_path", nullptr, nullptr, OptionRole::kSetting, "Path where heatmaps will be dumped."),
    option<&Settings::full_ref>("full_ref", nullptr, 0, 0, 1, OptionRole::kSetting,
                                "If true, CAMBI will be run in full-reference mode and will be computed on both "
                                "the reference and distorted inputs"),
    option<&Settings::eotf>("eotf", nullptr, "bt1886", OptionRole::kFeatureParameter,
                            "Determines the EOTF used to compute the visibility thresholds. Possible values: "
                            "['bt1886', 'pq']. Default: 'bt1886'").also_at("pq,hlg"),
    option<&Settings::cambi_eotf>("cambi_eotf", "ceot", "bt1886", OptionRole::kFeatureParameter,
                                  "Determines the EOTF used to compute the visibility thresholds. Possible values: "
                                  "['bt1886', 'pq']. Default: 'bt1886'. If both eotf and cambi_eotf are set, "
                                  "cambi_eotf takes precedence.").also_at("pq"),
    option<&Settings::high_res_speedup>(
        "cambi_high_res_speedup", "hrs", 0, 0, 2160, OptionRole::kFeatureParameter,
        "Speed up the processing by downsampling post spatial mask for resolutions >= 1080p. Min speed-up "
        "resolution possible values: [1080, 1440, 2160, 0]. Default: 0 (not applied)Note some loss of accuracy "
        "is expected with this speedup.").also_at("1080,100"),
};

constexpr const char* kScoreFeature = "Cambi_feature_cambi_score";
constexpr const char* kSourceName = "cambi_source";
constexpr const char* kFullReferenceName = "cambi_full_reference";

// Upstream's provided_features[] with its alias (alias.c).
constexpr FeatureName kCambiFeatures[] = {{kScoreFeature, "cambi"}};

/// The row of option `name` in kCambiOptions (at compile time: a name not there does not compile).
constexpr const OptionSpec& cambi_option(std::string_view name) {
    for (const OptionSpec& o : kCambiOptions)
        if (name == o.name) return o;
    throw "cambi: no such option";
}
// The defaults the computation compares with (topk and cambi_eotf win when not at theirs): the
// table's, not written again.
constexpr double kDefaultTopk = cambi_option("topk").default_value;
constexpr std::string_view kDefaultEotf = cambi_option("cambi_eotf").default_text;

// --- A picture's stages: cambi_internal.hpp ---------------------------------------------------

using cambi::Band;
using cambi::Buffers;
using cambi::Heatmaps;
using cambi::kContrastWeights;
using cambi::kMinSide;
using cambi::kReciprocals;
using cambi::kScales;
using cambi::picture_score;
using cambi::Plan;
using cambi::preprocess;
using cambi::reciprocals;

// --- Luminance: cambi_levels.cpp ---------------------------------------------------------------

using cambi::adjusted_window;
using cambi::bt1886_eotf;
using cambi::Eotf;
using cambi::pq_eotf;
using cambi::tvi_for_diff;
using cambi::vlt_luma_for;

// --- What an instance derives from its options and format ------------------------------------

/// The band of an instance with this vlt_luma (cambi.c get_vlt_luma), num_diffs and band_top.
Band band_of(int vlt_luma, int num_diffs, int band_top) {
    const int low = vlt_luma - 3 * num_diffs + 1;
    const int base = low > 0 ? low : 0;
    return base <= band_top ? Band::kLevels : (base == band_top + 1 ? Band::kEmpty : Band::kWrapped);
}

// --- The extractor --------------------------------------------------------------------------------

// The windows' and scales' reach: upstream reads up to `pad` rows past a scale's last row and
// computes rows from height - pad on, so pad must stay within every scale's height (and within
// the picture's rows, the data written for this picture). Its windows also read the columns
// [width, pad) of the rows of a scale narrower than pad: earlier scales' data of the picture, or,
// past the picture's width, its buffers' padding, which is zero when the picture is the widest
// one the instance scores (`widest`; pad <= 32, as the window's square is below the reciprocal
// table's 4226 entries, so those columns stay inside a row aligned to 32 samples); with full_ref
// the narrower picture's columns past its width hold the other picture's data of an earlier
// frame, which vmafx does not keep, so a window wider than it is refused.
bool window_fits(int width, int height, int window, bool speedup, bool widest) {
    const int pad = window >> 1;
    if (pad >= height || (pad > width && !widest)) return false;
    int sw = width, sh = height;
    for (int scale = 0; scale < kScales; ++scale) {
        if (scale > 0 || speedup) {
            sw = (sw + 1) >> 1;
            sh = (sh + 1) >> 1;
        }
        if (pad > sh) return false;
    }
    return true;
}

class CambiExtractor final : public FeatureExtractor {
public:
    CambiExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {
        plan_ = cambi::make_plan(settings_, format);
        const Settings& s = settings_;
        if (!s.heatmaps_path.empty()) heatmaps_.open(s.heatmaps_path, plan_);
        (void)reciprocals();
    }

    ~CambiExtractor() override { heatmaps_.close(); }
    CambiExtractor(const CambiExtractor&) = delete;
    CambiExtractor& operator=(const CambiExtractor&) = delete;

    void extract(const FrameInput& in, FrameScores& out) const override {
        const Settings& s = settings_;
        thread_local Buffers buffers;
        const double dist = score_of(in.dist, "distorted", false, buffers, in.index);
        if (!s.full_ref) return cambi::append_scores(s, dist, nullptr, out);
        const double src = score_of(in.ref, "reference", true, buffers, in.index);
        cambi::append_scores(s, dist, &src, out);
    }

private:
    double score_of(const Picture* pic, const char* what, bool is_src, Buffers& b, unsigned frame) const {
        if (!pic) throw Error(fmt::format("cambi: no {} picture", what));
        const Plane& luma = pic->luma();
        if (luma.width() != format_.width || luma.height() != format_.height ||
            luma.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("cambi: {} luma is {}x{}, expected {}x{}", what, luma.width(), luma.height(),
                                    format_.width, format_.height));
        check_samples(luma, what);
        const Plan& p = plan_;
        const int width = is_src ? p.src_w : p.enc_w;
        const int height = is_src ? p.src_h : p.enc_h;
        b.prepare(p, width, height);
        preprocess(luma, format_.bit_depth, p, b, width, height);
        const Heatmaps* heatmaps = heatmaps_.fds[0] >= 0 && !is_src ? &heatmaps_ : nullptr;
        return picture_score(p, b, width, height, is_src ? p.src_window : p.window, heatmaps, frame, what);
    }

    // Upstream refuses samples above the bit depth (except at 8 and 16 bits, which cannot have any).
    void check_samples(const Plane& luma, const char* what) const {
        const int bits = format_.bit_depth;
        if (bits == 8 || bits == 16) return;
        const unsigned max = (1u << bits) - 1;
        for (int i = 0; i < luma.height(); ++i) {
            const std::uint16_t* row = luma.row<std::uint16_t>(i);
            // the row's largest sample first (a loop the compiler vectorises), then, only for a
            // row that has one above max, the first such sample
            unsigned largest = 0;
            for (int j = 0; j < luma.width(); ++j) largest = std::max<unsigned>(largest, row[j]);
            if (largest <= max) continue;
            for (int j = 0; j < luma.width(); ++j)
                if (row[j] > max)
                    throw cambi::sample_error(what, row[j], bits);
        }
    }

    VideoFormat format_;
    Settings settings_;
    Plan plan_;
    Heatmaps heatmaps_;
};

std::unique_ptr<FeatureExtractor> create_cambi(const Options& options, const VideoFormat& format) {
    return std::make_unique<CambiExtractor>(options, format);
}

// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "enc_width=480:enc_height=270",
    "enc_width=7680:enc_height=7680",
    "enc_width=180:enc_height=150",
    "enc_width=300:enc_height=150",
    "src_width=320:src_height=200",
    "full_ref=true:src_width=320:src_height=200",
    "full_ref=true:enc_width=480:enc_height=270:src_width=320:src_height=200",
    "full_ref=true:src_width=7680:src_height=200",
    "window_size=127:enc_width=300:enc_height=150",
    "topk=0.3:cambi_topk=0.9",
    "max_log_contrast=5:tvi_threshold=0.0001",
    "eotf=pq:cambi_eotf=bt1886",
    "cambi_eotf=pq:eotf=hlg",
    "eotf=pq:cambi_vis_lum_threshold=300",
    "full_ref=true:cambi_eotf=pq:max_log_contrast=3",
    "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
    // The band of levels (Band): one level; wrapped, where some fixtures are scored (0) and
    // others make upstream write outside its histograms (refused).
    "tvi_threshold=0.7:cambi_vis_lum_threshold=27",
    "eotf=pq:tvi_threshold=0.7:cambi_vis_lum_threshold=0.023",
    "max_log_contrast=0:cambi_vis_lum_threshold=3",
};

}  // namespace

namespace cambi {

// The Plan of an instance (cambi_internal.hpp): upstream's init, with its refusals.
Plan make_plan(const Settings& s, const VideoFormat& format) {
    const int w = format.width, h = format.height;
    Plan p;
    p.enc_bitdepth = s.enc_bitdepth == 0 ? format.bit_depth : s.enc_bitdepth;
    p.enc_w = s.enc_width, p.enc_h = s.enc_height;
    if (p.enc_w == 0 || p.enc_h == 0) p.enc_w = w, p.enc_h = h;
    p.src_w = s.src_width, p.src_h = s.src_height;
    if (p.src_w == 0 || p.src_h == 0) p.src_w = w, p.src_h = h;
    // An encode larger than the picture is not scaled back up.
    if (p.enc_h > h || p.enc_w > w) p.enc_w = w, p.enc_h = h;
    if (p.enc_w < kMinSide && p.enc_h < kMinSide)
        throw Error(fmt::format("cambi: picture {}x{} is too small: the encode ({}x{}) must be at least {} wide "
                                "or high (upstream refuses it at initialisation)",
                                w, h, p.enc_w, p.enc_h, kMinSide));
    if (p.src_w < kMinSide && p.src_h < kMinSide)
        throw Error(fmt::format("cambi: the source ({}x{}) must be at least {} wide or high (upstream refuses "
                                "it at initialisation)",
                                p.src_w, p.src_h, kMinSide));
    if ((p.src_w > p.enc_w && p.src_h < p.enc_h) || (p.src_w < p.enc_w && p.src_h > p.enc_h))
        throw Error(fmt::format("cambi: source {}x{} and encode {}x{} are scaled in opposite directions "
                                "(upstream refuses it at initialisation)",
                                p.src_w, p.src_h, p.enc_w, p.enc_h));
    const long enc_pix = static_cast<long>(p.enc_w) * p.enc_h;
    switch (s.high_res_speedup) {
    case 1080: p.speedup = enc_pix >= 1920L * 1080; break;
    case 1440: p.speedup = enc_pix >= 2560L * 1440; break;
    case 2160: p.speedup = enc_pix >= 3840L * 2160; break;
    default: p.speedup = false;
    }
    p.alloc_w = s.full_ref ? std::max(p.src_w, p.enc_w) : p.enc_w;
    p.alloc_h = s.full_ref ? std::max(p.src_h, p.enc_h) : p.enc_h;

    const std::string& eotf_name = s.cambi_eotf != kDefaultEotf ? s.cambi_eotf : s.eotf;
    Eotf eotf = nullptr;
    if (eotf_name == "bt1886") eotf = bt1886_eotf;
    else if (eotf_name == "pq") eotf = pq_eotf;
    else
        throw Error(fmt::format("cambi: unknown EOTF \"{}\" (eotf and cambi_eotf take bt1886 or pq)", eotf_name));

    p.num_diffs = 1 << s.max_log_contrast;
    for (int d = 0; d < p.num_diffs; ++d)
        p.tvi.push_back(static_cast<std::uint16_t>(tvi_for_diff(d + 1, s.tvi_threshold, eotf) + p.num_diffs));
    const int vlt = vlt_luma_for(s.vis_lum_threshold, eotf);
    if (vlt < 0)
        throw Error(fmt::format("cambi: cambi_vis_lum_threshold={:g} is above the largest luminance of the "
                                "EOTF \"{}\" (upstream never finishes its initialisation)",
                                s.vis_lum_threshold, eotf_name));
    p.vlt_luma = static_cast<std::uint16_t>(vlt);

    p.window = adjusted_window(s.window_size, p.enc_w, p.enc_h, p.speedup);
    p.src_window = adjusted_window(s.window_size, p.src_w, p.src_h, p.speedup);
    const int max_window = std::max(p.window, p.src_window);
    if (max_window * max_window >= kReciprocals)
        throw Error(fmt::format("cambi: window_size {} is {} at this resolution, too large for the reciprocal "
                                "table (at most 65; upstream refuses it at initialisation)",
                                s.window_size, max_window));

    const int low = static_cast<int>(p.vlt_luma) - 3 * p.num_diffs + 1;
    p.band_base = low > 0 ? low : 0;
    p.band_top = p.tvi[static_cast<std::size_t>(p.num_diffs - 1)];
    p.band = band_of(p.vlt_luma, p.num_diffs, p.band_top);
    // (kEmpty, kWrapped: every contrast value is 0; no histograms; band_reach_error decides
    // per picture)
    p.band_size = p.band == Band::kLevels ? p.band_top + 1 - p.band_base : 0;
    p.band_options = fmt::format("tvi_threshold={:g} with cambi_vis_lum_threshold={:g}, max_log_contrast={} and "
                                 "EOTF {} put the band of levels at [{}, {}] ({}; upstream's uint16_t size {})",
                                 s.tvi_threshold, s.vis_lum_threshold, s.max_log_contrast, eotf_name, p.band_base,
                                 p.band_top, p.band == Band::kEmpty ? "empty" : "base above top",
                                 static_cast<std::uint16_t>(p.band_top + 1 - p.band_base));
    for (int d = 1; d < p.num_diffs; ++d)
        if (p.tvi[static_cast<std::size_t>(d)] < p.tvi[static_cast<std::size_t>(d - 1)])
            throw Error("internal: cambi's visibility limits are not increasing");

    const double topk = s.topk != kDefaultTopk ? s.topk : s.cambi_topk;
    p.topk = topk;

    const auto check_reach = [&](int width, int height, int window, const char* what) {
        if (!window_fits(width, height, window, p.speedup, width == p.alloc_w))
            throw Error(fmt::format("cambi: picture {}x{} is too small for its window: the {} ({}x{}) with a "
                                    "window of {} at 5 scales (upstream reads outside its buffers)",
                                    w, h, what, width, height, window));
    };
    check_reach(p.enc_w, p.enc_h, p.window, "encode");
    if (s.full_ref) {
        check_reach(p.src_w, p.src_h, p.src_window, "source");
        // Upstream copies a 10-bit picture of the encode's size with the picture's row
        // stride into a wider buffer, mixing its rows with undefined padding.
        const auto aligned = [](int x) { return (x + 31) & ~31; };
        if (format.bit_depth == 10 && p.enc_w == w && p.enc_h == h && aligned(p.alloc_w) != aligned(w))
            throw Error(fmt::format("cambi: full_ref with a source ({}x{}) wider than the 10-bit picture "
                                    "({}x{}) is not supported (upstream copies rows with the wrong stride)",
                                    p.src_w, p.src_h, w, h));
    }
    return p;
}

// cambi.c init: the directory (made as mkdirp does, mode 0770) and the five files, truncated,
// named by the encode's size halved (rounding up) per scale.
void Heatmaps::open(const std::string& dir, const Plan& plan) {
    const auto fail = [&](const std::string& what) {
        return Error(fmt::format("cambi: heatmaps_path \"{}\": {}", dir, what));
    };
    for (std::size_t at = 1; at <= dir.size(); ++at) {
        if (at < dir.size() && dir[at] != '/') continue;
        const std::string prefix = dir.substr(0, at);
        struct stat st {};
        if (::stat(prefix.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode)) throw fail(fmt::format("{} is not a directory", prefix));
            continue;
        }
        if (::mkdir(prefix.c_str(), 0770) != 0) throw fail(fmt::format("cannot make the directory {}", prefix));
    }
    int w = plan.enc_w, h = plan.enc_h;
    for (int scale = 0; scale < kScales; ++scale) {
        const std::string path = fmt::format("{}/cambi_heatmap_scale_{}_{}x{}_16b.gray", dir, scale, w, h);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) throw fail(fmt::format("cannot open {}", path));
        fds[static_cast<std::size_t>(scale)] = fd;
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
    }
    int max_weight = kContrastWeights[0];
    for (int d = 0; d < plan.num_diffs; ++d) max_weight = std::max(max_weight, kContrastWeights[d]);
    const int max_c = max_weight * plan.window * plan.window / 4;
    scaling = static_cast<double>((1 << 16) - 1) / max_c;
}

void Heatmaps::close() {
    for (int& fd : fds) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
}

Error sample_error(const char* what, unsigned value, int bit_depth) {
    return Error(fmt::format("cambi: the {} picture has a sample of {} above the largest {}-bit value {} (upstream "
                             "refuses it)",
                             what, value, bit_depth, (1u << bit_depth) - 1));
}

void append_scores(const Settings& s, double dist, const double* src, FrameScores& out) {
    out.emplace_back(s.score_name, dist < s.max_val ? dist : s.max_val);
    if (!src) return;
    out.emplace_back(kSourceName, *src < s.max_val ? *src : s.max_val);
    const double diff = dist - *src;
    const double combined = 0 > diff ? 0 : diff;
    out.emplace_back(kFullReferenceName, combined < s.max_val ? combined : s.max_val);
}

void Heatmaps::write(int scale, const float* c, int width, int height, unsigned frame) const {
    std::vector<std::uint16_t> row(static_cast<std::size_t>(width));
    for (int i = 0; i < height; ++i) {
        for (int j = 0; j < width; ++j)
            row[static_cast<std::size_t>(j)] = static_cast<std::uint16_t>(scaling * c[i * width + j]);
        const std::int64_t offset = (static_cast<std::int64_t>(frame) * height + i) * width * 2;
        const std::size_t bytes = row.size() * sizeof(std::uint16_t);
        if (::pwrite(fds[static_cast<std::size_t>(scale)], row.data(), bytes, static_cast<off_t>(offset)) !=
            static_cast<ssize_t>(bytes))
            throw Error(fmt::format("cambi: cannot write the heatmap of scale {} (frame {})", scale, frame));
    }
}

const MetricDescriptor descriptor{
    .name = "cambi", .oracle = {kLibvmaf, "libvmaf/src/feature/cambi.c"},
    .options = kCambiOptions, .features = kCambiFeatures, .planes = nullptr, .history = nullptr,
    .limits = {.min_width = 1,
               .min_height = 2,
               .bit_depths = kEveryBitDepth,
               .why = "(upstream refuses pictures below 216 in both dimensions, and its windows reach outside "
                      "a picture 1 high)",
               .min_longer_side = kMinSide},
    .create = create_cambi, .corner_sets = kCornerSets};

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) : score_name(options.feature_name(kScoreFeature)) { options.bind(*this); }

}  // namespace cambi

}  // namespace vmafx
