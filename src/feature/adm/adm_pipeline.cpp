// Integer ADM of one frame, bit-exact to upstream libvmaf 3.2.0 built with its AVX-512
// kernels (src/feature/integer_adm.c integer_compute_adm, src/feature/x86/adm_avx512.c).
//
// Stages per DWT level (level 0 in 16-bit fixed point, levels 1..3 in 32-bit):
//   1. dwt:      one level of the Db2 wavelet of reference and distorted (bands a, v, h, d);
//   2. decouple: split each distorted detail coefficient into the part explained by the
//                reference (restored, r) and the rest (additive, a);
//   3. den:      the reference's CSF-weighted energy (sum of cubes) - the DLM denominator;
//   4. csf:      CSF-weight the additive part (and its |x|/30 "masking" filter input);
//   5. cm:       contrast masking: restored coefficients above the masking threshold of
//                the additive part, summed as cubes - the DLM numerator. With AIM, the
//                roles swap (additive coefficients masked by the restored part).
//
// Where upstream's AVX-512 kernels compute differently from its C kernels (float rounding
// order, 32- vs 64-bit intermediates, round-to-nearest vs truncation, unmirrored reads at
// the last DWT output), the columns they cover are computed the AVX-512 way and the
// others the C way; each place says so. For samples of real video only the DWT and
// decouple differences ever change a value, and the others keep vmafx exact on
// adversarial input too.
#include "feature/adm/adm_pipeline.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace vmafx::adm {

namespace {

using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

constexpr double kBorderFactor = 0.1;  // fraction of each side that does not count

// Db2 analysis filters in Q15 (upstream integer_adm.h dwt2_db2_coeffs_lo/hi); the
// low-pass taps sum to 46342.
constexpr int32_t kLo[4] = {15826, 27411, 7345, -4240};
constexpr int32_t kHi[4] = {-4240, -7345, 27411, -15826};
constexpr int32_t kLoSum = 46342;

constexpr int32_t kOneBy15Q12 = 8738;        // 1/15 in Q17, applied with >> 12 (level 0)
constexpr int64_t kOneBy15Q32 = 286331153;   // 1/15 in Q32 (levels 1..3)
constexpr int32_t kOneBy30Q17 = 4369;        // 1/30 in Q17, applied with >> 12 (level 0)
constexpr int64_t kOneBy30Q32 = 143165577;   // 1/30 in Q32 (levels 1..3)
// Upstream's rounding constant before ">> 32" at levels 1..3 is (int32_t)(1u << 31).
constexpr int64_t kRound32 = INT32_MIN;

// A 2-D array of T: rows `stride` elements apart.
template <typename T>
struct View {
    T* data = nullptr;
    std::ptrdiff_t stride = 0;
    T* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
};

// Subbands of one DWT level: a (low-low), v (low vertical, high horizontal), h (high
// vertical, low horizontal), d (high-high). Decoupled and CSF sets use only h, v, d.
template <typename T>
struct Bands {
    View<T> a, h, v, d;
    const View<T>& hvd(int theta) const { return theta == 0 ? h : (theta == 1 ? v : d); }
};

struct Region {
    int left, top, right, bottom;
};

// The region that counts towards the scores: a border of 10% (rounded) excluded on each
// side (upstream: left = w * ADM_BORDER_FACTOR - 0.5, right = w - left).
Region score_region(int w, int h) {
    const int left = static_cast<int>(w * kBorderFactor - 0.5);
    const int top = static_cast<int>(h * kBorderFactor - 0.5);
    return {left, top, w - left, h - top};
}

// The score region grown by one filter tap on each side and clipped to the band: where
// decouple and csf compute (upstream: left = w * 0.1 - 0.5 - 1, right = w - left + 2).
Region tap_region(int w, int h) {
    const int left = static_cast<int>(w * kBorderFactor - 0.5 - 1);
    const int top = static_cast<int>(h * kBorderFactor - 0.5 - 1);
    return {std::max(left, 0), std::max(top, 0), std::min(w - left + 2, w), std::min(h - top + 2, h)};
}

// First column of the tail a 16-wide AVX-512 loop over [left, right) leaves to scalar code.
int vector_end(int left, int right, int lanes) { return right - (right - left) % lanes; }

int32_t abs32(int32_t x) {  // abs() as x86 computes it: INT32_MIN stays INT32_MIN
    return static_cast<int32_t>(x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x));
}

// 2^e for a uint32_t exponent, as upstream's pow(2, unsigned expression).
double pow2(uint32_t e) { return std::pow(2.0, static_cast<double>(e)); }

// Shift and rounding constant upstream derives from ceil(log2(x)) + offset, converted as
// its AVX-512 build converts (vcvttsd2usi).
struct Shift {
    uint32_t shift;
    uint32_t round;  // 2^(shift - 1), computed in uint32_t as upstream does
};
Shift log2_shift(double x, double offset) {
    const uint32_t s = to_u32_avx512(std::ceil(std::log2(x) + offset));
    return {s, to_u32_avx512(pow2(s - 1u))};
}

// ---------------------------------------------------------------------------------------
// DWT
// ---------------------------------------------------------------------------------------

// Input positions of the 4 taps of each output of a DWT pass over n inputs (upstream
// dwt2_src_indices_filt): output i reads 2i-1 .. 2i+2; the first output reads 1, 0, 1, 2
// and positions past the end are mirrored (n -> n-1, n+1 -> n-2). Needs n >= 5.
using Taps = std::vector<std::array<int, 4>>;
Taps dwt_taps(int n) {
    const int half = (n + 1) / 2;
    Taps t(static_cast<std::size_t>(half));
    t[0] = {1, 0, 1, 2};
    for (int i = 1; i < half; ++i) {
        for (int k = 0; k < 4; ++k) {
            const int p = 2 * i - 1 + k;
            t[i][k] = p >= n ? 2 * n - p - 1 : p;
        }
    }
    return t;
}

// Taps of a horizontal pass that upstream's AVX-512 kernel runs in blocks of `block`
// outputs from output 1: when its last block ends exactly at the last output, that
// output reads its taps 2i+1, 2i+2 unmirrored, i.e. past the end of its row of vertical
// results into the next row of the scratch buffer (which callers lay out as upstream).
Taps dwt_taps_horizontal(int n, int block) {
    Taps t = dwt_taps(n);
    const int half = (n + 1) / 2;
    if (block > 0 && half > 1 && (half - 1) % block == 0) {
        const int i = half - 1;
        t[i] = {2 * i - 1, 2 * i, 2 * i + 1, 2 * i + 2};
    }
    return t;
}

// Filters 4 taps of `row` (positions `tap`) with `f` (Q15).
template <typename T>
int64_t filter4(const int32_t f[4], const T* row, const std::array<int, 4>& tap) {
    return static_cast<int64_t>(f[0]) * row[tap[0]] + static_cast<int64_t>(f[1]) * row[tap[1]] +
           static_cast<int64_t>(f[2]) * row[tap[2]] + static_cast<int64_t>(f[3]) * row[tap[3]];
}

// Level 0 of the DWT of one luma plane (w x h samples of type Sample at `bit_depth` bits)
// into 16-bit bands of ceil(w/2) x ceil(h/2) (upstream adm_dwt2_8/adm_dwt2_16 and their
// AVX-512 versions; adm_dwt2_8_lo/adm_dwt2_16_lo with lo_only, which make band a only).
// `tmp` holds 2*w + 64 int16: the vertical low- and high-pass rows side by side, then
// zeros, as upstream's tmp_ref (the AVX-512 horizontal pass can read past the first).
template <typename Sample>
void dwt_level0(const Plane& src, int bit_depth, bool lo_only, const Taps& taps_y, const Taps& taps_x,
                int16_t* tmp, const Bands<int16_t>& out) {
    const int w = src.width();
    const int half_w = (w + 1) / 2;
    const int half_h = (src.height() + 1) / 2;
    // Vertical pass: Q(16 - bit_depth) rounding; the low pass moves the range to signed.
    const int shift_v = bit_depth;
    const uint32_t round_v = 1u << (bit_depth - 1);
    const uint32_t lo_offset = round_v - static_cast<uint32_t>(kLoSum) * round_v;
    int16_t* lo = tmp;
    int16_t* hi = tmp + w;
    std::fill(tmp + 2 * w, tmp + 2 * w + 64, int16_t{0});

    for (int i = 0; i < half_h; ++i) {
        const Sample* r0 = src.row<Sample>(taps_y[i][0]);
        const Sample* r1 = src.row<Sample>(taps_y[i][1]);
        const Sample* r2 = src.row<Sample>(taps_y[i][2]);
        const Sample* r3 = src.row<Sample>(taps_y[i][3]);
        // 32-bit arithmetic modulo 2^32 as upstream's int32 sums (the result fits).
        for (int j = 0; j < w; ++j) {
            const uint32_t s = static_cast<uint32_t>(kLo[0]) * r0[j] + static_cast<uint32_t>(kLo[1]) * r1[j] +
                               static_cast<uint32_t>(kLo[2]) * r2[j] + static_cast<uint32_t>(kLo[3]) * r3[j];
            lo[j] = static_cast<int16_t>(static_cast<int32_t>(s + lo_offset) >> shift_v);
        }
        if (!lo_only) {
            for (int j = 0; j < w; ++j) {
                const uint32_t s = static_cast<uint32_t>(kHi[0]) * r0[j] + static_cast<uint32_t>(kHi[1]) * r1[j] +
                                   static_cast<uint32_t>(kHi[2]) * r2[j] + static_cast<uint32_t>(kHi[3]) * r3[j];
                hi[j] = static_cast<int16_t>(static_cast<int32_t>(s + round_v) >> shift_v);
            }
        }
        // Horizontal pass: Q16 rounding.
        int16_t* a = out.a.row(i);
        const auto band = [](int64_t acc) { return static_cast<int16_t>((acc + 32768) >> 16); };
        for (int j = 0; j < half_w; ++j) {
            const auto& tap = taps_x[j];
            a[j] = band(filter4(kLo, lo, tap));
            if (lo_only) continue;
            out.v.row(i)[j] = band(filter4(kHi, lo, tap));
            out.h.row(i)[j] = band(filter4(kLo, hi, tap));
            out.d.row(i)[j] = band(filter4(kHi, hi, tap));
        }
    }
}

// Levels 1..3 of the DWT of reference and distorted together (upstream
// adm_dwt2_s123_combined and its AVX-512 version): inputs are band a of the previous level
// (w x h, 16-bit at level 1, 32-bit after), outputs 32-bit bands of ceil(w/2) x ceil(h/2).
// `tmp` is the level scratch laid out as upstream's tmp_ref: low and high vertical rows of
// the reference, then of the distorted, w int32 each, then what earlier levels left there.
template <typename In>
void dwt_level(int scale, View<const In> ref, View<const In> dis, int w, int h, const Taps& taps_y,
               const Taps& taps_x, int32_t* tmp, const Bands<int32_t>& ref_out, const Bands<int32_t>& dis_out) {
    static constexpr int64_t kRoundV[3] = {0, 32768, 32768};
    static constexpr int kShiftV[3] = {0, 16, 16};
    static constexpr int64_t kRoundH[3] = {16384, 32768, 16384};
    static constexpr int kShiftH[3] = {15, 16, 15};
    const int64_t round_v = kRoundV[scale - 1];
    const int shift_v = kShiftV[scale - 1];
    const int64_t round_h = kRoundH[scale - 1];
    const int shift_h = kShiftH[scale - 1];
    const int half_w = (w + 1) / 2;
    const int half_h = (h + 1) / 2;
    int32_t* rows[4] = {tmp, tmp + w, tmp + 2 * w, tmp + 3 * w};  // ref lo, ref hi, dis lo, dis hi

    for (int i = 0; i < half_h; ++i) {
        for (int img = 0; img < 2; ++img) {
            const View<const In>& src = img == 0 ? ref : dis;
            const In* r0 = src.row(taps_y[i][0]);
            const In* r1 = src.row(taps_y[i][1]);
            const In* r2 = src.row(taps_y[i][2]);
            const In* r3 = src.row(taps_y[i][3]);
            int32_t* lo = rows[2 * img];
            int32_t* hi = rows[2 * img + 1];
            for (int j = 0; j < w; ++j) {
                const int64_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
                lo[j] = static_cast<int32_t>((kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3 + round_v) >> shift_v);
                hi[j] = static_cast<int32_t>((kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3 + round_v) >> shift_v);
            }
        }
        const auto band = [&](int64_t acc) { return static_cast<int32_t>((acc + round_h) >> shift_h); };
        for (int img = 0; img < 2; ++img) {
            const Bands<int32_t>& out = img == 0 ? ref_out : dis_out;
            const int32_t* lo = rows[2 * img];
            const int32_t* hi = rows[2 * img + 1];
            int32_t* a = out.a.row(i);
            int32_t* v = out.v.row(i);
            int32_t* hb = out.h.row(i);
            int32_t* d = out.d.row(i);
            for (int j = 0; j < half_w; ++j) {
                const auto& tap = taps_x[j];
                a[j] = band(filter4(kLo, lo, tap));
                v[j] = band(filter4(kHi, lo, tap));
                hb[j] = band(filter4(kLo, hi, tap));
                d[j] = band(filter4(kHi, hi, tap));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Decouple
// ---------------------------------------------------------------------------------------

// 2^30 / i for i in [-32768, 32768], at index i + 32768 (upstream div_lookup).
const std::array<int32_t, 65537>& div_lookup() {
    static const std::array<int32_t, 65537> table = [] {
        std::array<int32_t, 65537> t{};
        for (int i = 1; i <= 32768; ++i) {
            const int32_t recip = static_cast<int32_t>(1073741824 / i);
            t[32768 + i] = recip;
            t[32768 - i] = -recip;
        }
        return t;
    }();
    return table;
}

// cos(1 degree)^2 as upstream's float.
const float kCos1DegSq = static_cast<float>(std::cos(1.0 * 3.14159265358979323846 / 180.0) *
                                            std::cos(1.0 * 3.14159265358979323846 / 180.0));

// Whether the reference (oh, ov) and distorted (th, tv) gradient directions are within
// 1 degree, from exact 64-bit dot products (upstream's C expression).
bool same_direction(int64_t oh, int64_t ov, int64_t th, int64_t tv) {
    const int64_t ot_dp = oh * th + ov * tv;
    const int64_t o_mag_sq = oh * oh + ov * ov;
    const int64_t t_mag_sq = th * th + tv * tv;
    const double dp = static_cast<double>(static_cast<float>(ot_dp)) / 4096.0;
    const double om = static_cast<double>(static_cast<float>(o_mag_sq)) / 4096.0;
    const double tm = static_cast<double>(static_cast<float>(t_mag_sq)) / 4096.0;
    return dp >= 0.0f && dp * dp >= static_cast<double>(kCos1DegSq) * om * tm;
}

// The same test as adm_decouple_avx512 computes it: 16-bit dot products summed in 32 bits
// (they wrap at 2^31), and the right side multiplied in the order (|o|^2 |t|^2) cos^2.
bool same_direction_avx512(int32_t oh, int32_t ov, int32_t th, int32_t tv) {
    const auto dot = [](int32_t a, int32_t b, int32_t c, int32_t d) {
        return static_cast<int32_t>(static_cast<uint32_t>(a * b) + static_cast<uint32_t>(c * d));
    };
    const float dp = static_cast<float>(dot(oh, th, ov, tv)) * (1.0f / 4096.0f);
    const float om = static_cast<float>(dot(oh, oh, ov, ov)) * (1.0f / 4096.0f);
    const float tm = static_cast<float>(dot(th, th, tv, tv)) * (1.0f / 4096.0f);
    const double dpd = dp;
    return dp >= 0.0f && dpd * dpd >= (static_cast<double>(om) * static_cast<double>(tm)) * static_cast<double>(kCos1DegSq);
}

// The restored part of distorted coefficient t given reference coefficient o: k = t/o
// clipped to [0, 1] (Q15), rst = k*o; when the directions agree, an enhancement (|t| > |o|)
// is restored up to egl times. `nearest`: the gain product is rounded to nearest as the
// AVX-512 kernels do (C truncates); both agree for integer egl.
template <typename Int>
Int restore(Int rst, Int t, int32_t k, int64_t o, bool same_dir, double egl, bool nearest) {
    if (!same_dir || k <= 0 || o == 0) return rst;
    const double g = static_cast<double>(rst) * egl;
    const int64_t gi = nearest ? static_cast<int64_t>(std::nearbyint(g)) : static_cast<int64_t>(g);
    return static_cast<Int>(o > 0 ? std::min<int64_t>(gi, t) : std::max<int64_t>(gi, t));
}

// Level 0 decouple (upstream adm_decouple / adm_decouple_avx512) over the tap region.
void decouple_level0(const Bands<int16_t>& ref, const Bands<int16_t>& dis, int w, int h, double egl,
                     const Bands<int16_t>& r, const Bands<int16_t>& a) {
    const Region rg = tap_region(w, h);
    const int vec_end = vector_end(rg.left, rg.right, 16);
    const auto& lookup = div_lookup();
    for (int i = rg.top; i < rg.bottom; ++i) {
        for (int j = rg.left; j < rg.right; ++j) {
            const bool vec = j < vec_end;
            const int32_t oh = ref.h.row(i)[j], ov = ref.v.row(i)[j];
            const int32_t th = dis.h.row(i)[j], tv = dis.v.row(i)[j];
            const bool same_dir = vec ? same_direction_avx512(oh, ov, th, tv) : same_direction(oh, ov, th, tv);
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t o = ref.hvd(theta).row(i)[j];
                const int32_t t = dis.hvd(theta).row(i)[j];
                int32_t k = o == 0 ? 32768
                                   : static_cast<int32_t>((static_cast<int64_t>(lookup[o + 32768]) * t + 16384) >> 15);
                k = std::clamp(k, 0, 32768);
                int32_t rst = (k * o + 16384) >> 15;
                rst = restore<int32_t>(rst, t, k, o, same_dir, egl, vec);
                r.hvd(theta).row(i)[j] = static_cast<int16_t>(rst);
                a.hvd(theta).row(i)[j] = static_cast<int16_t>(t - rst);
            }
        }
    }
}

// Levels 1..3 decouple (upstream adm_decouple_s123 / _avx512): o has up to 31 bits, so
// the division by o uses a 15-bit rounding of |o| and a compensating shift.
void decouple_level(const Bands<int32_t>& ref, const Bands<int32_t>& dis, int w, int h, double egl,
                    const Bands<int32_t>& r, const Bands<int32_t>& a) {
    const Region rg = tap_region(w, h);
    const int vec_end = vector_end(rg.left, rg.right, 16);
    const auto& lookup = div_lookup();
    for (int i = rg.top; i < rg.bottom; ++i) {
        for (int j = rg.left; j < rg.right; ++j) {
            const bool vec = j < vec_end;
            const bool same_dir = same_direction(ref.h.row(i)[j], ref.v.row(i)[j], dis.h.row(i)[j], dis.v.row(i)[j]);
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t o = ref.hvd(theta).row(i)[j];
                const int32_t t = dis.hvd(theta).row(i)[j];
                int64_t k = 32768;
                if (o != 0) {
                    const uint32_t abs_o = static_cast<uint32_t>(abs32(o));
                    uint32_t msb = abs_o;
                    int shift = 0;
                    if (abs_o >= 32768) {  // upstream get_best15_from32
                        shift = 17 - std::countl_zero(abs_o);
                        msb = static_cast<uint16_t>((abs_o + (1u << (shift - 1))) >> shift);
                    }
                    const int64_t sign = o < 0 ? -1 : 1;
                    k = ((static_cast<int64_t>(lookup[msb + 32768]) * t) * sign + (int64_t{1} << (14 + shift))) >>
                        (15 + shift);
                    k = std::clamp<int64_t>(k, 0, 32768);
                }
                int32_t rst = static_cast<int32_t>((k * o + 16384) >> 15);
                rst = restore<int32_t>(rst, t, static_cast<int32_t>(k), o, same_dir, egl, vec);
                r.hvd(theta).row(i)[j] = rst;
                a.hvd(theta).row(i)[j] = static_cast<int32_t>(static_cast<uint32_t>(t) - static_cast<uint32_t>(rst));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// CSF weighting
// ---------------------------------------------------------------------------------------

// Level 0 (upstream adm_csf / adm_csf_avx512): dst = src weighted (Q16 after the shift),
// flt = |dst| / 30 (the masking filter input). The AVX-512 columns take |dst| before
// dst is narrowed to 16 bits.
void csf_level0(const Bands<int16_t>& src, int w, int h, const std::array<uint16_t, 3>& weight,
                const Bands<int16_t>& dst, const Bands<int16_t>& flt) {
    static constexpr int kShift[3] = {15, 15, 17};
    static constexpr int32_t kRound[3] = {16384, 16384, 65535};
    const Region rg = tap_region(w, h);
    const int vec_end = vector_end(rg.left, rg.right, 16);
    for (int theta = 0; theta < 3; ++theta) {
        for (int i = rg.top; i < rg.bottom; ++i) {
            const int16_t* s = src.hvd(theta).row(i);
            int16_t* d = dst.hvd(theta).row(i);
            int16_t* f = flt.hvd(theta).row(i);
            for (int j = rg.left; j < rg.right; ++j) {
                const int32_t wide = (weight[theta] * static_cast<int32_t>(s[j]) + kRound[theta]) >> kShift[theta];
                d[j] = static_cast<int16_t>(wide);
                const int32_t mag = j < vec_end ? abs32(wide) : abs32(d[j]);
                f[j] = static_cast<int16_t>((kOneBy30Q17 * mag + 2048) >> 12);
            }
        }
    }
}

// Levels 1..3 (upstream i4_adm_csf / _avx512). The AVX-512 columns multiply by the weight
// read as a signed 32-bit value.
void csf_level(const Bands<int32_t>& src, int w, int h, const std::array<uint32_t, 3>& weight,
               const Bands<int32_t>& dst, const Bands<int32_t>& flt) {
    const Region rg = tap_region(w, h);
    const int vec_end = vector_end(rg.left, rg.right, 16);
    for (int theta = 0; theta < 3; ++theta) {
        const int64_t w_c = weight[theta];
        const int64_t w_vec = static_cast<int32_t>(weight[theta]);
        for (int i = rg.top; i < rg.bottom; ++i) {
            const int32_t* s = src.hvd(theta).row(i);
            int32_t* d = dst.hvd(theta).row(i);
            int32_t* f = flt.hvd(theta).row(i);
            for (int j = rg.left; j < rg.right; ++j) {
                const int64_t wt = j < vec_end ? w_vec : w_c;
                const int32_t v = static_cast<int32_t>((wt * s[j] + (int64_t{1} << 27)) >> 28);
                d[j] = v;
                f[j] = static_cast<int32_t>((kOneBy30Q32 * abs32(v) + kRound32) >> 32);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Denominator: CSF-weighted reference energy
// ---------------------------------------------------------------------------------------

// Sum over the three orientations of (sum |x w|^3)^(1/3) + (area * noise_weight)^(1/3).
float den_from_sums(const double csf[3], const Region& rg, double noise_weight) {
    const float noise = powf(static_cast<float>((rg.bottom - rg.top) * (rg.right - rg.left) * noise_weight), 1.0f / 3.0f);
    const float dh = powf(static_cast<float>(csf[0]), 1.0f / 3.0f) + noise;
    const float dv = powf(static_cast<float>(csf[1]), 1.0f / 3.0f) + noise;
    const float dd = powf(static_cast<float>(csf[2]), 1.0f / 3.0f) + noise;
    return dh + dv + dd;
}

// Level 0 (upstream adm_csf_den_scale / _avx512; both compute the same).
float den_level0(const Bands<int16_t>& ref, int w, int h, const std::array<float, 3>& weight, double noise_weight) {
    const Region rg = score_region(w, h);
    int32_t shift = static_cast<int32_t>(std::ceil(std::log2((rg.bottom - rg.top) * (rg.right - rg.left)) - 20));
    shift = std::max(shift, 0);
    const uint64_t round = shift > 0 ? (uint64_t{1} << (shift - 1)) : 0;
    double csf[3];
    for (int theta = 0; theta < 3; ++theta) {
        uint64_t acc = 0;
        for (int i = rg.top; i < rg.bottom; ++i) {
            const int16_t* x = ref.hvd(theta).row(i);
            uint64_t inner = 0;
            for (int j = rg.left; j < rg.right; ++j) {
                const uint64_t m = static_cast<uint16_t>(std::abs(static_cast<int32_t>(x[j])));
                inner += m * m * m;
            }
            acc += (inner + round) >> shift;
        }
        const double unshift = std::pow(2, 18 - shift);
        csf[theta] = static_cast<double>(acc) / unshift * std::pow(static_cast<double>(weight[theta]), 3);
    }
    return den_from_sums(csf, rg, noise_weight);
}

// Levels 1..3 (upstream adm_csf_den_s123 / _avx512; both compute the same).
float den_level(int scale, const Bands<int32_t>& ref, int w, int h, const std::array<float, 3>& weight,
                double noise_weight) {
    static constexpr int kShiftSq[3] = {31, 30, 31};
    static constexpr uint32_t kUnshift[3] = {32, 27, 23};
    const Region rg = score_region(w, h);
    const int shift_sq = kShiftSq[scale - 1];
    const uint64_t round_sq = uint64_t{1} << shift_sq;  // sic: 2^shift, not half
    const Shift cub = log2_shift(rg.right - rg.left, 0);
    const Shift row = log2_shift(rg.bottom - rg.top, 0);
    double csf[3];
    for (int theta = 0; theta < 3; ++theta) {
        uint64_t acc = 0;
        for (int i = rg.top; i < rg.bottom; ++i) {
            const int32_t* x = ref.hvd(theta).row(i);
            uint64_t inner = 0;
            for (int j = rg.left; j < rg.right; ++j) {
                const uint64_t m = static_cast<uint32_t>(abs32(x[j]));
                inner += ((((m * m) + round_sq) >> shift_sq) * m + cub.round) >> cub.shift;
            }
            acc += (inner + row.round) >> row.shift;
        }
        const double unshift = pow2(kUnshift[scale - 1] - row.shift - cub.shift);
        csf[theta] = static_cast<double>(acc) / unshift * std::pow(static_cast<double>(weight[theta]), 3);
    }
    return den_from_sums(csf, rg, noise_weight);
}

// ---------------------------------------------------------------------------------------
// Contrast masking: the numerators
// ---------------------------------------------------------------------------------------

// Rows and columns a contrast-masking pass visits, with the masking neighbourhood of
// each, as upstream's adm_cm: the score region, whose first/last row and column are
// only visited when the region reaches the band's edge (where the 3x3 neighbourhood is
// mirrored: -1 -> 1, n -> n-1).
struct CmLayout {
    Region rg;
    int start_col, end_col, start_row, end_row;
    CmLayout(int w, int h) : rg(score_region(w, h)) {
        start_col = std::max(rg.left, 1);
        end_col = std::min(rg.right, w - 1);
        start_row = std::max(rg.top, 1);
        end_row = std::min(rg.bottom, h - 1);
    }
};

// Visits the columns of row i in upstream's order: 0 (if the region reaches it), the
// inner columns, w-1 (likewise). `visit(j, jl, jr, vec)` gets the mirrored neighbour
// columns and whether column j is one upstream's AVX-512 loop computes (inner columns of
// inner rows below vec_end, when the region is inside the band).
template <typename Visit>
void visit_row(const CmLayout& L, int w, bool inner_row, int vec_end, Visit&& visit) {
    if (L.rg.left <= 0) visit(0, 1, 1, false);
    const bool vec_row = inner_row && L.rg.left > 0;
    for (int j = L.start_col; j < L.end_col; ++j) visit(j, j - 1, j + 1, vec_row && j < vec_end);
    if (L.rg.right > w - 1) visit(w - 1, w - 2, w - 1, false);
}

// Level 0 (upstream adm_cm / adm_cm_avx512). x: the coefficients measured (decouple r for
// DLM, a for AIM); centre/flt: the CSF-weighted masker and its |x|/30 filter input.
// Returns the level's numerator.
float cm_level0(const Bands<int16_t>& x, const Bands<int16_t>& centre, const Bands<int16_t>& flt, int w, int h,
                const std::array<uint16_t, 3>& weight, double noise_weight) {
    const CmLayout L(w, h);
    const Shift cub_hv = log2_shift(w, -4);
    const Shift cub_d = log2_shift(w, -3);
    const Shift row_shift = log2_shift(h, 0);
    const int vec_end = L.end_col - (L.end_col - L.start_col) % 14;
    // Per orientation: threshold shift, square rounding/shift, cube rounding/shift.
    const int sub[3] = {10, 10, 12};
    const int64_t round_sq[3] = {int64_t{1} << 28, int64_t{1} << 28, int64_t{1} << 29};
    const int shift_sq[3] = {29, 29, 30};
    const Shift cub[3] = {cub_hv, cub_hv, cub_d};

    int64_t acc[3] = {0, 0, 0};
    const auto do_row = [&](int i, bool inner_row) {
        const int above = i == 0 ? 1 : i - 1;
        const int below = i == h - 1 ? h - 1 : i + 1;
        int64_t row_acc[3] = {0, 0, 0};
        visit_row(L, w, inner_row, vec_end, [&](int j, int jl, int jr, bool vec) {
            int32_t thr = 0;
            for (int theta = 0; theta < 3; ++theta) {
                const View<int16_t>& f = flt.hvd(theta);
                const int16_t* fa = f.row(above);
                const int16_t* fi = f.row(i);
                const int16_t* fb = f.row(below);
                const int32_t ring = fa[jl] + fa[j] + fa[jr] + fi[jl] + fi[jr] + fb[jl] + fb[j] + fb[jr];
                const int32_t c = (kOneBy15Q12 * abs32(centre.hvd(theta).row(i)[j]) + 2048) >> 12;
                // The C kernel narrows the centre term to 16 bits, the AVX-512 one does not.
                thr = static_cast<int32_t>(static_cast<uint32_t>(thr) + static_cast<uint32_t>(ring) +
                                           static_cast<uint32_t>(vec ? c : static_cast<int16_t>(c)));
            }
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t xv = static_cast<int32_t>(x.hvd(theta).row(i)[j]) * weight[theta];
                int32_t m = static_cast<int32_t>(static_cast<uint32_t>(abs32(xv)) - (static_cast<uint32_t>(thr) << sub[theta]));
                m = std::max(m, 0);
                const int32_t sq = static_cast<int32_t>((static_cast<int64_t>(m) * m + round_sq[theta]) >> shift_sq[theta]);
                row_acc[theta] += (static_cast<int64_t>(sq) * m + cub[theta].round) >> cub[theta].shift;
            }
        });
        for (int theta = 0; theta < 3; ++theta) acc[theta] += (row_acc[theta] + row_shift.round) >> row_shift.shift;
    };
    if (L.rg.top <= 0) do_row(0, false);
    for (int i = L.start_row; i < L.end_row; ++i) do_row(i, true);
    if (L.rg.bottom > h - 1) do_row(h - 1, false);

    // Back to floating point: (6 + 21) * 3 - 29 = 52 pending bits for h and v, 57 for d.
    // The AVX-512 kernel rounds acc_h to float before dividing.
    const float fh = static_cast<float>(static_cast<double>(static_cast<float>(acc[0])) /
                                        pow2(52u - cub_hv.shift - row_shift.shift));
    const float fv = static_cast<float>(static_cast<double>(acc[1]) / pow2(52u - cub_hv.shift - row_shift.shift));
    const float fd = static_cast<float>(static_cast<double>(acc[2]) / pow2(57u - cub_d.shift - row_shift.shift));
    const Region& rg = L.rg;
    const float noise = powf(static_cast<float>((rg.bottom - rg.top) * (rg.right - rg.left) * noise_weight), 1.0f / 3.0f);
    const float nh = powf(fh, 1.0f / 3.0f) + noise;
    const float nv = powf(fv, 1.0f / 3.0f) + noise;
    const float nd = powf(fd, 1.0f / 3.0f) + noise;
    return nh + nv + nd;
}

// Levels 1..3 (upstream i4_adm_cm / i4_adm_cm_avx512). The AVX-512 columns keep the
// weighted coefficient and the threshold in 64 bits and read the weight as signed.
float cm_level(int scale, const Bands<int32_t>& x, const Bands<int32_t>& centre, const Bands<int32_t>& flt, int w,
               int h, const std::array<uint32_t, 3>& weight, double noise_weight) {
    const CmLayout L(w, h);
    const Shift cub = log2_shift(w, 0);
    const Shift row_shift = log2_shift(h, 0);
    const int vec_end = L.end_col - (L.end_col - L.start_col) % 6;
    constexpr int64_t kRoundX = int64_t{1} << 27;  // weighting: Q32 -> >> 28
    constexpr int64_t kRoundSq = int64_t{1} << 29;

    int64_t acc[3] = {0, 0, 0};
    const auto do_row = [&](int i, bool inner_row) {
        const int above = i == 0 ? 1 : i - 1;
        const int below = i == h - 1 ? h - 1 : i + 1;
        int64_t row_acc[3] = {0, 0, 0};
        visit_row(L, w, inner_row, vec_end, [&](int j, int jl, int jr, bool vec) {
            int64_t thr64 = 0;  // the AVX-512 sum (64-bit lanes)
            int32_t thr32 = 0;  // the C sum (int32)
            for (int theta = 0; theta < 3; ++theta) {
                const View<int32_t>& f = flt.hvd(theta);
                const int32_t* fa = f.row(above);
                const int32_t* fi = f.row(i);
                const int32_t* fb = f.row(below);
                const int64_t ring = int64_t{fa[jl]} + fa[j] + fa[jr] + fi[jl] + fi[jr] + fb[jl] + fb[j] + fb[jr];
                const int32_t cv = centre.hvd(theta).row(i)[j];
                if (vec) {
                    const int64_t m = static_cast<int32_t>(static_cast<uint32_t>(cv < 0 ? -int64_t{cv} : cv));
                    thr64 += ring + ((m * kOneBy15Q32 + kRound32) >> 32);
                } else {
                    const int32_t c = static_cast<int32_t>((kOneBy15Q32 * abs32(cv) + kRound32) >> 32);
                    thr32 = static_cast<int32_t>(static_cast<uint32_t>(thr32) + static_cast<uint32_t>(ring) +
                                                 static_cast<uint32_t>(c));
                }
            }
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t s = x.hvd(theta).row(i)[j];
                int32_t m32;
                if (vec) {
                    const int64_t xv = (int64_t{s} * static_cast<int32_t>(weight[theta]) + kRoundX) >> 28;
                    const int64_t m = std::max<int64_t>((xv < 0 ? -xv : xv) - thr64, 0);
                    m32 = static_cast<int32_t>(m);
                } else {
                    const int32_t xv = static_cast<int32_t>((int64_t{s} * weight[theta] + kRoundX) >> 28);
                    m32 = std::max(static_cast<int32_t>(static_cast<uint32_t>(abs32(xv)) - static_cast<uint32_t>(thr32)), 0);
                }
                const int64_t sq = static_cast<int32_t>((int64_t{m32} * m32 + kRoundSq) >> 30);
                row_acc[theta] += (sq * m32 + cub.round) >> cub.shift;
            }
        });
        for (int theta = 0; theta < 3; ++theta) acc[theta] += (row_acc[theta] + row_shift.round) >> row_shift.shift;
    };
    if (L.rg.top <= 0) do_row(0, false);
    for (int i = L.start_row; i < L.end_row; ++i) do_row(i, true);
    if (L.rg.bottom > h - 1) do_row(h - 1, false);

    // Back to floating point; upstream divides the sum, converted to float, by a float.
    static constexpr uint32_t kPending[3] = {45, 39, 36};
    const float unshift = static_cast<float>(pow2(kPending[scale - 1] - cub.shift - row_shift.shift));
    const Region& rg = L.rg;
    const float noise = powf(static_cast<float>((rg.bottom - rg.top) * (rg.right - rg.left) * noise_weight), 1.0f / 3.0f);
    float total[3];
    for (int theta = 0; theta < 3; ++theta)
        total[theta] = powf(static_cast<float>(acc[theta]) / unshift, 1.0f / 3.0f) + noise;
    return total[0] + total[1] + total[2];
}

// ---------------------------------------------------------------------------------------
// Scratch memory and the driver
// ---------------------------------------------------------------------------------------

// Carves views of `rows` x `cols` out of a vector, 64-byte aligned rows.
template <typename T>
class Arena {
public:
    void reset(std::size_t elements) {
        if (buf_.size() < elements) buf_.assign(elements, T{});
        used_ = 0;
    }
    View<T> take(int cols, int rows) {
        constexpr std::size_t kAlign = 64 / sizeof(T);
        const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>((cols + kAlign - 1) / kAlign * kAlign);
        View<T> v{buf_.data() + used_, stride};
        used_ += static_cast<std::size_t>(stride) * static_cast<std::size_t>(rows);
        return v;
    }
    Bands<T> take_bands(int cols, int rows, bool with_a) {
        Bands<T> b;
        if (with_a) b.a = take(cols, rows);
        b.h = take(cols, rows);
        b.v = take(cols, rows);
        b.d = take(cols, rows);
        return b;
    }
    static std::size_t plane_elements(int cols, int rows) {
        constexpr std::size_t kAlign = 64 / sizeof(T);
        return (static_cast<std::size_t>(cols) + kAlign - 1) / kAlign * kAlign * static_cast<std::size_t>(rows);
    }

private:
    std::vector<T> buf_;
    std::size_t used_ = 0;
};

// The bands of one level: reference and distorted DWT (with a), restored and additive
// parts, CSF-weighted values and filter inputs.
template <typename T>
struct LevelBands {
    Bands<T> ref, dis, r, a, csf_a, csf_f;
    static constexpr int kPlanes = 4 + 4 + 3 + 3 + 3 + 3;
    void take(Arena<T>& arena, int w, int h) {
        ref = arena.take_bands(w, h, true);
        dis = arena.take_bands(w, h, true);
        r = arena.take_bands(w, h, false);
        a = arena.take_bands(w, h, false);
        csf_a = arena.take_bands(w, h, false);
        csf_f = arena.take_bands(w, h, false);
    }
};

struct Scratch {
    Arena<int16_t> level0;
    Arena<int32_t> levels;
    std::vector<int16_t> tmp0;
    std::vector<int32_t> tmp;
};

}  // namespace

AdmScores compute_adm(const Plane& ref, const Plane& dis, int bit_depth, const AdmConfig& config) {
    thread_local Scratch scratch;
    const int width = ref.width();
    const int height = ref.height();

    // Band sizes per level.
    int bw[5], bh[5];
    bw[0] = width;
    bh[0] = height;
    for (int s = 1; s <= 4; ++s) {
        bw[s] = (bw[s - 1] + 1) / 2;
        bh[s] = (bh[s - 1] + 1) / 2;
    }

    scratch.level0.reset(LevelBands<int16_t>::kPlanes * Arena<int16_t>::plane_elements(bw[1], bh[1]));
    std::size_t n32 = 0;
    for (int s = 2; s <= 4; ++s) n32 += LevelBands<int32_t>::kPlanes * Arena<int32_t>::plane_elements(bw[s], bh[s]);
    scratch.levels.reset(n32);
    scratch.tmp0.resize(2 * static_cast<std::size_t>(width) + 64);
    // Levels 1..3 share one scratch row buffer, zeroed per frame: upstream reads what the
    // previous level left past the current level's rows (see dwt_taps_horizontal).
    scratch.tmp.assign(4 * static_cast<std::size_t>(bw[1]) + 64, 0);

    LevelBands<int16_t> L0;
    L0.take(scratch.level0, bw[1], bh[1]);
    LevelBands<int32_t> L[4];
    for (int s = 1; s <= 3; ++s) L[s].take(scratch.levels, bw[s + 1], bh[s + 1]);

    double num = 0.0, den = 0.0, aim_num = 0.0;
    AdmScores out;

    // Level 0.
    {
        const Taps taps_y = dwt_taps(height);
        const int block = config.skip_scale0 ? 0 : (bit_depth == 8 ? 32 : 64);
        const Taps taps_x = dwt_taps_horizontal(width, block);
        for (int img = 0; img < 2; ++img) {
            const Plane& p = img == 0 ? ref : dis;
            const Bands<int16_t>& b = img == 0 ? L0.ref : L0.dis;
            if (bit_depth == 8)
                dwt_level0<std::uint8_t>(p, 8, config.skip_scale0, taps_y, taps_x, scratch.tmp0.data(), b);
            else
                dwt_level0<std::uint16_t>(p, bit_depth, config.skip_scale0, taps_y, taps_x, scratch.tmp0.data(), b);
        }
        float num0 = 0.0f, den0 = 0.0f, aim0 = 0.0f;
        const int w = bw[1], h = bh[1];
        if (config.skip_scale0) {
            den0 = 1e-10f;  // upstream: avoid a division by zero
        } else {
            decouple_level0(L0.ref, L0.dis, w, h, config.enhn_gain_limit, L0.r, L0.a);
            den0 = den_level0(L0.ref, w, h, csf_weights(config.csf, 0), config.noise_weight);
            const auto wq = csf_weights_q_scale0(config.csf);
            csf_level0(L0.a, w, h, wq, L0.csf_a, L0.csf_f);
            num0 = cm_level0(L0.r, L0.csf_a, L0.csf_f, w, h, wq, config.noise_weight);
            if (!config.skip_aim) {
                csf_level0(L0.r, w, h, wq, L0.csf_f, L0.csf_a);
                aim0 = cm_level0(L0.a, L0.csf_f, L0.csf_a, w, h, wq, 0.0);
            }
        }
        num += num0;
        den += den0;
        aim_num += aim0;
        out.scale_num[0] = num0;
        out.scale_den[0] = den0;
    }

    // Levels 1..3.
    for (int s = 1; s <= 3; ++s) {
        const int w_in = bw[s], h_in = bh[s];
        const Taps taps_y = dwt_taps(h_in);
        const Taps taps_x = dwt_taps_horizontal(w_in, 8);
        LevelBands<int32_t>& B = L[s];
        if (s == 1) {
            const View<const int16_t> ra{L0.ref.a.data, L0.ref.a.stride};
            const View<const int16_t> da{L0.dis.a.data, L0.dis.a.stride};
            dwt_level(s, ra, da, w_in, h_in, taps_y, taps_x, scratch.tmp.data(), B.ref, B.dis);
        } else {
            const View<const int32_t> ra{L[s - 1].ref.a.data, L[s - 1].ref.a.stride};
            const View<const int32_t> da{L[s - 1].dis.a.data, L[s - 1].dis.a.stride};
            dwt_level(s, ra, da, w_in, h_in, taps_y, taps_x, scratch.tmp.data(), B.ref, B.dis);
        }
        const int w = bw[s + 1], h = bh[s + 1];
        decouple_level(B.ref, B.dis, w, h, config.enhn_gain_limit, B.r, B.a);
        const float den_s = den_level(s, B.ref, w, h, csf_weights(config.csf, s), config.noise_weight);
        const auto wq = csf_weights_q32(config.csf, s);
        csf_level(B.a, w, h, wq, B.csf_a, B.csf_f);
        const float num_s = cm_level(s, B.r, B.csf_a, B.csf_f, w, h, wq, config.noise_weight);
        float aim_s = 0.0f;
        if (!config.skip_aim) {
            csf_level(B.r, w, h, wq, B.csf_f, B.csf_a);
            aim_s = cm_level(s, B.a, B.csf_f, B.csf_a, w, h, wq, 0.0);
        }
        num += num_s;
        den += den_s;
        aim_num += aim_s;
        out.scale_num[s] = num_s;
        out.scale_den[s] = den_s;
    }

    // Totals below a noise limit proportional to the picture area count as 0.
    const double limit = 1e-10 * (width * height) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    if (den == 0.0) {
        out.score = 1.0;
    } else {
        out.score_aim = aim_num / den;
        out.score = num / den;
    }
    out.num = num;
    out.den = den;
    return out;
}

}  // namespace vmafx::adm
