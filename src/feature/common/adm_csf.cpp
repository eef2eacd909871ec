// CSF weights of the integer ADM metric. Every expression keeps upstream's C types: float
// where upstream stores a float, double where C promotes (float op double), and the double
// versions of the libm functions (C's log10/pow/exp on doubles), so that the weights are
// the same floats as upstream's.
#include "feature/common/adm_csf.hpp"

#include "base/libm.hpp"

#include <cmath>

namespace vmafx::adm {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Watson et al. 1997, Table IV, luma (subject "sfl"): threshold model parameters
// (upstream integer_adm.h dwt_7_9_YCbCr_threshold[0]).
constexpr float kWatsonA = 0.495f;
constexpr float kWatsonK = 0.466f;
constexpr float kWatsonF0 = 0.401f;
constexpr float kWatsonG[4] = {1.501f, 1.0f, 0.534f, 1.0f};

// Watson et al. 1997, Table V: basis function amplitudes A[lambda][theta] of the 7-9
// biorthogonal wavelet (upstream dwt_7_9_basis_function_amplitudes).
constexpr float kBasisAmplitude[6][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},
    {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},
    {0.091401f, 0.11792f, 0.15214f, 0.11792f},
    {0.045943f, 0.059758f, 0.077727f, 0.059758f},
    {0.023013f, 0.030018f, 0.039156f, 0.030018f}};

// Display visual resolution in pixels per degree of visual angle (~56.55 at 3 x 1080),
// stored as a float as upstream does.
float display_resolution(double norm_view_dist, int ref_display_height) {
    return static_cast<float>(norm_view_dist * ref_display_height * kPi / 180.0);
}

// Watson's quantisation step Q(lambda, theta), formula (9) of the paper (upstream
// integer_adm.c dwt_quant_step). theta: 1 vertical/horizontal, 2 diagonal.
float watson_quant_step(int lambda, int theta, double norm_view_dist, int ref_display_height) {
    const float r = display_resolution(norm_view_dist, ref_display_height);
    const float temp = static_cast<float>(
        std::log10(std::pow(2.0, lambda + 1) * static_cast<double>(kWatsonF0) *
                   static_cast<double>(kWatsonG[theta]) / static_cast<double>(r)));
    const float exponent = kWatsonK * temp * temp;  // float arithmetic, as in C
    return static_cast<float>(2.0 * static_cast<double>(kWatsonA) *
                              std::pow(10.0, static_cast<double>(exponent)) /
                              static_cast<double>(kBasisAmplitude[lambda][theta]));
}

// --- Barten CSF (HDR-VDP-2 simplification), upstream barten_csf_tools.h ---

constexpr float kBartenLumAnchors[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
constexpr float kBartenParams[6][5] = {
    {0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
    {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
    {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
    {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
    {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
    {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f}};
constexpr float kBartenSa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
constexpr float kBartenMtfA[4] = {0.424838596301290f, 0.572435103936480f, 0.000167576239164937f,
                                  0.00255872352306433f};
constexpr float kBartenMtfB[4] = {0.028f, 0.37f, 37.0f, 360.0f};
// Luminance (cd/m^2) at which upstream evaluates the Barten CSF.
constexpr double kBartenLuminance = 100.0;

float linear_interpolate(float left_position, float left_value, float right_position, float right_value,
                         float sample_position) {
    return left_value + ((right_value - left_value) / (right_position - left_position)) *
                            (sample_position - left_position);
}

// Luminance-dependent factor of the CSF (rod/cone sensitivity).
float barten_rod_cone_sens(float luminance) {
    const double inner = std::pow(static_cast<double>(kBartenSa[1] / luminance), static_cast<double>(kBartenSa[2]));
    return static_cast<float>(static_cast<double>(kBartenSa[0]) *
                              std::pow(inner + 1, static_cast<double>(-kBartenSa[3])));
}

// Modulation transfer function of the eye's optics.
float barten_mtf(float spatial_frequency) {
    float mtf = 0.0f;
    for (int i = 0; i <= 3; ++i)
        mtf = static_cast<float>(static_cast<double>(mtf) +
                                 static_cast<double>(kBartenMtfA[i]) *
                                     libm::exp(static_cast<double>(-kBartenMtfB[i] * spatial_frequency)));
    return mtf;
}

float barten_csf(int lambda, double norm_view_dist, int ref_display_height, double luminance, double scale) {
    const float r = display_resolution(norm_view_dist, ref_display_height);
    const float spatial_frequency = static_cast<float>(static_cast<double>(r) / std::pow(2.0, lambda + 1));

    const double lo = kBartenLumAnchors[0];
    const double hi = kBartenLumAnchors[5];
    const double clamped = luminance > hi ? hi : (luminance < lo ? lo : luminance);
    int left = 0;
    int right = 0;
    for (int i = 0; i < 5; ++i) {
        if (clamped >= kBartenLumAnchors[i] && clamped <= kBartenLumAnchors[i + 1]) {
            left = i;
            right = i + 1;
            break;
        }
    }
    const float left_position = static_cast<float>(std::log10(static_cast<double>(kBartenLumAnchors[left])));
    const float right_position = static_cast<float>(std::log10(static_cast<double>(kBartenLumAnchors[right])));
    const float sample_position = static_cast<float>(std::log10(clamped));
    float p[4];
    for (int k = 0; k < 4; ++k)
        p[k] = linear_interpolate(left_position, kBartenParams[left][k + 1], right_position,
                                  kBartenParams[right][k + 1], sample_position);

    const float a = static_cast<float>(
        1.0f + std::pow(static_cast<double>(p[0] * spatial_frequency), static_cast<double>(p[1])));
    const double f7 = static_cast<double>(spatial_frequency / 7);
    const float b = static_cast<float>(
        1.0f / std::pow(1 - libm::exp(-std::pow(f7, 2.0)), static_cast<double>(p[2])));
    const float csf = static_cast<float>(static_cast<double>(p[3]) / std::pow(static_cast<double>(a * b), 0.5));
    const float lum_sens = barten_rod_cone_sens(static_cast<float>(luminance));
    return static_cast<float>(static_cast<double>(csf * barten_mtf(spatial_frequency) * lum_sens) * scale);
}

// --- Blended Barten/Watson tables [orientation: 0 h/v, 1 d][scale] ---

using BlendTable = float[2][4];
constexpr BlendTable kBlend1080x3 = {{0.01183f, 0.025026f, 0.04295f, 0.058621f},
                                     {0.004302f, 0.011778f, 0.023918f, 0.035901f}};
constexpr BlendTable kBlend1080x5 = {{0.004212f, 0.014809f, 0.029642f, 0.047464f},
                                     {0.000984f, 0.005852f, 0.0146f, 0.027574f}};
constexpr BlendTable kBlend2160x3 = {{0.00226f, 0.01183f, 0.025026f, 0.04295f},
                                     {0.000479f, 0.004302f, 0.011778f, 0.023918f}};
constexpr BlendTable kBlend2160x5 = {{0.000092f, 0.004212f, 0.014809f, 0.029642f},
                                     {0.000050f, 0.000984f, 0.005852f, 0.0146f}};
constexpr BlendTable kBlend720x3 = {{0.018715f, 0.035637f, 0.052798f, 0.061509f},
                                    {0.007999f, 0.018396f, 0.031851f, 0.037718f}};
constexpr BlendTable kBlend720x5 = {{0.010144f, 0.022561f, 0.040309f, 0.05672f},
                                    {0.003463f, 0.010282f, 0.021839f, 0.034641f}};
constexpr BlendTable kBlend480x3 = {{0.027961f, 0.045875f, 0.060275f, 0.056234f},
                                    {0.013572f, 0.026277f, 0.036959f, 0.034511f}};
constexpr BlendTable kBlend480x5 = {{0.016781f, 0.032822f, 0.05032f, 0.061594f},
                                    {0.00691f, 0.016545f, 0.029917f, 0.037777f}};

constexpr BlendTable kBlendMae1080x3 = {{0.011249f, 0.022606f, 0.035930f, 0.045673f},
                                        {0.004097f, 0.010921f, 0.021430f, 0.031313f}};
constexpr BlendTable kBlendMae1080x5 = {{0.004052f, 0.013939f, 0.026298f, 0.038833f},
                                        {0.000927f, 0.005544f, 0.013415f, 0.024515f}};
constexpr BlendTable kBlendMae2160x3 = {{0.002166f, 0.011249f, 0.022606f, 0.035930f},
                                        {0.000447f, 0.004097f, 0.010921f, 0.021430f}};
constexpr BlendTable kBlendMae2160x5 = {{0.000077f, 0.004052f, 0.013939f, 0.026298f},
                                        {0.000045f, 0.000927f, 0.005544f, 0.013415f}};
constexpr BlendTable kBlendMae720x3 = {{0.017329f, 0.030870f, 0.042134f, 0.047410f},
                                       {0.007509f, 0.016707f, 0.028072f, 0.032722f}};
constexpr BlendTable kBlendMae720x5 = {{0.009689f, 0.020577f, 0.034162f, 0.044523f},
                                       {0.003302f, 0.009579f, 0.019661f, 0.030318f}};
constexpr BlendTable kBlendMae480x3 = {{0.024969f, 0.037825f, 0.046676f, 0.043974f},
                                       {0.012511f, 0.023424f, 0.032139f, 0.030166f}};
constexpr BlendTable kBlendMae480x5 = {{0.015665f, 0.028766f, 0.040612f, 0.047483f},
                                       {0.006514f, 0.015107f, 0.026476f, 0.032776f}};

// The table for (display height, viewing distance), or nullptr (upstream then returns
// -EINVAL as the weight). 2160 at 1.5H has the pixels per degree of 1080 at 3H.
const BlendTable* blend_table(bool mae, int height, double dist) {
    struct Entry {
        int height;
        double dist;
        const BlendTable* legacy;
        const BlendTable* refit;
    };
    static constexpr Entry kEntries[] = {
        {1080, 3.0, &kBlend1080x3, &kBlendMae1080x3}, {1080, 5.0, &kBlend1080x5, &kBlendMae1080x5},
        {2160, 1.5, &kBlend1080x3, &kBlendMae1080x3}, {2160, 3.0, &kBlend2160x3, &kBlendMae2160x3},
        {2160, 5.0, &kBlend2160x5, &kBlendMae2160x5}, {720, 3.0, &kBlend720x3, &kBlendMae720x3},
        {720, 5.0, &kBlend720x5, &kBlendMae720x5},    {480, 3.0, &kBlend480x3, &kBlendMae480x3},
        {480, 5.0, &kBlend480x5, &kBlendMae480x5},
    };
    for (const auto& e : kEntries)
        if (height == e.height && dist == e.dist) return mae ? e.refit : e.legacy;
    return nullptr;
}

constexpr float kEinval = -22.0f;  // upstream's `return -EINVAL;` from a float function

}  // namespace

std::array<float, 3> csf_weights(const CsfConfig& c, int scale) {
    float hv = 0.0f;
    float d = 0.0f;
    switch (c.mode) {
    case CsfMode::kBarten:
        hv = barten_csf(scale, c.norm_view_dist, c.ref_display_height, kBartenLuminance, c.csf_scale);
        d = barten_csf(scale, c.norm_view_dist, c.ref_display_height, kBartenLuminance, c.csf_diag_scale);
        break;
    case CsfMode::kBlend:
    case CsfMode::kBlendMae: {
        const BlendTable* t = blend_table(c.mode == CsfMode::kBlendMae, c.ref_display_height, c.norm_view_dist);
        hv = t ? (*t)[0][scale] : kEinval;
        d = t ? (*t)[1][scale] : kEinval;
        break;
    }
    case CsfMode::kWatson97:
        hv = 1.0f / watson_quant_step(scale, 1, c.norm_view_dist, c.ref_display_height);
        d = 1.0f / watson_quant_step(scale, 2, c.norm_view_dist, c.ref_display_height);
        break;
    }
    return {hv, hv, d};
}

namespace {

// double -> uint16_t as upstream's build converts it: vcvttsd2si to 32 bits (NaN and
// values outside the int32 range give 0x80000000), then the low 16 bits.
std::uint16_t to_u16_via_i32(double value) {
    if (!(value > -2147483649.0 && value < 2147483648.0)) return 0;
    return static_cast<std::uint16_t>(static_cast<std::int32_t>(value));
}

}  // namespace

std::uint32_t to_u32_avx512(double value) {
    if (!(value > -1.0 && value < 4294967296.0)) return 0xFFFFFFFFu;
    return static_cast<std::uint32_t>(value);
}

std::array<std::uint16_t, 3> csf_weights_q_scale0(const CsfConfig& c) {
    if (std::fabs(c.norm_view_dist * c.ref_display_height - 3.0 * 1080) < 1.0e-8 && c.mode == CsfMode::kWatson97)
        return {36453, 36453, 49417};
    const std::array<float, 3> w = csf_weights(c, 0);
    const double q21 = std::pow(2, 21);
    const double q23 = std::pow(2, 23);
    return {to_u16_via_i32(w[0] * q21), to_u16_via_i32(w[1] * q21), to_u16_via_i32(w[2] * q23)};
}

std::array<std::uint32_t, 3> csf_weights_q32(const CsfConfig& c, int scale) {
    // A blend mode without a table: upstream's weight is the constant -EINVAL (-22) on that
    // path, and its conversion (-22 * 2^32 to uint32_t, undefined in C) becomes 0 in every
    // upstream build measured (C, AVX2 and AVX-512 code paths: GCC folds the constant, and
    // the 64-bit truncation the C path uses leaves 0 in the low 32 bits). Runtime weights out
    // of range (Barten with large scales) still convert as the AVX-512 kernels do.
    if ((c.mode == CsfMode::kBlend || c.mode == CsfMode::kBlendMae) &&
        !blend_table(c.mode == CsfMode::kBlendMae, c.ref_display_height, c.norm_view_dist))
        return {0u, 0u, 0u};
    const std::array<float, 3> w = csf_weights(c, scale);
    const double q32 = std::pow(2, 32);
    return {to_u32_avx512(w[0] * q32), to_u32_avx512(w[1] * q32), to_u32_avx512(w[2] * q32)};
}

}  // namespace vmafx::adm

namespace vmafx::adm {

float native_csf(int lambda, double norm_view_dist, int ref_display_height, int theta) {
    const float r = display_resolution(norm_view_dist, ref_display_height);
    float spatial_frequency = static_cast<float>(static_cast<double>(r) / std::pow(2.0, lambda + 1));
    if (theta == 45) spatial_frequency = static_cast<float>(static_cast<double>(spatial_frequency) / 0.7);
    const double sf = spatial_frequency;
    return static_cast<float>((0.31 + 0.69 * sf) * libm::exp(-0.29 * sf));
}

}  // namespace vmafx::adm
