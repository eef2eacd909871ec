// float_adm's CUDA twin as host code: the per-thread functions of float_adm_twin.hpp run on the
// host in the kernels' decomposition (a DWT output, a decoupled or weighted sample, a term per
// position; a row sum per row; the rows' sum per band), as float_adm_cuda.cu launches them, give
// the CPU's compute_adm bit for bit; each planted regression changes an output. No GPU needed:
// this proves the twin's arithmetic and indexing, the kernels add only the thread mapping.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "feature/float_adm/float_adm.hpp"
#include "feature/float_adm/float_adm_twin.hpp"

namespace vmafx::float_adm {
namespace {

using floatimg::Image;
using twin_work::Band3;
using twin_work::Level;
using twin_work::Plant;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The twin's frame on the host: float_adm_cuda.cu's enqueue() and finish() with loops for grids.
Scores emulate(const Image& ref, const Image& dis, const Settings& st, Plant plant) {
    Level levels[4];
    twin_work::levels_of(ref.width, ref.height, levels);
    const twin_work::Taps taps = twin_work::dwt_taps_table();
    const twin_work::Power pw{st.p_norm == 3.0, static_cast<float>(st.p_norm), &libm::powf_tables()};
    std::vector<std::uint32_t> table(kRcpTable, kRcpTable + 4096);
    const std::size_t n0 = static_cast<std::size_t>(levels[0].bw) * levels[0].bh;
    std::vector<float> pic[2] = {std::vector<float>(ref.data.begin(), ref.data.end()),
                                 std::vector<float>(dis.data.begin(), dis.data.end())};
    std::vector<float> bands[4][2][4];
    std::vector<float> dec[2][3], val[3], flt[3];
    // Scratch filled with NaN: a read of anything not written first shows in the scores.
    for (auto& part : dec)
        for (auto& b : part) b.assign(n0, NAN);
    for (int t = 0; t < 3; ++t) val[t].assign(n0, NAN), flt[t].assign(n0, NAN);
    std::vector<float> terms(3 * n0, NAN), row_sums(3 * static_cast<std::size_t>(levels[0].bh), NAN);
    const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(n0);
    const int row_pitch = levels[0].bh;
    float acc[4][3][3] = {};
    const auto sum_rows = [&](int n, int rows, float* out) {
        if (n <= 0 || rows <= 0) return;
        for (int t = 0; t < 3; ++t)
            for (int r = 0; r < rows; ++r)
                row_sums[t * row_pitch + r] = twin_work::row_sum_at(terms.data() + t * plane + static_cast<std::ptrdiff_t>(r) * n, n, plant.order);
        for (int t = 0; t < 3; ++t) out[t] = twin_work::row_sum_at(row_sums.data() + t * row_pitch, rows, false);
    };
    const auto band3 = [](std::vector<float>* b) { return Band3{{b[0].data(), b[1].data(), b[2].data()}}; };
    for (int s = 0; s < 4; ++s) {
        const Level& l = levels[s];
        const bool skip = s == 0 && st.skip_scale0;
        for (int p = 0; p < 2; ++p) {
            for (auto& b : bands[s][p]) b.assign(static_cast<std::size_t>(l.bw) * l.bh, NAN);
            const float* src = s == 0 ? pic[p].data() : bands[s - 1][p][0].data();
            auto& b = bands[s][p];
            for (int i = 0; i < l.bh; ++i)
                for (int j = 0; j < l.bw; ++j)
                    twin_work::dwt_at(src, l.w, l.h, l.bw, i, j, taps, skip, b[0].data(), b[1].data(), b[2].data(),
                                      b[3].data(), plant);
        }
        if (skip) continue;
        const std::array<float, 2> f = st.factors(s);
        const Band3 rb = band3(&bands[s][0][1]), db = band3(&bands[s][1][1]);
        const Band3 rst = band3(dec[0]), add = band3(dec[1]), vb = band3(val), fb = band3(flt);
        for (int i = l.ext.top; i < l.ext.bottom; ++i)
            for (int j = l.ext.left; j < l.ext.right; ++j)
                twin_work::decouple_at(rb, db, rst, add, static_cast<std::ptrdiff_t>(i) * l.bw + j, st.enhn_gain_limit,
                                       table.data());
        const Region& sc = l.score;
        const int sw = sc.right - sc.left, sh = sc.bottom - sc.top;
        for (int y = 0; y < sh; ++y)
            for (int x = 0; x < sw; ++x) {
                const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(sc.top + y) * l.bw + sc.left + x;
                const float rf[3] = {f[0], f[0], f[1]};
                for (int t = 0; t < 3; ++t) terms[t * plane + y * sw + x] = twin_work::den_term(rb.b[t][o], rf[t], pw);
            }
        sum_rows(sw, sh, acc[s][0]);
        const Band3 maskers[2] = {add, rst};
        const Band3 sources[2] = {rst, add};
        const int cw = l.cm.last - l.cm.first, ch = l.cm_r1 - l.cm_r0;
        for (int k = 0; k < 2; ++k) {
            for (int i = l.ext.top; i < l.ext.bottom; ++i)
                for (int j = l.ext.left; j < l.ext.right; ++j)
                    twin_work::csf_at(maskers[k], f[0], f[1], static_cast<std::ptrdiff_t>(i) * l.bw + j, vb, fb, plant);
            for (int y = 0; y < ch; ++y)
                for (int x = 0; x < cw; ++x) {
                    const int i = l.cm_r0 + y, j = l.cm.first + x;
                    const float thr = st.bypass_cm != 0 ? 0.0f : twin_work::cm_threshold_at(vb, fb, l.cm, i, j, plant);
                    const float rf[3] = {f[0], f[0], f[1]};
                    for (int t = 0; t < 3; ++t)
                        terms[t * plane + y * cw + x] =
                            twin_work::cm_term(sources[k].b[t][static_cast<std::ptrdiff_t>(i) * l.bw + j], rf[t], thr, pw);
                }
            sum_rows(cw, ch, acc[s][1 + k]);
        }
    }
    std::array<ScaleValues, 4> values{};
    for (int s = 0; s < 4; ++s) {
        if (s == 0 && st.skip_scale0) {
            values[s].den = 1e-10f;
            continue;
        }
        values[s].den = pooled_p_norm(acc[s][0], levels[s].score, st.noise_weight, st.p_norm);
        values[s].num = pooled_p_norm(acc[s][1], levels[s].score, st.noise_weight, st.p_norm);
        values[s].aim_num = pooled_p_norm(acc[s][2], levels[s].score, 0.0, st.p_norm);
    }
    return scores_of(values, ref.width, ref.height, st);
}

/// A w x h luma as picture_copy makes it of `depth`-bit samples: a smooth ramp plus noise.
Image picture(int w, int h, int depth, unsigned seed, int noise) {
    std::mt19937 rng(seed);
    Image im(w, h);
    const int max = (1 << depth) - 1;
    const float scaler = depth == 8 ? 1.0f : static_cast<float>(1 << (depth - 8));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int v = ((x * 7 + y * 5) * (max / 255 + 1)) % (max + 1);
            v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
            v = v < 0 ? 0 : (v > max ? max : v);
            im.row(y)[x] = static_cast<float>(v) / scaler + -128.0f;
        }
    return im;
}

/// Settings of "name=value:name=value..." (empty: the defaults).
Settings settings_of(const std::string& spec) {
    OptionValues values;
    std::size_t start = 0;
    while (start < spec.size()) {
        std::size_t end = spec.find(':', start);
        if (end == std::string::npos) end = spec.size();
        const std::string item = spec.substr(start, end - start);
        const std::size_t eq = item.find('=');
        values.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        start = end + 1;
    }
    return Settings(descriptor.parse_options(values));
}

std::vector<double> values_of(const Scores& s) {
    std::vector<double> v = {s.score, s.score_aim, s.num, s.den};
    v.insert(v.end(), s.scales.begin(), s.scales.end());
    return v;
}

struct Shape {
    int w, h, depth;
};
constexpr Shape kShapes[] = {{17, 17, 8}, {18, 19, 10}, {33, 35, 8}, {64, 48, 12}, {161, 97, 16}, {243, 131, 8}};
const char* const kSpecs[] = {"",
                              "adm_enhn_gain_limit=1.2",
                              "adm_enhn_gain_limit=1.0",
                              "adm_enhn_gain_limit=1.37:adm_noise_weight=0.5",
                              "adm_bypass_cm=1",
                              "adm_csf_mode=1:adm_csf_scale=2",
                              "adm_csf_mode=2:adm_norm_view_dist=6:adm_ref_display_height=720",
                              "adm_skip_scale0=true:adm_skip_aim_scale=0",
                              "adm_f1s1=10:adm_f2s2=0.5:adm_f1s3=2",
                              "adm_p_norm=2.5",
                              "adm_p_norm=1:adm_enhn_gain_limit=1.2",
                              "adm_p_norm=20",
                              "adm_p_norm=1.75:adm_bypass_cm=1"};

TEST(FloatAdmTwinHost, KernelDecompositionGivesTheCpuBits) {
    for (const Shape& sh : kShapes)
        for (const char* spec : kSpecs) {
            SCOPED_TRACE(std::to_string(sh.w) + "x" + std::to_string(sh.h) + " " + spec);
            const Settings st = settings_of(spec);
            const Image ref = picture(sh.w, sh.h, sh.depth, 1, 40);
            const Image dis = picture(sh.w, sh.h, sh.depth, 2, 60);
            const std::vector<double> cpu = values_of(compute_adm(ref, dis, st));
            const std::vector<double> gpu = values_of(emulate(ref, dis, st, Plant{}));
            ASSERT_EQ(cpu.size(), gpu.size());
            for (std::size_t k = 0; k < cpu.size(); ++k)
                EXPECT_TRUE(same_bits(cpu[k], gpu[k])) << "value " << k << ": cpu " << cpu[k] << ", twin " << gpu[k];
        }
}

TEST(FloatAdmTwinHost, EachPlantChangesAnOutput) {
    for (const PlantedDefect d : {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                  PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder}) {
        SCOPED_TRACE(planted_defect_name(d));
        bool changed = false;
        for (const Shape& sh : {Shape{161, 97, 8}, Shape{243, 131, 10}}) {
            const Settings st = settings_of("");
            const Image ref = picture(sh.w, sh.h, sh.depth, 3, 40);
            const Image dis = picture(sh.w, sh.h, sh.depth, 4, 60);
            const std::vector<double> cpu = values_of(compute_adm(ref, dis, st));
            const std::vector<double> planted = values_of(emulate(ref, dis, st, Plant::of(d)));
            for (std::size_t k = 0; k < cpu.size(); ++k) changed = changed || !same_bits(cpu[k], planted[k]);
        }
        EXPECT_TRUE(changed);
    }
}

TEST(FloatAdmMath, CosineOfOneDegreeSquaredIsUpstreams) {
    const double c = std::cos(1.0 * 3.14159265358979323846 / 180.0);
    EXPECT_EQ(kCos1DegSq, static_cast<float>(c * c));
}

}  // namespace
}  // namespace vmafx::float_adm
