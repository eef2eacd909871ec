// The CUDA twin of float_adm as host-testable code: the per-thread work of its kernels
// (float_adm_cuda.cu) as VMAFX_HOST_DEVICE functions built on the CPU's own arithmetic
// (float_adm_math.hpp), with the planted regressions inside them. The kernels only index and
// call these; float_adm_twin_test.cpp runs the same functions on the host, in the kernels'
// decomposition (a position per thread, a row per thread, a band per thread), against the CPU's
// compute_adm, and checks that each planted regression changes an output. No CUDA header needed.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "base/host_device.hpp"
#include "feature/float_adm/float_adm_kernels.hpp"
#include "feature/common/planted_arith.hpp"
#include "feature/float_adm/float_adm_math.hpp"
#include "base/libm_powf.hpp"
#include "gpu/twin.hpp"

namespace vmafx::float_adm::twin_work {

/// The planted regressions of the twin (parity-gate tests only; all off in normal runs): fma,
/// the DWT taps and the threshold's centre fused (kContraction); mirror, the DWT's mirror -1 -> 2
/// instead of 1 (kMirrorShift); toward_zero, the CSF's 1/30 magnitudes rounded toward 0
/// (kRoundingConstant); order, each row's terms summed last column first (kReductionOrder).
using Plant = planted::Flags;

/// The Daubechies-2 taps (kDwtLo, kDwtHi), by value into the kernels.
struct Taps {
    float lo[4];
    float hi[4];
};

/// kDwtLo / kDwtHi as Taps.
inline Taps dwt_taps_table() {
    Taps t{};
    for (int k = 0; k < 4; ++k) t.lo[k] = kDwtLo[k], t.hi[k] = kDwtHi[k];
    return t;
}

/// Three bands (h, v, d) of one size, packed rows.
struct Band3 {
    float* b[3];
};

/// The double `d` rounded to float toward zero (the planted kRoundingConstant only).
VMAFX_HOST_DEVICE inline float round_toward_zero(double d) {
    float f = static_cast<float>(d);
    if (fabs(static_cast<double>(f)) > fabs(d)) f = nextafterf(f, 0.0f);
    return f;
}

/// dwt_taps, or (planted) each product fused into the sum.
VMAFX_HOST_DEVICE inline float taps_at(const float (&f)[4], const float (&s)[4], bool fused) {
    if (!fused) return dwt_taps(f[0], f[1], f[2], f[3], s[0], s[1], s[2], s[3]);
    float acc = 0.0f;
    for (int k = 0; k < 4; ++k) acc = fmaf(f[k], s[k], acc);
    return acc;
}

/// dwt_source, or (planted) -1 -> 2.
VMAFX_HOST_DEVICE inline int source_at(int k, int n, bool shifted) {
    if (shifted && k < 0 && n > 2) return 2;
    return dwt_source(k, n);
}

/// Output (i, j) of one DWT level of the w x h image `src` (packed) into the bw-wide bands a, h,
/// v, d (h, v, d not written when lo_only): the four vertical tap sums (low, high pass) of
/// source columns 2j-1 .. 2j+2 (mirrored), then their horizontal tap sums, as the CPU's dwt2.
VMAFX_HOST_DEVICE inline void dwt_at(const float* src, int w, int h, int bw, int i, int j, const Taps& taps,
                                     bool lo_only, float* a, float* hb, float* vb, float* db, Plant plant) {
    int rows[4], cols[4];
    for (int k = 0; k < 4; ++k) {
        rows[k] = source_at(2 * i - 1 + k, h, plant.mirror);
        cols[k] = source_at(2 * j - 1 + k, w, plant.mirror);
    }
    float lo[4], hi[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < 4; ++k) {
        float s[4];
        for (int r = 0; r < 4; ++r) s[r] = src[static_cast<std::ptrdiff_t>(rows[r]) * w + cols[k]];
        lo[k] = taps_at(taps.lo, s, plant.fma);
        if (!lo_only) hi[k] = taps_at(taps.hi, s, plant.fma);
    }
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(i) * bw + j;
    a[o] = taps_at(taps.lo, lo, plant.fma);
    if (lo_only) return;
    vb[o] = taps_at(taps.hi, lo, plant.fma);
    hb[o] = taps_at(taps.lo, hi, plant.fma);
    db[o] = taps_at(taps.hi, hi, plant.fma);
}

/// The decouple step at offset o: the CPU's decouple_pixel (restored, angle_flag, gain_limited),
/// with kRcpTable's entries read from `table` (4096 entries).
VMAFX_HOST_DEVICE inline void decouple_at(const Band3& ref, const Band3& dis, const Band3& r, const Band3& ad,
                                          std::ptrdiff_t o, double gain_limit, const std::uint32_t* table) {
    float ov[3], tv[3], rst[3];
    for (int t = 0; t < 3; ++t) {
        ov[t] = ref.b[t][o];
        tv[t] = dis.b[t][o];
        rst[t] = restored(ov[t], tv[t], table[rcp_index(ov[t] + 1e-30f)]);
    }
    if (angle_flag(ov[0], ov[1], tv[0], tv[1]))
        for (int t = 0; t < 3; ++t) rst[t] = gain_limited(rst[t], tv[t], gain_limit);
    for (int t = 0; t < 3; ++t) {
        r.b[t][o] = rst[t];
        ad.b[t][o] = tv[t] - rst[t];
    }
}

/// The CSF step at offset o: val = rf * x, flt = csf_flt(val) (planted: rounded toward zero).
VMAFX_HOST_DEVICE inline void csf_at(const Band3& src, float f1, float f2, std::ptrdiff_t o, const Band3& val,
                                     const Band3& flt, Plant plant) {
    const float rf[3] = {f1, f1, f2};
    for (int t = 0; t < 3; ++t) {
        const float v = rf[t] * src.b[t][o];
        val.b[t][o] = v;
        flt.b[t][o] = plant.toward_zero ? round_toward_zero(kOneBy30 * static_cast<double>(abs_f(v))) : csf_flt(v, kOneBy30);
    }
}

/// The masking threshold at row i, column j of the g.w x g.h bands: from 0, each band's
/// cm_band_sum over cm_neighbour's 3x3 neighbourhood of the masker (flt; val at the centre), in
/// band order, as the CPU's cm_thresholds. Planted: the centre's double product fused.
VMAFX_HOST_DEVICE inline float cm_threshold_at(const Band3& val, const Band3& flt, const CmGeometry& g, int i, int j,
                                               Plant plant) {
    const std::ptrdiff_t w = g.w;
    const std::ptrdiff_t ra = cm_neighbour(i, g.h, 0) * w, rb = cm_neighbour(i, g.h, 1) * w,
                         rc = cm_neighbour(i, g.h, 2) * w;
    const int ca = cm_neighbour(j, g.w, 0), cb = cm_neighbour(j, g.w, 1), cc = cm_neighbour(j, g.w, 2);
    float thr = 0.0f;
    for (int t = 0; t < 3; ++t) {
        const float* f = flt.b[t];
        const float centre = val.b[t][rb + cb];
        float sum;
        if (!plant.fma) {
            sum = cm_band_sum(f[ra + ca], f[ra + cb], f[ra + cc], f[rb + ca], f[rb + cc], f[rc + ca], f[rc + cb],
                              f[rc + cc], centre, kOneBy15);
        } else {  // planted: the centre's product fused into the double sum
            sum = f[ra + ca];
            sum += f[ra + cb];
            sum += f[ra + cc];
            sum += f[rb + ca];
            sum = static_cast<float>(fma(kOneBy15, static_cast<double>(abs_f(centre)), static_cast<double>(sum)));
            sum += f[rb + cc];
            sum += f[rc + ca];
            sum += f[rc + cb];
            sum += f[rc + cc];
        }
        thr += sum;
    }
    return thr;
}

/// How the terms are raised to adm_p_norm: cubed ((v * v) * v) at p = 3, else with the CPU's own
/// powf (libm::powf_with, the function of libm::powf) at float(p), as the CPU.
struct Power {
    bool cube;
    float p;  ///< float(adm_p_norm)
    const libm::PowfTables* data;  ///< libm::powf_tables() (on the device: its device copy)
};

/// The denominator's term of reference value x: |rf * x|^p.
VMAFX_HOST_DEVICE inline float den_term(float x, float rf, const Power& pw) {
    return pw.cube ? den_cube(x, rf) : libm::powf_with(abs_f(rf * x), pw.p, *pw.data);
}

/// A masked term: max(|x * rf| - thr, 0)^p.
VMAFX_HOST_DEVICE inline float cm_term(float x, float rf, float thr, const Power& pw) {
    if (pw.cube) return cm_cube(x, rf, thr);
    float v = abs_f(x * rf) - thr;
    v = v < 0.0f ? 0.0f : v;
    return libm::powf_with(v, pw.p, *pw.data);
}

/// The float sum from 0 of the n terms of `row` in column order (planted: last column first).
VMAFX_HOST_DEVICE inline float row_sum_at(const float* row, int n, bool reversed) {
    float sum = 0.0f;
    if (!reversed)
        for (int k = 0; k < n; ++k) sum += row[k];
    else
        for (int k = n - 1; k >= 0; --k) sum += row[k];
    return sum;
}

/// One level's geometry, from the CPU's functions (float_adm_kernels.hpp).
struct Level {
    int w = 0, h = 0;    ///< the level's input
    int bw = 0, bh = 0;  ///< its bands
    Region ext{}, score{};
    CmGeometry cm{};
    int cm_r0 = 0, cm_r1 = 0;  ///< the rows cm adds: [cm_r0, cm_r1), in order
};

/// The geometry of the four levels of a width x height luma.
inline void levels_of(int width, int height, Level (&levels)[4]) {
    int w = width, h = height;
    for (Level& l : levels) {
        l.w = w, l.h = h, l.bw = (w + 1) / 2, l.bh = (h + 1) / 2;
        l.ext = extended_region(l.bw, l.bh);
        l.score = score_region(l.bw, l.bh);
        l.cm = cm_geometry(l.bw, l.bh);
        l.cm_r0 = l.cm.s.top <= 0 ? 0 : l.cm.start_row;
        l.cm_r1 = l.cm.s.bottom > l.bh - 1 ? l.bh : l.cm.end_row;
        w = l.bw, h = l.bh;
    }
}

}  // namespace vmafx::float_adm::twin_work
