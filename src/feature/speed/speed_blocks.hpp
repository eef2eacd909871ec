// Steps 4-5 of SpEED's core (speed.hpp) after the covariance matrix, as host/device functions:
// the CPU reference (speed_core.cpp's est_params and speed_score) calls them, and the CUDA twins'
// kernels (speed_cuda.cuh) run the very same code, so the device's entropies and score are the
// CPU's bit for bit. No CUDA header: host code includes it.
//  - eigenvalues: the symmetric eigenvalues of the 25 x 25 float covariance matrix (Householder
//    tridiagonalisation, gsl_linalg_symmtd_decomp as upstream adapted it, split over a device
//    block as qr_factor below; then implicit symmetric QR steps, gsl_eigen_symm, serial: the
//    block's lead thread);
//  - qr_factor: the Householder QR decomposition of that matrix (upstream
//    matrix_qr_decomposition), written over "for each element" loops (VMAFX_SPEED_FOR, mat_mul)
//    whose elements are independent: the host runs them in order, a device block spreads them
//    over its threads (VMAFX_SPEED_SYNC between them); each element is the CPU's own sequence of
//    float operations (a product sum in k order from 0), so the spread changes no bit;
//  - per block of 5 x 5 samples (one device thread each; the host takes all blocks of a picture
//    at once where upstream's loops do): its samples (block_samples), the solution of K X = Y by
//    back substitution (solve_blocks), its variance (block_variance) and entropy
//    (block_entropy), its term of the score (block_term), and the score (blocks_score).
// Every float step is upstream's C's (float stays float; sqrt and log2 are C's double functions
// called on floats); nothing is contracted (-ffp-contract=off, CUDA --fmad=false), division and
// sqrt are IEEE on both sides (CUDA -prec-div=true -prec-sqrt=true; double division and sqrt are
// always IEEE there). log2 is vmafx's own (libm_log2.hpp, glibc 2.36's bits: log2_own), through the
// tables the caller passes (the host's, or the device copy). Upstream: libvmaf 3.2.0
// src/feature/speed.c (est_params, speed_extract_score and the matrix helpers).
#pragma once

#include <cmath>
#include <cstddef>

#include "base/host_device.hpp"
#include "base/libm.hpp"
#include "base/libm_log2.hpp"

// The "for each element" loops of qr_factor: every element on the host, in order; on the
// device each thread of the block its share (the block runs the function together).
#if defined(__CUDA_ARCH__)
#define VMAFX_SPEED_FOR(e, n) for (int e = static_cast<int>(threadIdx.x); e < (n); e += static_cast<int>(blockDim.x))
#define VMAFX_SPEED_SYNC() __syncthreads()
#define VMAFX_SPEED_LEAD (threadIdx.x == 0)
#else
#define VMAFX_SPEED_FOR(e, n) for (int e = 0; e < (n); ++e)
#define VMAFX_SPEED_SYNC() ((void)0)
#define VMAFX_SPEED_LEAD true
#endif

namespace vmafx::speed::blocks {

inline constexpr int kSide = 5;                  ///< DEFAULT_BLOCK_SIZE
inline constexpr int kN = kSide * kSide;         ///< elements_in_block: the matrices' order
inline constexpr int kMatrix = kN * kN;          ///< floats of one 25 x 25 matrix
inline constexpr double kEps = 1e-6;             ///< EIGENVALUE_EPS
inline constexpr int kMaxIters = 500;            ///< EIGENVALUE_MAX_ITERS

/// |x| in float (the CPU's std::fabs of a float).
VMAFX_HOST_DEVICE inline float absf(float x) {
#if defined(__CUDA_ARCH__)
    return fabsf(x);
#else
    return std::fabs(x);
#endif
}

/// C's double sqrt (IEEE, correctly rounded on both sides).
VMAFX_HOST_DEVICE inline double dsqrt(double x) {
#if defined(__CUDA_ARCH__)
    return ::sqrt(x);
#else
    return std::sqrt(x);
#endif
}

VMAFX_HOST_DEVICE inline int sign_of(float x) { return x >= 0 ? 1 : -1; }

VMAFX_HOST_DEVICE inline float hypot_f(float x, float y) { return static_cast<float>(dsqrt(x * x + y * y)); }

/// float(sqrt(the float sum of x[i]^2, i in order from 0)).
VMAFX_HOST_DEVICE inline float vector_norm(const float* x, int n) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return static_cast<float>(dsqrt(s));
}

// --- eigenvalues ----------------------------------------------------------------------------

/// Scratch of eigenvalues() (on the device: the block's shared memory), and the values its
/// lead thread hands the block.
struct EigenWork {
    float a[kMatrix];
    float d[kN], sd[kN], v[kN], x[kN];
    float tau, s, beta, alpha;
    int divide;
};

/// The Householder reflection of column `col` of a (n x n) below row `start`: its tau into w.tau;
/// a's column scaled by 1/s below `start` and beta at `start` (where s != 0). Run by one host
/// thread or by every thread of a device block (the lead computes tau, s and beta serially; the
/// scaling is split by rows).
VMAFX_HOST_DEVICE inline void householder(float* a, int col, int start, int n, EigenWork& w) {
    if (VMAFX_SPEED_LEAD) {
        w.tau = 0.0f;
        w.divide = 0;
        if (n - start != 1) {
            float xnorm = 0;
            for (int i = start + 1; i < n; ++i) xnorm += a[i * n + col] * a[i * n + col];
            xnorm = static_cast<float>(dsqrt(xnorm));
            if (xnorm != 0.0f) {
                const float alpha = a[start * n + col];
                const float beta = static_cast<float>(-sign_of(alpha)) * hypot_f(alpha, xnorm);
                w.tau = (beta - alpha) / beta;
                w.s = alpha - beta;
                w.beta = beta;
                w.divide = w.s != 0.0f ? 1 : 0;
            }
        }
    }
    VMAFX_SPEED_SYNC();
    if (w.divide != 0) {
        VMAFX_SPEED_FOR(k, n - start) a[(start + k) * n + col] /= w.s;
        VMAFX_SPEED_SYNC();
        if (VMAFX_SPEED_LEAD) a[start * n + col] = w.beta;
        VMAFX_SPEED_SYNC();
    }
}

/// w.a (25 x 25, overwritten) to tridiagonal form: its diagonal w.d, its subdiagonal w.sd. Run
/// by one host thread or by every thread of a device block: the serial steps (the norms, the
/// dot product) by the lead, the loops over rows and elements split (each element's own
/// sequence of operations as in the serial loops).
VMAFX_HOST_DEVICE inline void tridiagonalise(EigenWork& w) {
    const int n = kN;
    float* a = w.a;
    float* v = w.v;
    float* x = w.x;
    for (int i = 0; i < n - 2; ++i) {
        householder(a, i, i + 1, n, w);
        const float tau = w.tau;
        VMAFX_SPEED_FOR(k, n - (i + 1)) v[i + 1 + k] = a[(i + 1 + k) * n + i];
        VMAFX_SPEED_SYNC();
        if (tau != 0.0f) {
            const int s = i + 1;
            if (VMAFX_SPEED_LEAD) {
                a[(i + 1) * n + i] = v[i + 1];
                v[i + 1] = 1.0f;
            }
            VMAFX_SPEED_SYNC();
            VMAFX_SPEED_FOR(k, n - s) {
                const int r = s + k;
                float xr = 0.0f;
                for (int c = s; c < n; ++c) xr += tau * a[r * n + c] * v[c];
                x[r] = xr;
            }
            VMAFX_SPEED_SYNC();
            if (VMAFX_SPEED_LEAD) {
                float xv = 0;
                for (int r = s; r < n; ++r) xv += x[r] * v[r];
                w.alpha = static_cast<float>(-0.5 * tau * xv);
            }
            VMAFX_SPEED_SYNC();
            VMAFX_SPEED_FOR(k, n - s) x[s + k] += w.alpha * v[s + k];
            VMAFX_SPEED_SYNC();
            VMAFX_SPEED_FOR(e, (n - s) * (n - s)) {
                const int r = s + e / (n - s), c = s + e % (n - s);
                a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
            }
            VMAFX_SPEED_SYNC();
        }
    }
    VMAFX_SPEED_FOR(i, n) w.d[i] = a[i * n + i];
    VMAFX_SPEED_FOR(i, n - 1) w.sd[i] = a[(i + 1) * n + i];
    VMAFX_SPEED_SYNC();
}

VMAFX_HOST_DEVICE inline void chop_small(float* d, float* sd, int n) {
    for (int i = 0; i < n - 1; ++i)
        if (absf(sd[i]) < kEps * (absf(d[i]) + absf(d[i + 1]))) sd[i] = 0.0f;
}

VMAFX_HOST_DEVICE inline float trailing_eigenvalue(const float* d, const float* sd, int n) {
    const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    const float dt = static_cast<float>((ta - tb) / 2.0);
    if (dt > 0) return tb - tab * (tab / (dt + hypot_f(dt, tab)));
    if (dt == 0) return tb - absf(tab);
    return tb + tab * (tab / (-dt + hypot_f(dt, tab)));
}

VMAFX_HOST_DEVICE inline void givens(float a, float b, float& c, float& s) {
    if (b == 0) {
        c = 1;
        s = 0;
    } else if (absf(b) > absf(a)) {
        const float t = -a / b;
        const float s1 = static_cast<float>(1.0 / dsqrt(1 + t * t));
        s = s1;
        c = s1 * t;
    } else {
        const float t = -b / a;
        const float c1 = static_cast<float>(1.0 / dsqrt(1 + t * t));
        c = c1;
        s = c1 * t;
    }
}

VMAFX_HOST_DEVICE inline void qr_step(float* d, float* sd, int n) {
    float mu = trailing_eigenvalue(d, sd, n);
    if (kEps * absf(mu) > absf(d[0]) + absf(sd[0])) mu = 0;
    float x = d[0] - mu, z = sd[0];
    float bk = 0, zk = 0;
    float ap = d[0], bp = sd[0], aq = d[1];
    if (n == 2) {
        float c, s;
        givens(x, z, c, s);
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        d[0] = ap1;
        sd[0] = bp1;
        d[1] = aq1;
        return;
    }
    float bq = sd[1];
    for (int k = 0; k < n - 1; ++k) {
        float c, s;
        givens(x, z, c, s);
        const float bk1 = c * bk - s * zk;
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float zp1 = -s * bq;
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        const float bq1 = c * bq;
        const float ak = ap1;
        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if (k < n - 2) aq = d[k + 2];
        if (k < n - 3) bq = sd[k + 2];
        d[k] = ak;
        if (k > 0) sd[k - 1] = bk1;
        if (k < n - 2) sd[k + 1] = bp;
        x = bk;
        z = zk;
    }
    d[n - 1] = ap;
    sd[n - 2] = bk;
}

/// The eigenvalues of the symmetric 25 x 25 float matrix m (row major) into out[0..24], in the
/// order the iteration leaves them (not sorted), at most kMaxIters QR steps. Run by one host
/// thread or by every thread of a device block (the tridiagonalisation split, the QR steps by
/// the lead alone, which writes out).
VMAFX_HOST_DEVICE inline void eigenvalues(const float* m, float* out, EigenWork& w) {
    const int n = kN;
    VMAFX_SPEED_FOR(i, kMatrix) w.a[i] = m[i];
    VMAFX_SPEED_FOR(i, kN) w.d[i] = w.sd[i] = w.v[i] = w.x[i] = 0.0f;
    VMAFX_SPEED_SYNC();
    tridiagonalise(w);
    if (!VMAFX_SPEED_LEAD) return;
    float* d = w.d;
    float* sd = w.sd;
    chop_small(d, sd, n);
    int b = n - 1, iter = 0;
    while (b > 0 && iter < kMaxIters) {
        if (sd[b - 1] == 0.0f) {
            --b;
            continue;
        }
        int a0 = b - 1;
        while (a0 > 0 && sd[a0 - 1] != 0.0f) --a0;
        qr_step(d + a0, sd + a0, b - a0 + 1);
        chop_small(d + a0, sd + a0, b - a0 + 1);
        ++iter;
    }
    for (int i = 0; i < n; ++i) out[i] = d[i];
}

/// Whether the eigenvalues make K regular for upstream: none below kEps.
VMAFX_HOST_DEVICE inline bool eigenvalues_regular(const float* eig) {
    bool regular = true;
    for (int k = 0; k < kN; ++k)
        if (eig[k] < kEps) regular = false;
    return regular;
}

// --- the QR decomposition and the solve -----------------------------------------------------

/// Rows [i0, i1) x columns [j0, j1) of dst = x y (25 x 25 floats each, row major), as upstream's
/// matrix_mult forms them: each element the float sum from 0 of x[i][k] y[k][j] over k in order
/// (its i-k-j loops, which give every element this very sequence whatever the part).
VMAFX_HOST_DEVICE inline void mat_mul_part(float* dst, const float* x, const float* y, int i0, int i1, int j0, int j1) {
    for (int i = i0; i < i1; ++i) {
        for (int j = j0; j < j1; ++j) dst[i * kN + j] = 0.0f;
        for (int k = 0; k < kN; ++k)
            for (int j = j0; j < j1; ++j) dst[i * kN + j] += x[i * kN + k] * y[k * kN + j];
    }
}

/// dst = x y (mat_mul_part): on the host the whole matrix at once; on the device each thread of
/// the block its share of the elements (one element a part).
VMAFX_HOST_DEVICE inline void mat_mul(float* dst, const float* x, const float* y) {
#if defined(__CUDA_ARCH__)
    for (int e = static_cast<int>(threadIdx.x); e < kMatrix; e += static_cast<int>(blockDim.x))
        mat_mul_part(dst, x, y, e / kN, e / kN + 1, e % kN, e % kN + 1);
#else
    mat_mul_part(dst, x, y, 0, kN, 0, kN);
#endif
}

/// Scratch of qr_factor() (on the device: the block's shared memory).
struct QrWork {
    float tz[kMatrix], tq[kMatrix], prod[kMatrix];
    float vec[kN];
    float len;
};

/// The Householder QR decomposition of a (25 x 25 floats): q = the product of the reflections
/// (so that q a = r; upstream's Q transposed, which its solve transposes back) and r, each
/// kMatrix floats. Run by one host thread, or by every thread of one device block at once (a, q,
/// r and w shared by the block; VMAFX_SPEED_FOR, VMAFX_SPEED_SYNC).
VMAFX_HOST_DEVICE inline void qr_factor(const float* a, float* q, float* r, QrWork& w) {
    const int n = kN;
    VMAFX_SPEED_FOR(e, kMatrix) {
        w.tz[e] = a[e];
        q[e] = e / n == e % n ? 1.0f : 0.0f;
    }
    VMAFX_SPEED_SYNC();
    for (int k = 0; k < n - 1; ++k) {
        VMAFX_SPEED_FOR(e, kMatrix) {
            const int i = e / n, j = e % n;
            if (i < k || j < k) w.tz[e] = i == j ? 1.0f : 0.0f;
        }
        VMAFX_SPEED_SYNC();
        VMAFX_SPEED_FOR(i, n) w.vec[i] = w.tz[i * n + k];
        VMAFX_SPEED_SYNC();
        if (VMAFX_SPEED_LEAD) {
            const float norm = vector_norm(w.vec, n);
            const int sign = sign_of(a[k * n + k]);
            w.vec[k] += static_cast<float>(sign) * norm;
            w.len = vector_norm(w.vec, n);
        }
        VMAFX_SPEED_SYNC();
        VMAFX_SPEED_FOR(i, n) w.vec[i] = w.vec[i] / w.len;
        VMAFX_SPEED_SYNC();
        VMAFX_SPEED_FOR(e, kMatrix) {
            const int i = e / n, j = e % n;
            w.tq[e] = -2.0f * w.vec[i] * w.vec[j];
            if (i == j) w.tq[e] += 1;
        }
        VMAFX_SPEED_SYNC();
        mat_mul(w.prod, w.tq, w.tz);
        VMAFX_SPEED_SYNC();
        VMAFX_SPEED_FOR(e, kMatrix) w.tz[e] = w.prod[e];
        VMAFX_SPEED_SYNC();
        mat_mul(w.prod, w.tq, q);
        VMAFX_SPEED_SYNC();
        VMAFX_SPEED_FOR(e, kMatrix) q[e] = w.prod[e];
        VMAFX_SPEED_SYNC();
    }
    mat_mul(r, q, a);
    VMAFX_SPEED_SYNC();
}

/// Whether upstream's back substitution accepts r: no diagonal element of magnitude below kEps
/// (else its solve fails, and X is 0).
VMAFX_HOST_DEVICE inline bool solvable(const float* r) {
    for (int i = 0; i < kN; ++i)
        if (absf(r[i * kN + i]) < kEps) return false;
    return true;
}

/// The solutions x of K x = y for `cols` blocks at once (y, x: 25 rows of `cols` floats, block j
/// in column j; on the device one block, cols 1) from qr_factor's q and r (r solvable()): rhs =
/// q y (mat_mul_part's sums), then back substitution from the last row, each block's term rhs[i]
/// minus x[k] r[i][k] for k > i in order, divided by r[i][i] (upstream's solve, whose loops give
/// each block this sequence). `rhs`: scratch of 25 cols floats.
VMAFX_HOST_DEVICE inline void solve_blocks(const float* q, const float* r, const float* y, float* x, float* rhs,
                                           int cols) {
    const int n = kN;
    for (int i = 0; i < n; ++i) {
        float* row = rhs + static_cast<std::ptrdiff_t>(i) * cols;
        for (int j = 0; j < cols; ++j) row[j] = 0.0f;
        for (int k = 0; k < n; ++k) {
            const float* yk = y + static_cast<std::ptrdiff_t>(k) * cols;
            for (int j = 0; j < cols; ++j) row[j] += q[i * n + k] * yk[j];
        }
    }
    for (int i = n - 1; i >= 0; --i) {
        const float den = r[i * n + i];
        float* term = rhs + static_cast<std::ptrdiff_t>(i) * cols;
        for (int k = i + 1; k < n; ++k) {
            const float* xk = x + static_cast<std::ptrdiff_t>(k) * cols;
            for (int j = 0; j < cols; ++j) term[j] -= xk[j] * r[i * n + k];
        }
        float* xi = x + static_cast<std::ptrdiff_t>(i) * cols;
        for (int j = 0; j < cols; ++j) xi[j] = term[j] / den;
    }
}

/// vmafx's own log2 (glibc 2.36's bits): on the device libm::log2_with on `t` (the device's copy
/// of libm::log2_tables()); on the host libm::log2, which is log2_with on the host's tables behind
/// an entry compiled for the processor's fused multiply-add (the same bits, faster than inlining
/// it here, where std::fma may be a library call).
VMAFX_HOST_DEVICE inline double log2_own(double x, const libm::Log2Tables& t) {
#if defined(__CUDA_ARCH__)
    return libm::log2_with(x, t);
#else
    (void)t;
    return libm::log2(x);
#endif
}

// --- per block ------------------------------------------------------------------------------

/// The 25 samples of block b (of blocks_horizontal a row) of a band-pass picture (rows `stride`
/// floats apart), position (si, sj) of the block at y[(si * 5 + sj) * pitch].
VMAFX_HOST_DEVICE inline void block_samples(const float* data, std::ptrdiff_t stride, int blocks_horizontal, int b,
                                            float* y, std::ptrdiff_t pitch) {
    const int bx = b % blocks_horizontal, by = b / blocks_horizontal;
    for (int si = 0; si < kSide; ++si)
        for (int sj = 0; sj < kSide; ++sj)
            y[(si * kSide + sj) * pitch] = data[static_cast<std::ptrdiff_t>(by * kSide + si) * stride + bx * kSide + sj];
}

/// The block's variance S from its solution x and samples y (element k at [k * pitch]): the float
/// sum, from the first term, of (x[k] y[k]) / 25 over k in order (x all 0 when K is singular).
VMAFX_HOST_DEVICE inline float block_variance(const float* x, const float* y, std::ptrdiff_t pitch) {
    const float den = static_cast<float>(kN);
    float s = (x[0] * y[0]) / den;
    for (int k = 1; k < kN; ++k) s += (x[k * pitch] * y[k * pitch]) / den;
    return s;
}

/// The block's entropy: from 0, for each eigenvalue L (negative ones as 0) in order, float(E +
/// (log2(L S + sigma_nn) + log2_2pi_e)); log2_2pi_e is the caller's log2(2 pi e) (the host's).
VMAFX_HOST_DEVICE inline float block_entropy(const float* eig, float s, float sigma_nn, double log2_2pi_e,
                                             const libm::Log2Tables& t) {
    float e = 0.0f;
    for (int k = 0; k < kN; ++k) {
        const float l = eig[k] < 0 ? 0 : eig[k];
        e = static_cast<float>(e + (log2_own(l * s + sigma_nn, t) + log2_2pi_e));
    }
    return e;
}

/// The block's term of the score, |E_ref w_ref - E_dis w_dis| with speed_weight_var_mode
/// `mode`'s weights (0..6), from the entropies er, ed and variances vr, vd; +0 where both
/// entropies are below `base` (the noise floor's; upstream skips the block: adding +0 to the
/// score, a float sum from +0 of non-negative terms, changes no bit).
VMAFX_HOST_DEVICE inline float block_term(float er, float ed, float vr, float vd, float base, int mode,
                                          const libm::Log2Tables& t) {
    if (er < base && ed < base) return 0.0f;
    float sr = 0.0f, sd = 0.0f;
    switch (mode) {
    case 0:
        sr = static_cast<float>(er * log2_own(1 + vr, t));
        sd = static_cast<float>(ed * log2_own(1 + vd, t));
        break;
    case 1:
        sr = static_cast<float>(er * log2_own(1 + vr, t));
        sd = static_cast<float>(ed * log2_own(1 + vr, t));
        break;
    case 2:
        sr = static_cast<float>(er * log2_own(1 + vd, t));
        sd = static_cast<float>(ed * log2_own(1 + vd, t));
        break;
    case 3:
        sr = static_cast<float>(er * log2_own(1 + (vr + vd) / 2.0, t));
        sd = static_cast<float>(ed * log2_own(1 + (vr + vd) / 2.0, t));
        break;
    case 4:
        sr = static_cast<float>(er * log2_own(1 + vr, t));
        sd = static_cast<float>(ed * log2_own(1 + (vr + vd) / 2.0, t));
        break;
    case 5:
        sr = static_cast<float>(er * log2_own(1 + vr, t));
        sd = static_cast<float>(ed * log2_own(1 + (0.75 * vr + 0.25 * vd), t));
        break;
    default:  // 6 (the option's range ends there)
        sr = static_cast<float>(er * log2_own(1 + vr, t));
        sd = static_cast<float>(ed * log2_own(1 + (0.25 * vr + 0.75 * vd), t));
        break;
    }
    return absf(sr - sd);
}

/// The score of a picture pair from its blocks' terms: their float sum from 0 in the blocks'
/// order, divided by the float count nb.
VMAFX_HOST_DEVICE inline float blocks_score(const float* terms, int nb) {
    float score = 0;
    for (int b = 0; b < nb; ++b) score += terms[b];
    return score / static_cast<float>(nb);
}

/// A pair's score and whether either picture's K was singular (speed::score_band_pass).
struct PairScore {
    float score;
    int singular;
};

/// speed::score_band_pass's end: singular when either picture's K is (ok_ref, ok_dis false);
/// score 0 when exactly one is, else blocks_score(terms, nb).
VMAFX_HOST_DEVICE inline PairScore pair_score(bool ok_ref, bool ok_dis, const float* terms, int nb) {
    PairScore out;
    out.singular = !ok_ref || !ok_dis ? 1 : 0;
    out.score = ok_ref != ok_dis ? 0.0f : blocks_score(terms, nb);
    return out;
}

}  // namespace vmafx::speed::blocks
