// SpEED's steps 4-5 after the covariance matrix (speed_blocks.hpp), which the CPU reference
// (speed_core.cpp) and the CUDA twins' kernels (speed_cuda.cuh: factor_kernel, terms_kernel,
// score_kernel) share, proven on the host:
//  - the CPU's score_band_pass equals, bit for bit, the code it had before it called
//    speed_blocks.hpp (kept here as `legacy`, vmafx's own earlier speed_core.cpp) on random and
//    degenerate pictures and matrices (singular, indefinite, zero, constant), every
//    speed_weight_var_mode and several sigma_nn and nn_floor;
//  - the kernels' composition (per picture the factors, per block one thread's work with one
//    column, per pair the score), walked here as the kernels' threads walk it, equals the CPU;
//  - mat_mul_part one element at a time (the device's split) equals the whole product (the host's);
//  - log2_with on a copy of the tables (the device's upload) equals libm::log2.
// Runs without a GPU (the kernels add only their thread indexing).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "base/libm.hpp"
#include "base/libm_log2.hpp"
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_blocks.hpp"

namespace vmafx {
namespace {

// --- the CPU's steps 4-5 as speed_core.cpp had them before speed_blocks.hpp -----------------
namespace legacy {

using speed::Geometry;
using speed::Params;

constexpr int kBlock = 5;
constexpr int kElements = kBlock * kBlock;
constexpr double kEps = 1e-6;
constexpr int kMaxIters = 500;

inline double dsqrt(double x) { return std::sqrt(x); }
inline double dlog2(double x) { return libm::log2(x); }

// --- speed.c: small dense linear algebra (25 x 25, float) ----------------------------------

/// A square float matrix (size x size, row major) over caller-owned memory.
struct Mat {
    int n;
    float* d;
    float& at(int i, int j) { return d[i * n + j]; }
    float at(int i, int j) const { return d[i * n + j]; }
};

void mat_copy(Mat& dst, const Mat& src) { std::memcpy(dst.d, src.d, sizeof(float) * src.n * src.n); }

void mat_transpose(Mat& m) {
    for (int i = 0; i < m.n; ++i)
        for (int j = 0; j < i; ++j) std::swap(m.at(i, j), m.at(j, i));
}

/// dst (rows x cols) = x (rows x inner) * y (inner x cols), summed over k in order.
void mat_mul(float* dst, const float* x, const float* y, int rows, int inner, int cols) {
    std::fill(dst, dst + static_cast<std::size_t>(rows) * cols, 0.0f);
    for (int i = 0; i < rows; ++i)
        for (int k = 0; k < inner; ++k)
            for (int j = 0; j < cols; ++j)
                dst[static_cast<std::size_t>(i) * cols + j] +=
                    x[static_cast<std::size_t>(i) * inner + k] * y[static_cast<std::size_t>(k) * cols + j];
}

int sign_of(float x) { return x >= 0 ? 1 : -1; }

float hypot_f(float x, float y) { return static_cast<float>(dsqrt(x * x + y * y)); }

float vector_norm(const float* x, int n) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return static_cast<float>(dsqrt(s));
}

// Householder QR of A (n x n): Q, R with A = Q R (upstream matrix_qr_decomposition).
void qr_decompose(const Mat& a, Mat& q, Mat& r, Mat& tq, Mat& tz) {
    const int n = a.n;
    float* vec = r.d;  // R's memory doubles as the vector, as upstream
    mat_copy(tz, a);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) q.at(i, j) = i == j ? 1.0f : 0.0f;
    for (int k = 0; k < n - 1; ++k) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (i < k || j < k) tz.at(i, j) = i == j ? 1.0f : 0.0f;
        for (int i = 0; i < n; ++i) vec[i] = tz.at(i, k);
        const float norm = vector_norm(vec, n);
        const int sign = sign_of(a.at(k, k));
        vec[k] += static_cast<float>(sign) * norm;
        const float len = vector_norm(vec, n);
        for (int i = 0; i < n; ++i) vec[i] = vec[i] / len;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) tq.at(i, j) = -2.0f * vec[i] * vec[j];
        for (int i = 0; i < n; ++i) tq.at(i, i) += 1;
        mat_mul(r.d, tq.d, tz.d, n, n, n);
        mat_copy(tz, r);
        mat_mul(r.d, tq.d, q.d, n, n, n);
        mat_copy(q, r);
    }
    mat_mul(r.d, q.d, a.d, n, n, n);
    mat_transpose(q);
}

/// Solves A X = B (A n x n, B n x cols) into x; false when R has a diagonal below 1e-6.
bool solve(const float* a_data, int n, const float* b, int cols, float* x) {
    std::vector<float> buf(static_cast<std::size_t>(5 * n * n) + static_cast<std::size_t>(n) * cols);
    Mat a{n, buf.data()}, q{n, a.d + n * n}, r{n, q.d + n * n}, t1{n, r.d + n * n}, t2{n, t1.d + n * n};
    float* rhs = t2.d + n * n;
    std::memcpy(a.d, a_data, sizeof(float) * n * n);
    qr_decompose(a, q, r, t1, t2);
    mat_transpose(q);
    mat_mul(rhs, q.d, b, n, n, cols);
    for (int i = n - 1; i >= 0; --i) {
        const float den = r.at(i, i);
        if (std::fabs(den) < kEps) return false;
        for (int j = 0; j < cols; ++j) {
            float term = rhs[static_cast<std::size_t>(i) * cols + j];
            for (int k = i + 1; k < n; ++k) term -= x[static_cast<std::size_t>(k) * cols + j] * r.at(i, k);
            x[static_cast<std::size_t>(i) * cols + j] = term / den;
        }
    }
    return true;
}

// Symmetric eigenvalues: Householder tridiagonalisation (gsl_linalg_symmtd_decomp as
// upstream adapted it) and implicit symmetric QR steps (gsl_eigen_symm).
float householder(float* a, int col, int start, int n) {
    if (n - start == 1) return 0.0f;
    float xnorm = 0;
    for (int i = start + 1; i < n; ++i) xnorm += a[i * n + col] * a[i * n + col];
    xnorm = static_cast<float>(dsqrt(xnorm));
    if (xnorm == 0.0f) return 0.0f;
    const float alpha = a[start * n + col];
    const float beta = static_cast<float>(-sign_of(alpha)) * hypot_f(alpha, xnorm);
    const float tau = (beta - alpha) / beta;
    const float s = alpha - beta;
    if (s != 0.0f) {
        for (int i = start; i < n; ++i) a[i * n + col] /= s;
        a[start * n + col] = beta;
    }
    return tau;
}

void tridiagonalise(float* a, int n, float* d, float* sd) {
    std::vector<float> v(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n));
    for (int i = 0; i < n - 2; ++i) {
        const float tau = householder(a, i, i + 1, n);
        for (int j = i + 1; j < n; ++j) v[j] = a[j * n + i];
        if (tau != 0.0f) {
            a[(i + 1) * n + i] = v[i + 1];
            v[i + 1] = 1.0f;
            const int s = i + 1;
            for (int r = s; r < n; ++r) {
                x[r] = 0.0f;
                for (int c = s; c < n; ++c) x[r] += tau * a[r * n + c] * v[c];
            }
            float xv = 0;
            for (int r = s; r < n; ++r) xv += x[r] * v[r];
            const float alpha = static_cast<float>(-0.5 * tau * xv);
            for (int r = s; r < n; ++r) x[r] += alpha * v[r];
            for (int r = s; r < n; ++r)
                for (int c = s; c < n; ++c) a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
        }
    }
    for (int i = 0; i < n; ++i) d[i] = a[i * n + i];
    for (int i = 0; i < n - 1; ++i) sd[i] = a[(i + 1) * n + i];
}

void chop_small(float* d, float* sd, int n) {
    for (int i = 0; i < n - 1; ++i)
        if (std::fabs(sd[i]) < kEps * (std::fabs(d[i]) + std::fabs(d[i + 1]))) sd[i] = 0.0f;
}

float trailing_eigenvalue(const float* d, const float* sd, int n) {
    const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    const float dt = static_cast<float>((ta - tb) / 2.0);
    if (dt > 0) return tb - tab * (tab / (dt + hypot_f(dt, tab)));
    if (dt == 0) return tb - std::fabs(tab);
    return tb + tab * (tab / (-dt + hypot_f(dt, tab)));
}

void givens(float a, float b, float& c, float& s) {
    if (b == 0) {
        c = 1;
        s = 0;
    } else if (std::fabs(b) > std::fabs(a)) {
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

void qr_step(float* d, float* sd, int n) {
    float mu = trailing_eigenvalue(d, sd, n);
    if (kEps * std::fabs(mu) > std::fabs(d[0]) + std::fabs(sd[0])) mu = 0;
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

void eigenvalues(const float* m, int n, float* out) {
    std::vector<float> a(m, m + n * n), d(static_cast<std::size_t>(n)), sd(static_cast<std::size_t>(n));
    if (n == 1) {
        out[0] = a[0];
        return;
    }
    tridiagonalise(a.data(), n, d.data(), sd.data());
    chop_small(d.data(), sd.data(), n);
    int b = n - 1, iter = 0;
    while (b > 0 && iter < kMaxIters) {
        if (sd[b - 1] == 0.0f) {
            --b;
            continue;
        }
        int a0 = b - 1;
        while (a0 > 0 && sd[a0 - 1] != 0.0f) --a0;
        qr_step(d.data() + a0, sd.data() + a0, b - a0 + 1);
        chop_small(d.data() + a0, sd.data() + a0, b - a0 + 1);
        ++iter;
    }
    for (int i = 0; i < n; ++i) out[i] = d[i];
}

struct Stats {
    std::vector<float> entropies, variances;
};

/// est_params for one band-pass picture whose covariance matrix (step 1) is `cov`; false when K
/// is singular (then X = 0).
bool est_params(const Geometry& g, const float* data, std::ptrdiff_t stride, const float* cov, float sigma_nn,
                Stats& out) {
    const int nb = g.blocks;
    // Step 2: eigenvalues.
    float eig[kElements];
    eigenvalues(cov, kElements, eig);
    // Step 3: the blocks' samples, one row per position in the block.
    std::vector<float> y(static_cast<std::size_t>(kElements) * nb);
    for (int si = 0; si < kBlock; ++si)
        for (int sj = 0; sj < kBlock; ++sj)
            for (int i = si; i < g.truncated_height; i += kBlock)
                for (int j = sj; j < g.truncated_width; j += kBlock) {
                    const int row = si * kBlock + sj;
                    const int col = ((i - si) / kBlock) * g.blocks_horizontal + (j - sj) / kBlock;
                    y[static_cast<std::size_t>(row) * nb + col] = data[static_cast<std::ptrdiff_t>(i) * stride + j];
                }
    // Step 4: K X = Y.
    std::vector<float> x(static_cast<std::size_t>(kElements) * nb, 0.0f);
    bool regular = true;
    for (const float e : eig)
        if (e < kEps) regular = false;
    bool ok = regular && solve(cov, kElements, y.data(), nb, x.data());
    if (!ok) std::fill(x.begin(), x.end(), 0.0f);
    // Steps 5, 6: S = column sums of X * Y / 25.
    const float den = static_cast<float>(kElements);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = (x[k] * y[k]) / den;
    for (int i = 1; i < kElements; ++i)
        for (int j = 0; j < nb; ++j) x[j] += x[static_cast<std::size_t>(i) * nb + j];
    // Steps 8, 9: the entropies.
    out.entropies.assign(static_cast<std::size_t>(nb), 0.0f);
    for (int k = 0; k < kElements; ++k) {
        const float l = eig[k] < 0 ? 0 : eig[k];
        for (int b = 0; b < nb; ++b)
            out.entropies[b] = static_cast<float>(out.entropies[b] +
                                                  (dlog2(l * x[b] + sigma_nn) + std::log2(2 * M_PI * M_E)));
    }
    out.variances.assign(x.begin(), x.begin() + nb);
    return ok;
}

float speed_score(const Geometry& g, const Stats& ref, const Stats& dis, float sigma_nn, float nn_floor, int mode) {
    float score = 0;
    const float base = static_cast<float>(kElements * (dlog2((1 + nn_floor) * sigma_nn) + std::log2(2 * M_PI * M_E)));
    for (int i = 0; i < g.blocks; ++i) {
        const float er = ref.entropies[i], ed = dis.entropies[i];
        if (er < base && ed < base) continue;
        const float vr = ref.variances[i], vd = dis.variances[i];
        float sr = 0.0f, sd = 0.0f;
        switch (mode) {
        case 0:
            sr = static_cast<float>(er * dlog2(1 + vr));
            sd = static_cast<float>(ed * dlog2(1 + vd));
            break;
        case 1:
            sr = static_cast<float>(er * dlog2(1 + vr));
            sd = static_cast<float>(ed * dlog2(1 + vr));
            break;
        case 2:
            sr = static_cast<float>(er * dlog2(1 + vd));
            sd = static_cast<float>(ed * dlog2(1 + vd));
            break;
        case 3:
            sr = static_cast<float>(er * dlog2(1 + (vr + vd) / 2.0));
            sd = static_cast<float>(ed * dlog2(1 + (vr + vd) / 2.0));
            break;
        case 4:
            sr = static_cast<float>(er * dlog2(1 + vr));
            sd = static_cast<float>(ed * dlog2(1 + (vr + vd) / 2.0));
            break;
        case 5:
            sr = static_cast<float>(er * dlog2(1 + vr));
            sd = static_cast<float>(ed * dlog2(1 + (0.75 * vr + 0.25 * vd)));
            break;
        default:  // 6 (the option's range ends there)
            sr = static_cast<float>(er * dlog2(1 + vr));
            sd = static_cast<float>(ed * dlog2(1 + (0.25 * vr + 0.75 * vd)));
            break;
        }
        score += std::fabs(sr - sd);
    }
    return score / static_cast<float>(g.blocks);
}

float score_band_pass(const Geometry& g, const Params& p, const float* ref, const float* ref_cov, const float* dis,
                      const float* dis_cov, std::ptrdiff_t stride, bool& singular) {
    const float sigma_nn = static_cast<float>(p.sigma_nn);
    Stats rs, ds;
    const bool ok_ref = est_params(g, ref, stride, ref_cov, sigma_nn, rs);
    const bool ok_dis = est_params(g, dis, stride, dis_cov, sigma_nn, ds);
    singular = !ok_ref || !ok_dis;
    if (ok_ref != ok_dis) return 0.0f;
    return speed_score(g, rs, ds, sigma_nn, static_cast<float>(p.nn_floor), p.weight_var_mode);
}

}  // namespace legacy

namespace blocks = speed::blocks;

/// One picture's factors as factor_kernel leaves them (the eigenvalues; q and r always).
struct TwinFactors {
    float q[blocks::kMatrix], r[blocks::kMatrix], eig[blocks::kN];
};

TwinFactors twin_factors(const float* cov) {
    TwinFactors f{};
    blocks::EigenWork eigen;
    blocks::eigenvalues(cov, f.eig, eigen);
    blocks::QrWork qr;
    blocks::qr_factor(cov, f.q, f.r, qr);
    return f;
}

/// speed_cuda.cuh's enqueue_scores for one pair, each kernel's thread loop written as a loop
/// over its threads calling the same functions: factor_kernel, terms_kernel (one block a thread,
/// one column), score_kernel.
blocks::PairScore twin_score(const speed::Geometry& g, const speed::Params& p, const float* ref, const float* ref_cov,
                             const float* dis, const float* dis_cov, std::ptrdiff_t stride) {
    const TwinFactors f[2] = {twin_factors(ref_cov), twin_factors(dis_cov)};
    const bool ok[2] = {blocks::eigenvalues_regular(f[0].eig) && blocks::solvable(f[0].r),
                        blocks::eigenvalues_regular(f[1].eig) && blocks::solvable(f[1].r)};
    const float sigma_nn = static_cast<float>(p.sigma_nn);
    const double log2_2pi_e = speed::log2_2pi_e();
    const float base = speed::noise_floor_entropy(sigma_nn, static_cast<float>(p.nn_floor));
    libm::Log2Tables tables;  // the device's copy
    std::memcpy(&tables, &libm::log2_tables(), sizeof tables);
    const float* band[2] = {ref, dis};
    std::vector<float> terms(static_cast<std::size_t>(g.blocks));
    for (int b = 0; b < g.blocks; ++b) {
        float entropy[2], variance[2];
        for (int v = 0; v < 2; ++v) {
            float y[blocks::kN], x[blocks::kN], rhs[blocks::kN];
            for (float& e : x) e = 0.0f;
            blocks::block_samples(band[v], stride, g.blocks_horizontal, b, y, 1);
            if (ok[v]) blocks::solve_blocks(f[v].q, f[v].r, y, x, rhs, 1);
            variance[v] = blocks::block_variance(x, y, 1);
            entropy[v] = blocks::block_entropy(f[v].eig, variance[v], sigma_nn, log2_2pi_e, tables);
        }
        terms[static_cast<std::size_t>(b)] =
            blocks::block_term(entropy[0], entropy[1], variance[0], variance[1], base, p.weight_var_mode, tables);
    }
    return blocks::pair_score(ok[0], ok[1], terms.data(), g.blocks);
}

std::uint32_t bits_of(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

/// A w x h picture of float samples as picture_copy makes them from random 8-bit samples, and
/// its band-pass picture (speed::band_pass), packed to operating_width columns.
std::vector<float> band_of(const speed::Geometry& g, const speed::Params& p, std::mt19937& rng, float noise,
                           const std::vector<float>* base_picture, std::vector<float>* picture_out) {
    std::vector<float> frame(g.buffer_size(), 0.0f), curr(g.buffer_size()), tmp(g.buffer_size());
    std::uniform_int_distribution<int> sample(0, 255), jitter(-4, 4);
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) {
            const std::size_t k = static_cast<std::size_t>(y) * g.alloc_width + x;
            frame[k] = base_picture ? (*base_picture)[k] + noise * static_cast<float>(jitter(rng))
                                    : static_cast<float>(sample(rng)) - 128.0f;
        }
    if (picture_out) *picture_out = frame;
    speed::band_pass(g, p, frame.data(), curr.data(), tmp.data());
    std::vector<float> out(static_cast<std::size_t>(g.operating_width) * g.operating_height);
    for (int y = 0; y < g.operating_height; ++y)
        std::memcpy(out.data() + static_cast<std::size_t>(y) * g.operating_width,
                    frame.data() + static_cast<std::size_t>(y) * g.alloc_width, sizeof(float) * g.operating_width);
    return out;
}

/// Checks the CPU (speed::score_band_pass), the legacy CPU and the twin's composition on one
/// pair; returns whether the pair was singular.
bool check_pair(const speed::Geometry& g, const speed::Params& p, const std::vector<float>& ref, const float* ref_cov,
                const std::vector<float>& dis, const float* dis_cov, const char* what) {
    const std::ptrdiff_t stride = g.operating_width;
    bool singular = false, legacy_singular = false;
    const float cpu = speed::score_band_pass(g, p, ref.data(), ref_cov, dis.data(), dis_cov, stride, singular);
    const float old = legacy::score_band_pass(g, p, ref.data(), ref_cov, dis.data(), dis_cov, stride, legacy_singular);
    const blocks::PairScore twin = twin_score(g, p, ref.data(), ref_cov, dis.data(), dis_cov, stride);
    EXPECT_EQ(bits_of(cpu), bits_of(old)) << what << ": " << cpu << " vs " << old << " mode " << p.weight_var_mode;
    EXPECT_EQ(singular, legacy_singular) << what;
    EXPECT_EQ(bits_of(twin.score), bits_of(cpu)) << what << ": " << twin.score << " vs " << cpu;
    EXPECT_EQ(twin.singular != 0, singular) << what;
    return singular;
}

speed::Params params_of(int mode, double sigma_nn, double nn_floor) {
    return {1.0, 1.0, speed::ScaleMethod::kBicubic, sigma_nn, nn_floor, mode};
}

TEST(SpeedBlocks, CpuAndTwinAsBeforeOnPictures) {
    struct Size {
        int w, h;
    };
    const Size sizes[] = {{80, 80}, {176, 144}, {333, 251}, {640, 360}};
    const double sigmas[][2] = {{0.29, 0.0}, {0.29, 1.0}, {0.1, 0.5}, {2.0, 3.0}};
    int pairs = 0, scored = 0;
    std::mt19937 rng(25);
    for (const Size s : sizes)
        for (const float noise : {0.0f, 1.0f, 6.0f}) {
            const speed::Geometry g = speed::Geometry::of(s.w, s.h, 1.0);
            const speed::Params p0 = params_of(0, 0.29, 0.0);
            std::vector<float> picture;
            const std::vector<float> ref = band_of(g, p0, rng, 0.0f, nullptr, &picture);
            const std::vector<float> dis = band_of(g, p0, rng, noise, &picture, nullptr);
            float ref_cov[blocks::kMatrix], dis_cov[blocks::kMatrix];
            speed::covariance_matrix(g, ref.data(), g.operating_width, ref_cov);
            speed::covariance_matrix(g, dis.data(), g.operating_width, dis_cov);
            for (int mode = 0; mode <= 6; ++mode)
                for (const auto& sn : sigmas) {
                    const speed::Params p = params_of(mode, sn[0], sn[1]);
                    if (!check_pair(g, p, ref, ref_cov, dis, dis_cov, "pictures")) ++scored;
                    ++pairs;
                }
        }
    EXPECT_EQ(pairs, 4 * 3 * 7 * 4);
    // 80 x 80 and 176 x 144 have fewer than 25 covariance samples (1 and 6 shifts): K singular;
    // the larger pictures' K is regular and the solve taken.
    EXPECT_EQ(scored, 2 * 3 * 7 * 4);
}

/// A symmetric 25 x 25 matrix: kind 0 zero, 1 SPD (A A^T / 25 + d I), 2 indefinite (random
/// symmetric), 3 tiny (1e-8 I: eigenvalues below 1e-6), 4 SPD with one huge direction.
std::vector<float> matrix_of(int kind, std::mt19937& rng) {
    std::vector<float> m(blocks::kMatrix, 0.0f);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    if (kind == 0) return m;
    if (kind == 3) {
        for (int i = 0; i < blocks::kN; ++i) m[i * blocks::kN + i] = 1e-8f;
        return m;
    }
    std::vector<float> a(blocks::kMatrix);
    for (float& v : a) v = normal(rng);
    for (int i = 0; i < blocks::kN; ++i)
        for (int j = 0; j <= i; ++j) {
            float v = 0;
            if (kind == 2) {
                v = a[i * blocks::kN + j];
            } else {
                for (int k = 0; k < blocks::kN; ++k) v += a[i * blocks::kN + k] * a[j * blocks::kN + k];
                v = v / 25.0f + (i == j ? 0.05f : 0.0f);
                if (kind == 4 && i == 0 && j == 0) v *= 1e6f;
            }
            m[i * blocks::kN + j] = m[j * blocks::kN + i] = v;
        }
    return m;
}

TEST(SpeedBlocks, CpuAndTwinAsBeforeOnDegenerateMatricesAndPictures) {
    std::mt19937 rng(7);
    const speed::Geometry g = speed::Geometry::of(176, 144, 1.0);
    const speed::Params p0 = params_of(0, 0.29, 0.0);
    std::vector<float> picture;
    const std::vector<float> random_ref = band_of(g, p0, rng, 0.0f, nullptr, &picture);
    const std::vector<float> random_dis = band_of(g, p0, rng, 3.0f, &picture, nullptr);
    const std::vector<float> zero(random_ref.size(), 0.0f), constant(random_ref.size(), -3.5f);
    const std::vector<float>* data[] = {&random_ref, &random_dis, &zero, &constant};
    int singular = 0, regular = 0;
    for (int kr = 0; kr < 5; ++kr)
        for (int kd = 0; kd < 5; ++kd) {
            const std::vector<float> rc = matrix_of(kr, rng), dc = matrix_of(kd, rng);
            for (int mode : {0, 3, 5, 6})
                for (const std::vector<float>* r : data)
                    for (const std::vector<float>* d : {data[1], data[2]}) {
                        const bool s = check_pair(g, params_of(mode, 0.29, 1.0), *r, rc.data(), *d, dc.data(),
                                                  "matrices");
                        ++(s ? singular : regular);
                    }
        }
    EXPECT_GT(singular, 0);  // both ways of being singular (eigenvalues, and mixed pairs) are reached
    EXPECT_GT(regular, 0);
}

TEST(SpeedBlocks, CpuAndTwinOnTheCovarianceOfZeroAndConstantPictures) {
    const speed::Geometry g = speed::Geometry::of(400, 320, 1.0);
    const std::size_t n = static_cast<std::size_t>(g.operating_width) * g.operating_height;
    std::mt19937 rng(3);
    std::vector<float> random(n);
    for (float& v : random) v = std::uniform_real_distribution<float>(-20.0f, 20.0f)(rng);
    const std::vector<float> zero(n, 0.0f), constant(n, 7.25f);
    float random_cov[blocks::kMatrix], zero_cov[blocks::kMatrix], constant_cov[blocks::kMatrix];
    speed::covariance_matrix(g, random.data(), g.operating_width, random_cov);
    speed::covariance_matrix(g, zero.data(), g.operating_width, zero_cov);
    speed::covariance_matrix(g, constant.data(), g.operating_width, constant_cov);
    for (int mode = 0; mode <= 6; ++mode) {
        const speed::Params p = params_of(mode, 0.29, 1.0);
        EXPECT_FALSE(check_pair(g, p, random, random_cov, random, random_cov, "random, random"));
        EXPECT_TRUE(check_pair(g, p, random, random_cov, zero, zero_cov, "random, zero"));
        EXPECT_TRUE(check_pair(g, p, constant, constant_cov, zero, zero_cov, "constant, zero"));
    }
    bool singular = false;
    EXPECT_EQ(speed::score_band_pass(g, params_of(0, 0.29, 1.0), random.data(), random_cov, zero.data(), zero_cov,
                                     g.operating_width, singular),
              0.0f);  // exactly one plane singular: 0
    EXPECT_TRUE(singular);
}

TEST(SpeedBlocks, MatMulOneElementAtATimeIsTheWholeProduct) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-30, 30);
    for (int round = 0; round < 50; ++round) {
        float x[blocks::kMatrix], y[blocks::kMatrix], whole[blocks::kMatrix], parts[blocks::kMatrix];
        for (int e = 0; e < blocks::kMatrix; ++e) {
            x[e] = std::ldexp(mantissa(rng), exponent(rng));
            y[e] = round % 5 == 0 && e % 7 == 0 ? -0.0f : std::ldexp(mantissa(rng), exponent(rng));
        }
        blocks::mat_mul_part(whole, x, y, 0, blocks::kN, 0, blocks::kN);
        for (int e = 0; e < blocks::kMatrix; ++e)
            blocks::mat_mul_part(parts, x, y, e / blocks::kN, e / blocks::kN + 1, e % blocks::kN, e % blocks::kN + 1);
        for (int e = 0; e < blocks::kMatrix; ++e) ASSERT_EQ(bits_of(parts[e]), bits_of(whole[e])) << round << " " << e;
        // And each element is the plain sum from 0 over k in order.
        for (int e = 0; e < blocks::kMatrix; e += 31) {
            float sum = 0.0f;
            for (int k = 0; k < blocks::kN; ++k) sum += x[(e / blocks::kN) * blocks::kN + k] * y[k * blocks::kN + e % blocks::kN];
            ASSERT_EQ(bits_of(sum), bits_of(whole[e]));
        }
    }
}

TEST(SpeedBlocks, SolveOneBlockAtATimeIsAllBlocksAtOnce) {
    std::mt19937 rng(5);
    const std::vector<float> k = matrix_of(1, rng);
    const TwinFactors f = twin_factors(k.data());
    ASSERT_TRUE(blocks::solvable(f.r));
    const int cols = 37;
    std::vector<float> y(static_cast<std::size_t>(blocks::kN) * cols), x(y.size()), rhs(y.size());
    for (float& v : y) v = std::uniform_real_distribution<float>(-50.0f, 50.0f)(rng);
    blocks::solve_blocks(f.q, f.r, y.data(), x.data(), rhs.data(), cols);
    for (int j = 0; j < cols; ++j) {
        float yj[blocks::kN], xj[blocks::kN], rj[blocks::kN];
        for (int i = 0; i < blocks::kN; ++i) yj[i] = y[static_cast<std::size_t>(i) * cols + j];
        blocks::solve_blocks(f.q, f.r, yj, xj, rj, 1);
        for (int i = 0; i < blocks::kN; ++i) ASSERT_EQ(bits_of(xj[i]), bits_of(x[static_cast<std::size_t>(i) * cols + j]));
    }
    // K x = y to float accuracy (the solve solves).
    for (int i = 0; i < blocks::kN; ++i) {
        double kx = 0;
        for (int c = 0; c < blocks::kN; ++c) kx += static_cast<double>(k[i * blocks::kN + c]) * x[static_cast<std::size_t>(c) * cols];
        EXPECT_NEAR(kx, y[static_cast<std::size_t>(i) * cols], 1e-2 * (1 + std::fabs(y[static_cast<std::size_t>(i) * cols])));
    }
}

TEST(SpeedBlocks, Log2OnACopyOfTheTablesIsLibmLog2) {
    libm::Log2Tables copy;
    std::memcpy(&copy, &libm::log2_tables(), sizeof copy);
    std::mt19937_64 rng(9);
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> inputs = {0.0, -0.0, 1.0, 2.0, 0.5, inf, -1.0, 0x1p-1074, 0x1p-1022, 1.0 + 0x1p-52,
                                  1.0 - 0x1p-53, 0.95, 1.05, 1e300};
    for (int i = 0; i < 200000; ++i) {
        std::uint64_t b = rng() & 0x7fffffffffffffffull;
        double x;
        std::memcpy(&x, &b, sizeof x);
        inputs.push_back(x);
        inputs.push_back(static_cast<double>(static_cast<float>(1.0 + std::ldexp(static_cast<double>(rng() % 100000), -20))));
    }
    for (const double x : inputs) {
        const double own = libm::log2(x), with = libm::log2_with(x, copy);
        if (std::isnan(own)) {
            EXPECT_TRUE(std::isnan(with)) << x;
            continue;
        }
        std::uint64_t a, b;
        std::memcpy(&a, &own, sizeof a);
        std::memcpy(&b, &with, sizeof b);
        ASSERT_EQ(a, b) << x;
    }
}

}  // namespace
}  // namespace vmafx
