// CAMBI's visibility levels: which 10-bit luma steps are visible (upstream libvmaf 3.2.0
// luminance_tools.c and cambi.c). Internal: used by cambi.cpp (cambi_levels.cpp).
#pragma once

namespace vmafx::cambi {

/// An EOTF: the luminance in cd/m^2 of a normalized level in [0, 1].
using Eotf = double (*)(double);

/// BT.1886 with upstream's constants (gamma 2.4, white 300 cd/m^2, black 0.01 cd/m^2).
double bt1886_eotf(double v);
/// SMPTE ST 2084 (PQ), in cd/m^2 up to 10000.
double pq_eotf(double v);

/// The largest 10-bit level (of the limited range [64, 940]) at which a step of `diff` levels is
/// still visible, dL > tvi * L (cambi.c get_tvi_for_diff): 0 when none is, 1023 when all are.
int tvi_for_diff(int diff, double tvi, Eotf eotf);

/// The smallest 10-bit level whose luminance reaches `threshold` cd/m^2, 0 when that is the foot
/// (cambi.c get_vlt_luma); -1 when no level reaches it (upstream loops forever).
int vlt_luma_for(double threshold, Eotf eotf);

/// cambi.c adjust_window_size: the window (samples) scaled by (width + height) / (3840 + 2160),
/// halved (rounding up) with the speed-up, made odd, in upstream's 16-bit arithmetic.
int adjusted_window(int window, int width, int height, bool speedup);

}  // namespace vmafx::cambi
