// CAMBI's visibility levels (upstream libvmaf 3.2.0 luminance_tools.c and cambi.c
// get_tvi_for_diff, get_vlt_luma, adjust_window_size): cambi_levels.hpp.
#include "feature/cambi/cambi_levels.hpp"

#include <cmath>
#include <cstdint>

namespace vmafx::cambi {

namespace {

// 10-bit limited range [64, 940].
constexpr int kFoot = 64;
constexpr int kHead = 940;

double normalized_luma(int sample) {
    const int clipped = sample < kFoot ? kFoot : (sample > kHead ? kHead : sample);
    return static_cast<double>(clipped - kFoot) / (kHead - kFoot);
}

}  // namespace

double bt1886_eotf(double v) {
    const double gamma = 2.4, lw = 300.0, lb = 0.01;
    const double a = std::pow(std::pow(lw, 1.0 / gamma) - std::pow(lb, 1.0 / gamma), gamma);
    const double b = std::pow(lb, 1.0 / gamma) / (std::pow(lw, 1.0 / gamma) - std::pow(lb, 1.0 / gamma));
    const double x = v + b;
    return a * std::pow(x > 0 ? x : 0, gamma);
}

double pq_eotf(double v) {
    const double m1 = 0.1593017578125, m2 = 78.84375;
    const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    const double num = std::pow(v, 1.0 / m2) - c1;
    const double clipped = num > 0 ? num : 0;
    const double den = c2 - c3 * std::pow(v, 1.0 / m2);
    return 10000 * std::pow(clipped / den, 1.0 / m1);
}

namespace {

double luminance(int sample, Eotf eotf) { return eotf(normalized_luma(sample)); }

// Whether a step of `diff` levels above `sample` is visible: dL > tvi * L.
bool visible_step(int sample, int diff, double tvi, Eotf eotf) {
    const double mean = luminance(sample, eotf);
    const double stepped = luminance(sample + diff, eotf);
    return stepped - mean > tvi * mean;
}

enum class Bisect { kTooSmall, kCorrect, kTooBig };

Bisect classify(int sample, int diff, double tvi, Eotf eotf) {
    if (!visible_step(sample, diff, tvi, eotf)) return Bisect::kTooBig;
    if (visible_step(sample + 1, diff, tvi, eotf)) return Bisect::kTooSmall;
    return Bisect::kCorrect;
}

}  // namespace

// The largest 10-bit level at which a step of `diff` is still visible (cambi.c get_tvi_for_diff).
int tvi_for_diff(int diff, double tvi, Eotf eotf) {
    int foot = kFoot;
    int head = kHead - diff - 1;
    Bisect b = classify(foot, diff, tvi, eotf);
    if (b == Bisect::kTooBig) return 0;
    if (b == Bisect::kCorrect) return foot;
    b = classify(head, diff, tvi, eotf);
    if (b == Bisect::kTooSmall) return (1 << 10) - 1;
    if (b == Bisect::kCorrect) return head;
    for (;;) {
        const int mid = foot + (head - foot) / 2;
        b = classify(mid, diff, tvi, eotf);
        if (b == Bisect::kTooBig) head = mid;
        else if (b == Bisect::kTooSmall) foot = mid;
        else return mid;
    }
}

// The smallest 10-bit level whose luminance reaches `threshold`, 0 when that is the foot
// (cambi.c get_vlt_luma); -1 when no level reaches it (upstream loops forever).
int vlt_luma_for(double threshold, Eotf eotf) {
    int sample = kFoot;
    while (luminance(sample, eotf) < threshold) {
        if (sample >= kHead) return -1;  // every later level has the head's luminance
        ++sample;
    }
    return sample == kFoot ? 0 : sample;
}

// cambi.c adjust_window_size: the window scaled by (width + height) / (3840 + 2160), halved
// (rounding up) with the speed-up, made odd.
int adjusted_window(int window, int width, int height, bool speedup) {
    unsigned w = static_cast<std::uint16_t>((static_cast<unsigned>(window) *
                                             (static_cast<unsigned>(width) + static_cast<unsigned>(height))) /
                                            375 >> 4);
    if (speedup) w = static_cast<std::uint16_t>((w + 1) >> 1);
    return static_cast<int>(static_cast<std::uint16_t>(w | 1));
}

}  // namespace vmafx::cambi
