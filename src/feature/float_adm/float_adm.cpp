// Floating-point ADM (additive impairment and detail loss measure), bit-exact with upstream
// libvmaf 3.2.0's "float_adm" extractor (src/feature/float_adm.c, adm.c compute_adm,
// adm_tools.c, adm_tools.h; CSF weights from adm_csf.*, shared with the integer ADM).
//
// Both luma planes become floats minus 128 and go through four levels of a Daubechies-2 DWT
// (float taps, borders mirrored repeating the edge sample). At each level the distorted
// detail bands (h, v, d) are split into the part explained by the reference (restored: the
// reference scaled by the clamped ratio, or the distorted band itself, within the gain limit,
// where the h/v angle differs by less than 1 degree) and the additive rest. The restored part,
// CSF-weighted and reduced by a contrast-masking threshold from the 3x3 neighbourhood of the
// weighted additive part, gives the level's numerator (a p-norm over the picture without a
// 10% border, plus a noise constant); the reference's weighted bands give its denominator;
// the additive part masked by the restored one gives the AIM numerator. Ratios 1/x are
// computed as upstream does on SSE2: x * (refined rcpss reciprocal), with the rcpss table of the
// machines upstream's golden values come from, in software (rcp_estimate.hpp), on every CPU.
#include "feature/float_adm/float_adm.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/libm.hpp"
#include "feature/common/adm_csf.hpp"
#include "feature/float_adm/float_adm_kernels.hpp"

namespace vmafx {

namespace float_adm {

namespace {

using floatimg::Image;

constexpr double kBorderFactor = 0.1;  // upstream ADM_BORDER_FACTOR
constexpr int kScales = 4;
constexpr const float* kLo = kDwtLo;
constexpr const float* kHi = kDwtHi;

struct Bands {
    Image a, h, v, d;
};

// The images of a thread's frames, kept for its next frame instead of newly zero-filled ones:
// every sample a frame reads is one it wrote first (the DWT writes its whole bands; decouple and
// csf their extended region, and csf, cm and the scores read only inside it), so what an image
// held before does not reach any score. A thread keeps at most kMaxImages images between runs
// (about 55 MB at 1080p, 220 MB at 4K: one frame's worth of each size in use).
class ImagePool {
public:
    Image take(int w, int h) {
        for (std::size_t k = 0; k < free_.size(); ++k)
            if (free_[k].width == w && free_[k].height == h) {
                Image im = std::move(free_[k]);
                free_[k] = std::move(free_.back());
                free_.pop_back();
                return im;
            }
        return Image(w, h);
    }
    void give(Image& im) {
        if (!im.data.empty()) {
            // Full: the image given back longest ago goes (after a change of frame size the
            // old size's images leave the pool instead of keeping the new size's out of it).
            if (free_.size() == kMaxImages) free_.erase(free_.begin());
            free_.push_back(std::move(im));
        }
        im = Image();
    }
    void give(Bands& b) {
        give(b.a), give(b.h), give(b.v), give(b.d);
    }

private:
    static constexpr std::size_t kMaxImages = 96;  // several frame sizes' worth
    std::vector<Image> free_;
};

ImagePool& pool() {
    thread_local ImagePool p;
    return p;
}

// Upstream dwt2_src_indices_filt_s: source indices 2i-1 .. 2i+2 of output i, mirrored
// repeating the edge (dwt_source: -1 -> 1, n -> n-1, n+1 -> n-2).
std::vector<std::array<int, 4>> dwt_indices(int n) {
    std::vector<std::array<int, 4>> ind(static_cast<std::size_t>((n + 1) / 2));
    for (int i = 0; i < (n + 1) / 2; ++i)
        ind[i] = {dwt_source(2 * i - 1, n), dwt_source(2 * i, n), dwt_source(2 * i + 1, n), dwt_source(2 * i + 2, n)};
    return ind;
}

float taps(const float* f, float s0, float s1, float s2, float s3) {
    return dwt_taps(f[0], f[1], f[2], f[3], s0, s1, s2, s3);
}

// Upstream adm_dwt2_s (all four bands) / adm_dwt2_lo_s (band a only).
Bands dwt2(const Image& src, bool lo_only) {
    const int w = src.width;
    const int h = src.height;
    const int bw = (w + 1) / 2;
    const int bh = (h + 1) / 2;
    const auto iy = dwt_indices(h);
    const auto ix = dwt_indices(w);
    Bands out;
    out.a = pool().take(bw, bh);
    if (!lo_only) {
        out.h = pool().take(bw, bh);
        out.v = pool().take(bw, bh);
        out.d = pool().take(bw, bh);
    }
    std::vector<float, floatimg::SampleAllocator> lo_row(static_cast<std::size_t>(w));
    std::vector<float, floatimg::SampleAllocator> hi_row(static_cast<std::size_t>(w));
    float* __restrict lo = lo_row.data();
    float* __restrict hi = hi_row.data();
    // Outputs whose four source columns 2j-1 .. 2j+2 lie inside the row (no mirroring): a loop
    // the compiler can vectorise; the others through the mirrored indices.
    const int inner_first = 1;
    const int inner_last = w >= 3 ? std::min(bw, (w - 3) / 2 + 1) : 1;
    for (int i = 0; i < bh; ++i) {
        const float* __restrict r0 = src.row(iy[i][0]);
        const float* __restrict r1 = src.row(iy[i][1]);
        const float* __restrict r2 = src.row(iy[i][2]);
        const float* __restrict r3 = src.row(iy[i][3]);
        for (int j = 0; j < w; ++j) lo[j] = taps(kLo, r0[j], r1[j], r2[j], r3[j]);
        if (!lo_only)
            for (int j = 0; j < w; ++j) hi[j] = taps(kHi, r0[j], r1[j], r2[j], r3[j]);
        float* __restrict a = out.a.row(i);
        const auto edge = [&](int j) {
            const auto& x = ix[j];
            a[j] = taps(kLo, lo[x[0]], lo[x[1]], lo[x[2]], lo[x[3]]);
            if (lo_only) return;
            out.v.row(i)[j] = taps(kHi, lo[x[0]], lo[x[1]], lo[x[2]], lo[x[3]]);
            out.h.row(i)[j] = taps(kLo, hi[x[0]], hi[x[1]], hi[x[2]], hi[x[3]]);
            out.d.row(i)[j] = taps(kHi, hi[x[0]], hi[x[1]], hi[x[2]], hi[x[3]]);
        };
        edge(0);
        for (int j = inner_first; j < inner_last; ++j)
            a[j] = taps(kLo, lo[2 * j - 1], lo[2 * j], lo[2 * j + 1], lo[2 * j + 2]);
        if (!lo_only) {
            float* __restrict v = out.v.row(i);
            float* __restrict hb = out.h.row(i);
            float* __restrict d = out.d.row(i);
            for (int j = inner_first; j < inner_last; ++j) {
                v[j] = taps(kHi, lo[2 * j - 1], lo[2 * j], lo[2 * j + 1], lo[2 * j + 2]);
                hb[j] = taps(kLo, hi[2 * j - 1], hi[2 * j], hi[2 * j + 1], hi[2 * j + 2]);
                d[j] = taps(kHi, hi[2 * j - 1], hi[2 * j], hi[2 * j + 1], hi[2 * j + 2]);
            }
        }
        for (int j = std::max(inner_last, 1); j < bw; ++j) edge(j);
    }
    return out;
}

}  // namespace

Region extended_region(int w, int h) {
    Region r{static_cast<int>(w * kBorderFactor - 0.5 - 1), static_cast<int>(h * kBorderFactor - 0.5 - 1), 0, 0};
    r.right = w - r.left + 2;
    r.bottom = h - r.top + 2;
    if (r.left < 0) r.left = 0;
    if (r.right > w) r.right = w;
    if (r.top < 0) r.top = 0;
    if (r.bottom > h) r.bottom = h;
    return r;
}

Region score_region(int w, int h) {
    Region r{static_cast<int>(w * kBorderFactor - 0.5), static_cast<int>(h * kBorderFactor - 0.5), 0, 0};
    r.right = w - r.left;
    r.bottom = h - r.top;
    return r;
}

namespace {

// Upstream adm_decouple_s: restored (r) and additive (a) detail bands, a row at a time
// (decouple_pixel of float_adm_kernels.hpp, on lanes: simd_decouple_row()).
void decouple(const Bands& ref, const Bands& dis, double gain_limit, Bands& r, Bands& a) {
    const int w = ref.h.width;
    const int h = ref.h.height;
    r.h = pool().take(w, h), r.v = pool().take(w, h), r.d = pool().take(w, h);
    a.h = pool().take(w, h), a.v = pool().take(w, h), a.d = pool().take(w, h);
    const Region g = extended_region(w, h);
    const DecoupleRowFn row = simd_decouple_row();
    const int j = g.left;
    for (int i = g.top; i < g.bottom; ++i) {
        const DecoupleRow rows{ref.h.row(i) + j, ref.v.row(i) + j, ref.d.row(i) + j, dis.h.row(i) + j,
                               dis.v.row(i) + j, dis.d.row(i) + j, r.h.row(i) + j,   r.v.row(i) + j,
                               r.d.row(i) + j,   a.h.row(i) + j,   a.v.row(i) + j,   a.d.row(i) + j};
        if (g.right > j) row(rows, g.right - j, gain_limit);
    }
}

// Upstream adm_csf_s: the CSF-weighted bands (val) and 1/30 of their magnitudes (flt).
struct Weighted {
    std::array<Image, 3> val;
    std::array<Image, 3> flt;
};
Weighted csf(const Bands& src, const std::array<float, 2>& f) {
    const int w = src.h.width;
    const int h = src.h.height;
    const float rfactor[3] = {f[0], f[0], f[1]};
    const Image* in[3] = {&src.h, &src.v, &src.d};
    Weighted out;
    const Region g = extended_region(w, h);
    for (int t = 0; t < 3; ++t) {
        out.val[t] = pool().take(w, h);
        out.flt[t] = pool().take(w, h);
        for (int i = g.top; i < g.bottom; ++i)
            for (int j = g.left; j < g.right; ++j) {
                const float v = rfactor[t] * in[t]->row(i)[j];
                out.val[t].row(i)[j] = v;
                out.flt[t].row(i)[j] = csf_flt(v, kOneBy30);
            }
    }
    return out;
}

// x^p as upstream sums it: x * x * x for p = 3, powf otherwise (glibc 2.36's, base/libm.hpp).
float power(float x, double p) { return p == 3.0 ? x * x * x : libm::powf(x, static_cast<float>(p)); }

// Upstream get_noise_constant.
float noise_constant(int w, int h, double weight, double p) {
    return libm::powf(static_cast<float>(w * h * weight), static_cast<float>(1.0f / p));
}

}  // namespace

float pooled_p_norm(const float (&accum)[3], const Region& s, double noise_weight, double p) {
    const float noise = noise_constant(s.right - s.left, s.bottom - s.top, noise_weight, p);
    float band[3];
    for (int t = 0; t < 3; ++t) band[t] = libm::powf(accum[t], static_cast<float>(1.0f / p)) + noise;
    return band[0] + band[1] + band[2];
}

namespace {

// Upstream adm_csf_den_scale_s: the reference's weighted p-norm, per band, plus noise.
float den_scale_of(const Bands& ref, const std::array<float, 2>& f, double noise_weight, double p) {
    const float rfactor[3] = {f[0], f[0], f[1]};
    const Image* in[3] = {&ref.h, &ref.v, &ref.d};
    const Region s = score_region(ref.h.width, ref.h.height);
    float accum[3] = {0, 0, 0};
    for (int i = s.top; i < s.bottom; ++i) {
        float inner[3] = {0, 0, 0};
        for (int j = s.left; j < s.right; ++j)
            for (int t = 0; t < 3; ++t)
                inner[t] += p == 3.0 ? den_cube(in[t]->row(i)[j], rfactor[t])
                                     : power(std::fabs(rfactor[t] * in[t]->row(i)[j]), p);
        for (int t = 0; t < 3; ++t) accum[t] += inner[t];
    }
    return pooled_p_norm(accum, s, noise_weight, p);
}

}  // namespace

CmGeometry cm_geometry(int w, int h) {
    CmGeometry g{w, h, score_region(w, h), 0, 0, 0, 0, 0, 0};
    g.start_col = g.s.left > 1 ? g.s.left : 1;
    g.end_col = g.s.right < w - 1 ? g.s.right : w - 1;
    g.start_row = g.s.top > 1 ? g.s.top : 1;
    g.end_row = g.s.bottom < h - 1 ? g.s.bottom : h - 1;
    g.first = g.s.left <= 0 ? 0 : g.start_col;
    g.last = g.s.right > w - 1 ? w : g.end_col;
    return g;
}

namespace {

// The three rows (or columns) of sample i's neighbourhood in a dimension of n samples, as
// upstream's edge macros pick them (mirrored at the first, repeated at the last).
std::array<int, 3> neighbours(int i, int n) {
    if (i == 0) return {1, 0, 1};
    if (i == n - 1) return {n - 2, n - 1, n - 1};
    return {i - 1, i, i + 1};
}

// Band t's part of the threshold at row r[1], column c[1]: its nine 1/30 magnitudes summed in
// upstream's order, the centre's 1/15 (in double) fifth (the edge columns; cm_thresholds'
// interior loop spells out the same sum).
float edge_band_sum(const Weighted& masker, int t, const std::array<int, 3>& r, const std::array<int, 3>& c) {
    const float* f0 = masker.flt[t].row(r[0]);
    const float* f1 = masker.flt[t].row(r[1]);
    const float* f2 = masker.flt[t].row(r[2]);
    return cm_band_sum(f0[c[0]], f0[c[1]], f0[c[2]], f1[c[0]], f1[c[2]], f2[c[0]], f2[c[1]], f2[c[2]],
                       masker.val[t].row(r[1])[c[1]], kOneBy15);
}

// The masking thresholds of row i, columns [g.first, g.last), into thr: the three bands' sums
// added to 0 in band order, as upstream; interior columns in a loop the compiler can vectorise
// (lane = column), the edge columns 0 and w - 1 through edge_band_sum.
void cm_thresholds(const Weighted& masker, const CmGeometry& g, int i, float* thr) {
    const std::array<int, 3> r = neighbours(i, g.h);
    const int inner_first = g.first > 1 ? g.first : 1;
    const int inner_last = g.last < g.w - 1 ? g.last : g.w - 1;
    for (int j = g.first; j < g.last; ++j) thr[j] = 0.0f;
    for (int t = 0; t < 3; ++t) {
        {
            const float* __restrict f0 = masker.flt[t].row(r[0]);
            const float* __restrict f1 = masker.flt[t].row(r[1]);
            const float* __restrict f2 = masker.flt[t].row(r[2]);
            const float* __restrict v1 = masker.val[t].row(r[1]);
            float* __restrict out = thr;
            for (int j = inner_first; j < inner_last; ++j) {
                out[j] += cm_band_sum(f0[j - 1], f0[j], f0[j + 1], f1[j - 1], f1[j + 1], f2[j - 1], f2[j], f2[j + 1],
                                      v1[j], kOneBy15);
            }
        }
        for (int e = 0; e < (g.w > 1 ? 2 : 1); ++e) {  // the edge columns 0 and w - 1
            const int j = e == 0 ? 0 : g.w - 1;
            if (j < g.first || j >= g.last || (j >= inner_first && j < inner_last)) continue;
            thr[j] += edge_band_sum(masker, t, r, neighbours(j, g.w));
        }
    }
}

// Adds sample (i, j)'s masked terms max(|rfactor x| - thr[j], 0)^p to the row sums `inner`,
// band by band (an edge column).
void cm_add_column(const Image* const (&in)[3], const float (&rfactor)[3], const float* thr, int i, int j, double p,
                   float (&inner)[3]) {
    float x[3];
    for (int t = 0; t < 3; ++t) x[t] = in[t]->row(i)[j] * rfactor[t];
    const float threshold = thr[j];
    for (int t = 0; t < 3; ++t) {
        if (p == 3.0) {
            inner[t] += cm_cube(in[t]->row(i)[j], rfactor[t], threshold);
            continue;
        }
        float v = std::fabs(x[t]) - threshold;
        v = v < 0.0f ? 0.0f : v;
        inner[t] += power(v, p);
    }
}

// The interior columns of row i as cm_add_column does them, a band at a time: the terms first
// into `terms` (for p = 3 a loop the compiler can vectorise), then their sum in column order
// (upstream's order) onto `inner`.
void cm_add_interior(const Image* const (&in)[3], const float (&rfactor)[3], const float* thr, const CmGeometry& g,
                     int i, double p, float* terms, float (&inner)[3]) {
    for (int t = 0; t < 3; ++t) {
        const float* __restrict src = in[t]->row(i);
        const float* __restrict th = thr;
        float* __restrict term = terms;
        const float rf = rfactor[t];
        if (p == 3.0) {
            for (int j = g.start_col; j < g.end_col; ++j) term[j] = cm_cube(src[j], rf, th[j]);
        } else {
            for (int j = g.start_col; j < g.end_col; ++j) {
                float v = std::fabs(src[j] * rf) - th[j];
                v = v < 0.0f ? 0.0f : v;
                term[j] = power(v, p);
            }
        }
        float sum = inner[t];
        for (int j = g.start_col; j < g.end_col; ++j) sum += term[j];
        inner[t] = sum;
    }
}

// Upstream adm_cm_s: the weighted `src` bands reduced by the masking threshold of `masker`
// (the 3x3 neighbourhood of its 1/30 magnitudes, centre 1/15), as a p-norm plus noise. Rows in
// upstream's order (the first, the interior, the last), each one's sums closed into `accum`.
float cm(const Bands& src, const Weighted& masker, const std::array<float, 2>& f, double noise_weight, int bypass_cm,
         double p) {
    const CmGeometry g = cm_geometry(src.h.width, src.h.height);
    const float rfactor[3] = {f[0], f[0], f[1]};
    const Image* in[3] = {&src.h, &src.v, &src.d};
    std::vector<float, floatimg::SampleAllocator> thr(static_cast<std::size_t>(g.w), 0.0f);
    std::vector<float, floatimg::SampleAllocator> terms(static_cast<std::size_t>(g.w));
    float accum[3] = {0, 0, 0};
    float inner[3] = {0, 0, 0};
    const auto add_row = [&](int i) {
        if (bypass_cm == 0) cm_thresholds(masker, g, i, thr.data());
        if (g.s.left <= 0) cm_add_column(in, rfactor, thr.data(), i, 0, p, inner);
        cm_add_interior(in, rfactor, thr.data(), g, i, p, terms.data(), inner);
        if (g.s.right > g.w - 1) cm_add_column(in, rfactor, thr.data(), i, g.w - 1, p, inner);
    };
    const auto close_row = [&] {
        for (int t = 0; t < 3; ++t) {
            accum[t] += inner[t];
            inner[t] = 0;
        }
    };
    if (g.s.top <= 0) add_row(0);
    close_row();
    for (int i = g.start_row; i < g.end_row; ++i) {
        add_row(i);
        close_row();
    }
    if (g.s.bottom > g.h - 1) add_row(g.h - 1);
    close_row();
    return pooled_p_norm(accum, g.s, noise_weight, p);
}

}  // namespace

Scores compute_adm(const Image& ref, const Image& dis, const Settings& st) {
    std::array<ScaleValues, kScales> values{};
    Image own_ref, own_dis;  // the previous level's band a, from the second level on
    const Image* cur_ref = &ref;
    const Image* cur_dis = &dis;
    const auto give = [](Weighted&& w) {
        for (int t = 0; t < 3; ++t) pool().give(w.val[t]), pool().give(w.flt[t]);
    };
    for (int scale = 0; scale < kScales; ++scale) {
        ScaleValues& v = values[scale];
        const bool skip = scale == 0 && st.skip_scale0;
        Bands rb = dwt2(*cur_ref, skip);
        Bands db = dwt2(*cur_dis, skip);
        if (skip) {
            v.den = 1e-10f;
        } else {
            const std::array<float, 2> f = st.factors(scale);
            Bands r, a;
            decouple(rb, db, st.enhn_gain_limit, r, a);
            v.den = den_scale_of(rb, f, st.noise_weight, st.p_norm);
            {
                Weighted masker = csf(a, f);
                v.num = cm(r, masker, f, st.noise_weight, st.bypass_cm, st.p_norm);
                give(std::move(masker));
            }
            {
                Weighted masker = csf(r, f);
                v.aim_num = cm(a, masker, f, 0.0, st.bypass_cm, st.p_norm);
                give(std::move(masker));
            }
            pool().give(r);
            pool().give(a);
        }
        pool().give(own_ref);
        pool().give(own_dis);
        own_ref = std::move(rb.a);
        own_dis = std::move(db.a);
        cur_ref = &own_ref;
        cur_dis = &own_dis;
        pool().give(rb);
        pool().give(db);
    }
    pool().give(own_ref);
    pool().give(own_dis);
    return scores_of(values, ref.width, ref.height, st);
}

Scores scores_of(const std::array<ScaleValues, 4>& values, int width, int height, const Settings& st) {
    const double numden_limit = 1e-10 * (width * height) / (1920.0 * 1080.0);
    Scores out;
    double num = 0, den = 0, aim_num = 0, aim_den = 0;
    for (int scale = 0; scale < kScales; ++scale) {
        const ScaleValues& v = values[scale];
        num += v.num;
        den += v.den;
        if (st.skip_aim_scale != scale) {
            aim_den += v.den;
            aim_num += v.aim_num;
        }
        out.scales[2 * scale] = v.num;
        out.scales[2 * scale + 1] = v.den;
    }
    num = num < numden_limit ? 0 : num;
    den = den < numden_limit ? 0 : den;
    if (den == 0.0) {
        out.score = 1.0;
        out.score_aim = NAN;
    } else {
        const double q = aim_num / aim_den;
        out.score_aim = q < 1.0f ? q : 1.0f;
        out.score = num / den;
    }
    out.num = num;
    out.den = den;
    return out;
}

std::array<float, 2> Settings::factors(int scale) const {
    float f1 = 0.0f;
    float f2 = 0.0f;
    if (csf_mode == 1) {
        adm::CsfConfig c{};
        c.mode = adm::CsfMode::kBarten;
        c.norm_view_dist = norm_view_dist;
        c.ref_display_height = ref_display_height;
        c.csf_scale = csf_scale;
        c.csf_diag_scale = csf_diag_scale;
        const auto w = adm::csf_weights(c, scale);
        f1 = w[0];
        f2 = w[2];
    } else if (csf_mode == 2) {
        f1 = adm::native_csf(scale, norm_view_dist, ref_display_height, 0);
        f2 = adm::native_csf(scale, norm_view_dist, ref_display_height, 45);
    } else {
        adm::CsfConfig c{};
        c.mode = adm::CsfMode::kWatson97;
        c.norm_view_dist = norm_view_dist;
        c.ref_display_height = ref_display_height;
        const auto w = adm::csf_weights(c, scale);
        f1 = w[0];
        f2 = w[2];
    }
    const double o1[4] = {f1s0, f1s1, f1s2, f1s3};
    const double o2[4] = {f2s0, f2s1, f2s2, f2s3};
    if (o1[scale] >= 0) f1 = static_cast<float>(o1[scale]);
    if (o2[scale] >= 0) f2 = static_cast<float>(o2[scale]);
    return {f1, f2};
}

void Settings::write_frame(const Scores& s, FrameScores& out) const {
    // Upstream's MAX(x, y): x > y ? x : y.
    const auto at_least = [](double x, double y) { return x > y ? x : y; };
    out.emplace_back(names[0], s.score);
    out.emplace_back(names[1], s.score_aim);
    const double adm3 = adm3_apply_hm ? 2 * s.score * s.score_aim / (s.score + s.score_aim)
                                      : s.score * dlm_weight + (1 - s.score_aim) * (1 - dlm_weight);
    out.emplace_back(names[2], at_least(adm3, min_val));
    for (int k = 0; k < 4; ++k) out.emplace_back(names[3 + k], s.scales[2 * k] / s.scales[2 * k + 1]);
    if (!debug) return;
    out.emplace_back("adm", s.score);  // not a provided feature: upstream writes the bare name
    out.emplace_back(names[7], s.num);
    out.emplace_back(names[8], s.den);
    for (int k = 0; k < 4; ++k) {
        out.emplace_back(names[10 + 2 * k], s.scales[2 * k]);
        out.emplace_back(names[11 + 2 * k], s.scales[2 * k + 1]);
    }
}

}  // namespace float_adm

namespace {

using float_adm::Settings;

/// Upstream's option table of "float_adm" (float_adm.c `options`), in its order.
constexpr OptionSpec kOptions[] = {
    option<&Settings::debug>("debug", nullptr, 0, 0, 1, OptionRole::kSetting, "debug mode: enable additional output"),
    option<&Settings::enhn_gain_limit>(
        "adm_enhn_gain_limit", "egl", 100.0, 1.0, 100.0, OptionRole::kFeatureParameter,
        "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled").also_at("1.2"),
    option<&Settings::norm_view_dist>("adm_norm_view_dist", "nvd", 3.0, 0.75, 24.0, OptionRole::kFeatureParameter,
                                      "normalized viewing distance = viewing distance / ref display's physical height"),
    option<&Settings::noise_weight>("adm_noise_weight", "nw", 0.03125, 0.0, 1500.0, OptionRole::kFeatureParameter, "noise weight"),
    option<&Settings::csf_scale>("adm_csf_scale", "scf", 1.0, 0.0, 50.0, OptionRole::kFeatureParameter, "scale factor for the CSF"),
    option<&Settings::csf_diag_scale>("adm_csf_diag_scale", "scfd", 1.0, 0.0, 50.0, OptionRole::kFeatureParameter,
                                      "scale factor for the CSF diag"),
    option<&Settings::ref_display_height>("adm_ref_display_height", "rdf", 1080, 1, 4320, OptionRole::kFeatureParameter,
                                          "reference display height in pixels"),
    option<&Settings::csf_mode>("adm_csf_mode", "csf", 0, 0, 9, OptionRole::kFeatureParameter, "contrast sensitivity function").also_at("1,2"),
    option<&Settings::bypass_cm>("adm_bypass_cm", "bcm", 0, 0, 1, OptionRole::kFeatureParameter, "bypass contrast masking (CM)"),
    option<&Settings::adm3_apply_hm>("adm_adm3_apply_hm", "aah", 0, 0, 1, OptionRole::kFeatureParameter,
                                     "apply harmonic mean to combine DLM and AIM"),
    option<&Settings::p_norm>("adm_p_norm", "apn", 3.0, 1.0, 20.0, OptionRole::kFeatureParameter, "p-norm for energy vector").also_at("2.5"),
    option<&Settings::dlm_weight>("adm_dlm_weight", "dlmw", 0.5, 0.0, 1.0, OptionRole::kFeatureParameter,
                                  "linear weighting between DLM and AIM; 1 corresponds to DLM-only"),
    option<&Settings::min_val>("adm_min_val", "min", 0.0, 0.0, 1.0, OptionRole::kFeatureParameter,
                               "minimum value allowed; lower values will be clipped to this value"),
    option<&Settings::f1s0>("adm_f1s0", "f1s0", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor1 scale0"),
    option<&Settings::f1s1>("adm_f1s1", "f1s1", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor1 scale1"),
    option<&Settings::f1s2>("adm_f1s2", "f1s2", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor1 scale2"),
    option<&Settings::f1s3>("adm_f1s3", "f1s3", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor1 scale3"),
    option<&Settings::f2s0>("adm_f2s0", "f2s0", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor2 scale0"),
    option<&Settings::f2s1>("adm_f2s1", "f2s1", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor2 scale1"),
    option<&Settings::f2s2>("adm_f2s2", "f2s2", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor2 scale2"),
    option<&Settings::f2s3>("adm_f2s3", "f2s3", -1.0, -1.0, 10.0, OptionRole::kFeatureParameter, "factor2 scale3"),
    option<&Settings::skip_aim_scale>("adm_skip_aim_scale", "sasc", -1, 0, 3, OptionRole::kFeatureParameter,
                                      "when set, skip AIM calculations for that scale"),
    option<&Settings::skip_scale0>("adm_skip_scale0", "ssz", 0, 0, 1, OptionRole::kFeatureParameter, "skip the calculation of scale 0"),
};

/// Upstream's provided_features[] with the aliases of alias.c (the debug output "adm" is not
/// among them: upstream writes it under that bare name).
constexpr FeatureName kFeatures[] = {
    {"VMAF_feature_adm2_score", "adm2"},
    {"VMAF_feature_aim_score", "aim"},
    {"VMAF_feature_adm3_score", "adm3"},
    {"VMAF_feature_adm_scale0_score", "adm_scale0"},
    {"VMAF_feature_adm_scale1_score", "adm_scale1"},
    {"VMAF_feature_adm_scale2_score", "adm_scale2"},
    {"VMAF_feature_adm_scale3_score", "adm_scale3"},
    {"adm_num"}, {"adm_den"}, {"adm_scale0"},
    {"adm_num_scale0"}, {"adm_den_scale0"}, {"adm_num_scale1"}, {"adm_den_scale1"},
    {"adm_num_scale2"}, {"adm_den_scale2"}, {"adm_num_scale3"}, {"adm_den_scale3"},
};

class FloatAdmExtractor final : public FeatureExtractor {
public:
    FloatAdmExtractor(const Options& options, const VideoFormat& format) : format_(format), settings_(options) {}

    void extract(const FrameInput& in, FrameScores& out) const override {
        if (!in.ref || !in.dist) throw Error("float_adm: frame without reference or distorted picture");
        const Plane& ref = in.ref->luma();
        const Plane& dis = in.dist->luma();
        if (ref.width() != format_.width || ref.height() != format_.height || dis.width() != format_.width ||
            dis.height() != format_.height || ref.bytes_per_sample() != format_.bytes_per_sample() ||
            dis.bytes_per_sample() != format_.bytes_per_sample())
            throw Error(fmt::format("float_adm: frame {} is not {}x{} with {}-byte samples", in.index, format_.width,
                                    format_.height, format_.bytes_per_sample()));
        settings_.write_frame(float_adm::compute_adm(floatimg::to_float(ref, format_.bit_depth),
                                                     floatimg::to_float(dis, format_.bit_depth), settings_),
                              out);
    }

private:
    VideoFormat format_;
    Settings settings_;
};

std::unique_ptr<FeatureExtractor> create_float_adm(const Options& options, const VideoFormat& format) {
    return std::make_unique<FloatAdmExtractor>(options, format);
}

}  // namespace

namespace float_adm {

namespace {
void decouple_reference(const DecoupleRow& r, int n, double gain_limit) {
    for (int j = 0; j < n; ++j) decouple_pixel(r, j, gain_limit);
}
// Option corners of several options at once (feature/corners.hpp; tools/option_corners.py).
constexpr const char* kCornerSets[] = {
    "adm_csf_mode=1:adm_csf_scale=0:adm_csf_diag_scale=50",
    "adm_csf_mode=1:adm_csf_scale=50",
    "adm_csf_mode=2:adm_norm_view_dist=6:adm_ref_display_height=720",
    "adm_f1s0=0:adm_f2s0=0",
    "adm_f1s1=10:adm_f2s2=0.5:adm_f1s3=2",
    "adm_skip_scale0=true:adm_skip_aim_scale=0",
};

}  // namespace

DecoupleRowFn reference_decouple_row() { return decouple_reference; }

const std::int32_t* rcp_table_shifted() {
    static const auto table = [] {
        std::array<std::int32_t, 4096> t{};
        for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::int32_t>(kRcpTable[i]) << 11;
        return t;
    }();
    return table.data();
}

const MetricDescriptor descriptor{
    .name = "float_adm", .oracle = {kLibvmaf, "libvmaf/src/feature/float_adm.c"},
    .options = kOptions, .features = kFeatures,
    .limits = {17, 17, kEveryBitDepth,
               "(each DWT level needs 2 samples and the last level's bands 2x2 for the masking "
               "neighbourhood; upstream reads outside its buffers below)"},
    .create = create_float_adm, .corner_base = "debug=true", .corner_sets = kCornerSets};

Settings::Settings() : Settings(descriptor.parse_options({})) {}

Settings::Settings(const Options& options) {
    options.bind(*this);
    // names: the 7 scores, then adm_num, adm_den (indices 7, 8), adm_scale0 (9, never written),
    // and the per-scale numerators and denominators (10..17).
    for (const FeatureName& f : kFeatures) names.push_back(options.feature_name(f.name));
}

}  // namespace float_adm

}  // namespace vmafx
