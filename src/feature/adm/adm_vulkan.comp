// Vulkan twin of the integer ADM (adm_vulkan.cpp says how the passes make the CPU's sums; the
// CUDA twin's kernels, adm_cuda_kernels.cuh, have the same structure). Every value is formed by
// adm_math.hpp's functions (the CPU's own: the DWT passes with their mirrors and roundings, the
// decouple with its same-direction tests and gain restore, the CSF weights, the masking
// thresholds and cubes, the rounding of each row's sum), chosen per column as the CPU chooses
// its AVX-512 or C arithmetic, with the constants of the twin's plan (adm_twin_plan.hpp). Every
// sum is an integer sum (modulo 2^64, or 2^32 where the CPU wraps), so its order does not matter.
// The only floating point (the same-direction tests, the gain restore, 2^30 / i) is IEEE
// multiplications, correctly rounded divisions (base/correctly_rounded.hpp), comparisons and
// conversions, every operation NoContraction (tools/spirv_strict.py).
//  pass 0 (level 0), a workgroup per 256 band columns and band row: the vertical DWT of the
//    luma rows the taps read into shared memory, then per column the horizontal DWT (band a
//    stored for level 1), the decouple and CSF in the tap region (what contrast masking reads
//    stored), and the row's denominator cubes, one partial per workgroup;
//  pass 1 (levels 1..3): the same from the previous level's band a;
//  pass 2: a level's contrast masking, a workgroup per 256 visited columns and visited row: the
//    3x3 masking threshold and the cube terms of DLM (and AIM), one partial per workgroup;
//  pass 3, a workgroup per sum (4 levels x {den, num, aim} x 3 orientations): each row's
//    partials added, the row's sum rounded and shifted, the rows added, as the CPU does.
// plant: 1 kMirrorShift (the vertical mirror at the bottom edge one row further in), 2
// kRoundingConstant (level 0's horizontal DWT rounds with 2^14), 3 kReductionOrder (each sum's
// rows added before one rounding and shift of the total).
#version 460
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#define VMAFX_GLSL 1
#include "feature/adm/adm_math.hpp"
#include "vulkan/planes.glsl"
#include "vulkan/reduce.glsl"

layout(local_size_x = VMAFX_GROUP) in;

/// Vertical-pass columns of a workgroup: the taps of its outputs, 2 j0 - 1 .. 2 (j0 + 255) + 2.
#define SPAN (2 * VMAFX_GROUP + 2)

/// One level's plan (adm_vulkan.cpp's LevelParams, member for member).
struct LevelParams {
    int64_t round_v, round_h;  // levels 1..3: the DWT's roundings
    uint64_t den_round_sq, den_cub_round;
    int64_t rcub[3];
    uint64_t den_round;  // a row's denominator sum: rounding and shift
    int64_t cm_round;    // a row's contrast-masking sum: rounding and shift
    double egl;
    int32_t in_w, in_h, bit_depth;  // the DWT's input: the luma (level 0) or the previous band a
    int32_t w, h, pitch;            // the band, and the pitch of its planes (elements)
    uint32_t shift_v, shift_h;
    int32_t reads_past_row, lo_only, integer_gain, egl_int, aim, store_a, store_tail, tap_vec_end;
    Region tap;
    Region score;
    CmBounds cm;
    int32_t wt[3];
    uint32_t wq[3];
    uint32_t scub[3];
    int32_t den_shift_sq;
    uint32_t den_cub_shift;
    int32_t tail_slot[2];
    int32_t tail_col[2];
    int32_t den_begin, den_end;
    uint32_t den_shift;
    int32_t cm_begin, cm_end;
    uint32_t cm_shift;
    int32_t has_den, has_num, has_aim;
    int32_t blocks;     // workgroups along a row of the DWT pass: partials per row
    int32_t cm_blocks;  // of the contrast-masking pass
    int32_t in_pitch;   // levels 1..3: the previous band's pitch (elements)
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Params { LevelParams l[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer I32s { int32_t v[]; };

// adm_vulkan.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t params;  // LevelParams[4]
    uint64_t table;   // the slot's addresses (adm_vulkan.cpp's Table)
    uint64_t ref, dis;                // pass 0: the luma planes
    uint32_t ref_pitch, dis_pitch;    // bytes
    int32_t level, pass, plant, wide;
} pc;

// The slot's address table: per level (16 entries each) band a of reference and distorted, the
// measured coefficients x[m][theta], the masking inputs sf[m] and centre[m], the row partials;
// then the scratch tails and the frame's sums.
#define T_REF_A 0
#define T_DIS_A 1
#define T_X 2        // + 3 m + theta
#define T_SF 8       // + m
#define T_CENTRE 10  // + m
#define T_ROWS 12
#define T_TAILS 64
#define T_SUMS 65

uint64_t table_at(int level, int entry) { return U64s(pc.table).v[level * 16 + entry]; }

/// Row partials of level `level`: [quantity (0 den, 1 num, 2 aim)][orientation][row][block].
uint64_t partial_at(int level, int quantity, int theta, int row, int block, int h, int blocks) {
    return table_at(level, T_ROWS) + uint64_t(((quantity * 3 + theta) * h + row) * blocks + block) * uint64_t(8);
}

/// Input row read by DWT tap position p of a pass over n rows (planted kMirrorShift: the mirror
/// at the bottom edge one row off).
int dwt_row(int p, int n) { return pc.plant == 1 && p >= n ? 2 * n - p - 2 : dwt_mirror(p, n); }

/// The planted kRoundingConstant: dwt0_horizontal_lo/_hi with half their rounding constant.
int32_t planted_dwt0_horizontal(int32_t taps) { return int32_t(int16_t((taps + kDwt0RoundH / 2) >> 16)); }

uint32_t luma_at(int img, int row, int col) {
    return uint32_t(img == 0 ? sample_at(pc.ref, pc.ref_pitch, row, col, pc.wide != 0)
                             : sample_at(pc.dis, pc.dis_pitch, row, col, pc.wide != 0));
}

int32_t level0_vertical(int img, int rows[4], int col, bool lo, int bit_depth) {
    const uint32_t s0 = luma_at(img, rows[0], col), s1 = luma_at(img, rows[1], col);
    const uint32_t s2 = luma_at(img, rows[2], col), s3 = luma_at(img, rows[3], col);
    return lo ? int32_t(dwt0_vertical_lo(s0, s1, s2, s3, bit_depth))
              : int32_t(dwt0_vertical_hi(s0, s1, s2, s3, bit_depth));
}

void store(int level, int entry, int idx, int32_t v) { I32s(table_at(level, entry)).v[idx] = v; }

shared int32_t s_vert[4 * SPAN];  // ref lo, ref hi, dis lo, dis hi (upstream's scratch rows)

void level0() {
    const LevelParams a = Params(pc.params).l[0];
    const int t = int(gl_LocalInvocationID.x);
    const int i = int(gl_WorkGroupID.y);
    const int j0 = int(gl_WorkGroupID.x) * VMAFX_GROUP;
    int rows[4];
    for (int k = 0; k < 4; ++k) rows[k] = dwt_row(2 * i - 1 + k, a.in_h);
    for (int c = t; c < SPAN; c += VMAFX_GROUP) {
        const int x = 2 * j0 - 1 + c;
        if (x > a.in_w + 1) break;  // read by no output
        const int col = dwt_mirror(x, a.in_w);
        for (int img = 0; img < 2; ++img) {
            s_vert[(2 * img) * SPAN + c] = level0_vertical(img, rows, col, true, a.bit_depth);
            if (a.lo_only == 0) s_vert[(2 * img + 1) * SPAN + c] = level0_vertical(img, rows, col, false, a.bit_depth);
        }
    }
    barrier();

    const int j = j0 + t;
    const bool in_band = j < a.w;
    const int idx = i * a.pitch + j;
    int32_t band[2][4];  // [ref, dis][a, h, v, d]
    for (int img = 0; img < 2; ++img)
        for (int q = 0; q < 4; ++q) band[img][q] = 0;
    if (in_band) {
        const bool past_row = a.reads_past_row != 0 && j == a.w - 1;
        for (int img = 0; img < 2; ++img) {
            int32_t lo[4], hi[4];
            for (int q = 0; q < 4; ++q) {
                const int pos = 2 * j - 1 + q;
                if (past_row && pos >= a.in_w) {
                    // Upstream's next scratch row: this image's vertical high pass at column
                    // pos - width after the low pass; zeros after the high pass.
                    lo[q] = level0_vertical(img, rows, pos - a.in_w, false, a.bit_depth);
                    hi[q] = 0;
                } else {
                    lo[q] = s_vert[(2 * img) * SPAN + 2 * t + q];
                    hi[q] = a.lo_only != 0 ? 0 : s_vert[(2 * img + 1) * SPAN + 2 * t + q];
                }
            }
            if (pc.plant == 2) {
                band[img][0] = planted_dwt0_horizontal(dwt0_taps_lo(lo[0], lo[1], lo[2], lo[3]));
                band[img][1] = planted_dwt0_horizontal(dwt0_taps_lo(hi[0], hi[1], hi[2], hi[3]));
                band[img][2] = planted_dwt0_horizontal(dwt0_taps_hi(lo[0], lo[1], lo[2], lo[3]));
                band[img][3] = planted_dwt0_horizontal(dwt0_taps_hi(hi[0], hi[1], hi[2], hi[3]));
            } else {
                band[img][0] = int32_t(dwt0_horizontal_lo(lo[0], lo[1], lo[2], lo[3]));
                band[img][1] = int32_t(dwt0_horizontal_lo(hi[0], hi[1], hi[2], hi[3]));
                band[img][2] = int32_t(dwt0_horizontal_hi(lo[0], lo[1], lo[2], lo[3]));
                band[img][3] = int32_t(dwt0_horizontal_hi(hi[0], hi[1], hi[2], hi[3]));
            }
        }
        store(0, T_REF_A, idx, band[0][0]);
        store(0, T_DIS_A, idx, band[1][0]);
    }
    if (a.lo_only != 0) return;  // the whole workgroup: no reduction follows

    const bool row_in_tap = i >= a.tap.top && i < a.tap.bottom;
    if (in_band && row_in_tap && j >= a.tap.left && j < a.tap.right) {
        const bool vec = j < a.tap_vec_end;
        const bool same = vec ? same_direction_avx512(band[0][1], band[0][2], band[1][1], band[1][2])
                              : same_direction(int64_t(band[0][1]), int64_t(band[0][2]), int64_t(band[1][1]),
                                               int64_t(band[1][2]));
        int32_t restored[3], additive_part[3];
        for (int theta = 0; theta < 3; ++theta) {
            const int32_t oj = band[0][1 + theta];
            const int32_t tj = band[1][1 + theta];
            const int32_t k = decouple0_k(oj, tj);
            int32_t rst = restored0(k, oj);
            rst = a.integer_gain != 0 ? restore0_integer_gain(rst, tj, k, oj, same ? -1 : 0, a.egl_int)
                                      : restore32(rst, tj, k, oj, same, a.egl, vec);
            restored[theta] = int32_t(int16_t(rst));
            additive_part[theta] = int32_t(int16_t(tj - rst));
            store(0, T_X + theta, idx, restored[theta]);
            if (a.aim != 0) store(0, T_X + 3 + theta, idx, additive_part[theta]);
        }
        // Masking inputs: DLM's masker is the additive part, AIM's the restored part.
        const bool cm_vec = j < cm_vector_cut(a.cm, i, 14);
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && a.aim == 0) break;
            int32_t sf = 0;
            uint32_t centre = 0u;
            for (int theta = 0; theta < 3; ++theta) {
                const int32_t src = m == 0 ? additive_part[theta] : restored[theta];
                const int32_t wide = csf0_weight(src, a.wt[theta], theta);
                const int32_t narrow = int32_t(int16_t(wide));
                sf += int32_t(csf0_filter(vec ? wide : narrow));
                const int32_t term = cm0_centre_term(narrow);
                centre += cm_vec ? uint32_t(term) : uint32_t(int32_t(int16_t(term)));
            }
            store(0, T_SF + m, idx, sf);
            store(0, T_CENTRE + m, idx, int32_t(centre));
        }
    }
    uint64_t den[3] = {uint64_t(0), uint64_t(0), uint64_t(0)};
    const bool row_in_score = i >= a.score.top && i < a.score.bottom;
    if (in_band && row_in_score && j >= a.score.left && j < a.score.right)
        for (int theta = 0; theta < 3; ++theta) den[theta] = den0_cube(band[0][1 + theta]);
    for (int theta = 0; theta < 3; ++theta) {
        const uint64_t total = block_sum(den[theta]);
        if (t == 0) U64s(partial_at(0, 0, theta, i, int(gl_WorkGroupID.x), a.h, a.blocks)).v[0] = total;
    }
}

/// The vertical pass of levels 1..3 at (rows, col) of the previous level's band a of image `img`.
int32_t level_vertical(int img, int rows[4], int col, bool lo, LevelParams a) {
    const uint64_t plane = table_at(pc.level - 1, img == 0 ? T_REF_A : T_DIS_A);
    const int64_t s0 = int64_t(I32s(plane).v[rows[0] * a.in_pitch + col]);
    const int64_t s1 = int64_t(I32s(plane).v[rows[1] * a.in_pitch + col]);
    const int64_t s2 = int64_t(I32s(plane).v[rows[2] * a.in_pitch + col]);
    const int64_t s3 = int64_t(I32s(plane).v[rows[3] * a.in_pitch + col]);
    return lo ? dwt_lo(s0, s1, s2, s3, a.round_v, a.shift_v) : dwt_hi(s0, s1, s2, s3, a.round_v, a.shift_v);
}

void level() {
    const int L = pc.level;
    const LevelParams a = Params(pc.params).l[L];
    const int t = int(gl_LocalInvocationID.x);
    const int i = int(gl_WorkGroupID.y);
    const int j0 = int(gl_WorkGroupID.x) * VMAFX_GROUP;
    int rows[4];
    for (int k = 0; k < 4; ++k) rows[k] = dwt_row(2 * i - 1 + k, a.in_h);
    for (int c = t; c < SPAN; c += VMAFX_GROUP) {
        const int x = 2 * j0 - 1 + c;
        if (x > a.in_w + 1) break;
        const int col = dwt_mirror(x, a.in_w);
        for (int img = 0; img < 2; ++img) {
            s_vert[(2 * img) * SPAN + c] = level_vertical(img, rows, col, true, a);
            s_vert[(2 * img + 1) * SPAN + c] = level_vertical(img, rows, col, false, a);
        }
    }
    barrier();
    // What the next level reads past its rows (tails[2 (L + 1)..]); level 1 reads zeros.
    const uint64_t tails = U64s(pc.table).v[T_TAILS];
    if (a.store_tail != 0 && i == a.h - 1 && gl_WorkGroupID.x == 0u && t < 2)
        I32s(tails).v[2 * (L + 1 < 4 ? L + 1 : 0) + t] = s_vert[a.tail_slot[t] * SPAN + a.tail_col[t] + 1];

    const int j = j0 + t;
    const bool in_band = j < a.w;
    const int idx = i * a.pitch + j;
    int32_t band[2][4];
    for (int img = 0; img < 2; ++img)
        for (int q = 0; q < 4; ++q) band[img][q] = 0;
    if (in_band) {
        const bool past_row = a.reads_past_row != 0 && j == a.w - 1;
        int32_t taps[4][4];  // [scratch row][tap]
        for (int q = 0; q < 4; ++q) {
            const int pos = 2 * j - 1 + q;
            for (int s = 0; s < 4; ++s) {
                if (past_row && pos >= a.in_w) {
                    // Upstream's scratch rows follow each other: past the end of row s it reads
                    // row s + 1 at column pos - w_in; past the last, what the previous level
                    // left there.
                    const int col = pos - a.in_w;
                    taps[s][q] = s < 3 ? level_vertical((s + 1) / 2, rows, col, (s + 1) % 2 == 0, a)
                                       : I32s(tails).v[2 * L + col];
                } else {
                    taps[s][q] = s_vert[s * SPAN + 2 * t + q];
                }
            }
        }
        for (int img = 0; img < 2; ++img) {
            const int32_t lo[4] = taps[2 * img];
            const int32_t hi[4] = taps[2 * img + 1];
            band[img][0] = dwt_lo(int64_t(lo[0]), int64_t(lo[1]), int64_t(lo[2]), int64_t(lo[3]), a.round_h, a.shift_h);
            band[img][1] = dwt_lo(int64_t(hi[0]), int64_t(hi[1]), int64_t(hi[2]), int64_t(hi[3]), a.round_h, a.shift_h);
            band[img][2] = dwt_hi(int64_t(lo[0]), int64_t(lo[1]), int64_t(lo[2]), int64_t(lo[3]), a.round_h, a.shift_h);
            band[img][3] = dwt_hi(int64_t(hi[0]), int64_t(hi[1]), int64_t(hi[2]), int64_t(hi[3]), a.round_h, a.shift_h);
        }
        if (a.store_a != 0) {
            store(L, T_REF_A, idx, band[0][0]);
            store(L, T_DIS_A, idx, band[1][0]);
        }
    }

    const bool row_in_tap = i >= a.tap.top && i < a.tap.bottom;
    if (in_band && row_in_tap && j >= a.tap.left && j < a.tap.right) {
        const bool vec = j < a.tap_vec_end;
        const bool same =
            same_direction(int64_t(band[0][1]), int64_t(band[0][2]), int64_t(band[1][1]), int64_t(band[1][2]));
        int32_t restored_part[3], additive_part[3];
        for (int theta = 0; theta < 3; ++theta) {
            const int32_t o = band[0][1 + theta];
            const int32_t d = band[1][1 + theta];
            const int64_t k = decouple_k(o, d);
            const int32_t rst = restore32(restored(k, o), d, int32_t(k), o, same, a.egl, vec);
            restored_part[theta] = rst;
            additive_part[theta] = additive(d, rst);
            store(L, T_X + theta, idx, rst);
            if (a.aim != 0) store(L, T_X + 3 + theta, idx, additive_part[theta]);
        }
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && a.aim == 0) break;
            int32_t sf = 0;                // |sum| < 2^28: exact in 32 bits
            int64_t centre = int64_t(0);  // |sum| < 2^29
            for (int theta = 0; theta < 3; ++theta) {
                const int64_t wt = vec ? int64_t(int32_t(a.wq[theta])) : int64_t(a.wq[theta]);
                const int32_t v = csf_weight(m == 0 ? additive_part[theta] : restored_part[theta], wt);
                sf += csf_filter(v);
                centre += cm_centre_term(v);
            }
            store(L, T_SF + m, idx, sf);
            store(L, T_CENTRE + m, idx, int32_t(centre));
        }
    }
    uint64_t den[3] = {uint64_t(0), uint64_t(0), uint64_t(0)};
    const bool row_in_score = i >= a.score.top && i < a.score.bottom;
    if (in_band && row_in_score && j >= a.score.left && j < a.score.right)
        for (int theta = 0; theta < 3; ++theta)
            den[theta] = den_cube(band[0][1 + theta], a.den_round_sq, a.den_shift_sq, a.den_cub_round, a.den_cub_shift);
    for (int theta = 0; theta < 3; ++theta) {
        const uint64_t total = block_sum(den[theta]);
        if (t == 0) U64s(partial_at(L, 0, theta, i, int(gl_WorkGroupID.x), a.h, a.blocks)).v[0] = total;
    }
}

int32_t plane_at(int entry, int row, int col, int pitch) { return I32s(table_at(pc.level, entry)).v[row * pitch + col]; }

/// Contrast masking of level pc.level, visited row cm.row_begin + y: the row's DLM (and AIM)
/// cube terms, one partial per workgroup. Level 0's threshold wraps modulo 2^32 as the CPU's;
/// levels 1..3's is exact (64 bits), their AVX-512 columns compare in 64 bits with the weight
/// read as signed, the others wrap to 32 bits.
void contrast_masking() {
    const int L = pc.level;
    const LevelParams a = Params(pc.params).l[L];
    const int t = int(gl_LocalInvocationID.x);
    const int i = a.cm.row_begin + int(gl_WorkGroupID.y);
    const int j = a.cm.col_begin + int(gl_WorkGroupID.x) * VMAFX_GROUP + t;
    uint64_t acc[6];
    for (int k = 0; k < 6; ++k) acc[k] = uint64_t(0);
    if (j < a.cm.col_end) {
        const int rows[3] = {i == 0 ? 1 : i - 1, i, i == a.h - 1 ? a.h - 1 : i + 1};
        const int cols[3] = {j == 0 ? 1 : j - 1, j, j == a.w - 1 ? a.w - 1 : j + 1};
        const bool vec = j < cm_vector_cut(a.cm, i, 6);
        for (int m = 0; m < 2; ++m) {
            if (m == 1 && a.aim == 0) break;
            if (L == 0) {
                uint32_t thr = 0u;
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) thr += uint32_t(plane_at(T_SF + m, rows[r], cols[c], a.pitch));
                thr = thr - uint32_t(plane_at(T_SF + m, i, j, a.pitch)) + uint32_t(plane_at(T_CENTRE + m, i, j, a.pitch));
                for (int theta = 0; theta < 3; ++theta)
                    acc[3 * m + theta] = uint64_t(cm0_cube(plane_at(T_X + 3 * m + theta, i, j, a.pitch), a.wt[theta],
                                                           thr, theta, a.rcub[theta], a.scub[theta]));
            } else {
                int64_t thr = int64_t(0);
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) thr += int64_t(plane_at(T_SF + m, rows[r], cols[c], a.pitch));
                thr = thr - int64_t(plane_at(T_SF + m, i, j, a.pitch)) + int64_t(plane_at(T_CENTRE + m, i, j, a.pitch));
                for (int theta = 0; theta < 3; ++theta) {
                    const int32_t x = plane_at(T_X + 3 * m + theta, i, j, a.pitch);
                    const int32_t e = vec ? cm_excess_vector(x, int64_t(int32_t(a.wq[theta])), thr)
                                          : cm_excess_scalar(x, int64_t(a.wq[theta]), thr);
                    acc[3 * m + theta] = uint64_t(cm_cube(e, a.rcub[0], a.scub[0]));
                }
            }
        }
    }
    for (int k = 0; k < 6; ++k) {
        const uint64_t total = block_sum(acc[k]);
        if (t == 0) U64s(partial_at(L, 1 + k / 3, k % 3, i, int(gl_WorkGroupID.x), a.h, a.blocks)).v[0] = total;
    }
}

/// Row sum v of `quantity` (0 den, 1 num, 2 aim) rounded and shifted as the CPU does before
/// adding the rows.
uint64_t rounded_row_sum(LevelParams a, int quantity, uint64_t v) {
    return quantity == 0 ? den_row_rounded(v, a.den_round, a.den_shift)
                         : uint64_t(cm_row_rounded(int64_t(v), a.cm_round, a.cm_shift));
}

/// Sum b = level * 9 + quantity * 3 + orientation of the frame (workgroup b): each row's
/// partials added, rounded and shifted, over the rows the CPU visits (planted kReductionOrder:
/// the rows added first, the total rounded and shifted once).
void finalize() {
    const int b = int(gl_WorkGroupID.x);
    const int L = b / 9, quantity = (b / 3) % 3, theta = b % 3;
    const LevelParams a = Params(pc.params).l[L];
    const bool on = quantity == 0 ? a.has_den != 0 : (quantity == 1 ? a.has_num != 0 : a.has_aim != 0);
    uint64_t acc = uint64_t(0);
    if (on) {
        const int begin = quantity == 0 ? a.den_begin : a.cm_begin;
        const int end = quantity == 0 ? a.den_end : a.cm_end;
        const int blocks = quantity == 0 ? a.blocks : a.cm_blocks;
        for (int r = begin + int(gl_LocalInvocationID.x); r < end; r += VMAFX_GROUP) {
            const uint64_t row = partial_at(L, quantity, theta, r, 0, a.h, a.blocks);
            uint64_t v = uint64_t(0);
            for (int g = 0; g < blocks; ++g) v += U64s(row).v[g];
            acc += pc.plant == 3 ? v : rounded_row_sum(a, quantity, v);
        }
    }
    const uint64_t total = block_sum(acc);
    if (gl_LocalInvocationID.x == 0u)
        U64s(U64s(pc.table).v[T_SUMS]).v[b] = pc.plant == 3 && on ? rounded_row_sum(a, quantity, total) : total;
}

void main() {
    if (pc.pass == 0) {
        level0();
    } else if (pc.pass == 1) {
        level();
    } else if (pc.pass == 2) {
        contrast_masking();
    } else {
        finalize();
    }
}
