// The SpEED core shared by speed_chroma and speed_temporal (see speed.hpp), bit-exact to
// upstream libvmaf 3.2.0 src/feature/speed.c with the covariance sums of x86/speed_avx512.c.
// The picture tools speed.c shares with vif_tools.c (Gaussian windows, mirrored filter,
// scalers, float conversion) are feature/common/float_image's, once for both.
// Every float and double step below is the one upstream's C takes: float arithmetic stays
// float, libm calls take and return double where upstream's C calls them on floats (C's
// sqrt/log2/exp are double functions), and nothing is contracted (-ffp-contract=off).
#include "feature/speed/speed.hpp"
#include "feature/speed/speed_kernels.hpp"
#include "feature/speed/speed_math.hpp"

#include "base/libm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace vmafx::speed {

namespace {

constexpr int kBlock = 5;                ///< DEFAULT_BLOCK_SIZE
constexpr int kElements = kBlock * kBlock;  ///< elements_in_block
constexpr int kScales = 4;               ///< NUM_SCALES
constexpr double kEps = 1e-6;            ///< EIGENVALUE_EPS
constexpr int kMaxIters = 500;           ///< EIGENVALUE_MAX_ITERS

// C's double libm functions, called on float arguments as upstream's C does; log2 with glibc
// 2.36's bits on every host (base/libm.hpp: the golden values' libm).
inline double dsqrt(double x) { return std::sqrt(x); }
inline double dlog2(double x) { return libm::log2(x); }

void subtract(float* a, const float* b, int w, int h, int stride) {
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j)
            a[static_cast<std::ptrdiff_t>(i) * stride + j] = band_pass_sample(
                a[static_cast<std::ptrdiff_t>(i) * stride + j], b[static_cast<std::ptrdiff_t>(i) * stride + j]);
}

}  // namespace

std::vector<float> anti_alias_filter(const Params& p) {
    const int aa_width = floatimg::vif_filter_size(1, static_cast<float>(p.kernelscale));
    return floatimg::gaussian_filter(aa_width,
                                     static_cast<float>(std::sqrt(static_cast<double>(kScales)) * aa_width / 5.0f));
}

std::vector<float> local_mean_filter(const Params& p) {
    const int fw = floatimg::vif_filter_size(kScales, static_cast<float>(p.kernelscale));
    return floatimg::gaussian_filter(fw, static_cast<float>(fw) / 5.0f);
}

// speed.c filter_and_downscale: `frame` becomes the operating band-pass picture.
void band_pass(const Geometry& g, const Params& p, float* frame, float* curr, float* tmp) {
    const int stride = g.alloc_width;
    if (!(std::fabs(p.prescale - 1.0) < 1.0e-3)) {
        std::memcpy(tmp, frame, sizeof(float) * g.buffer_size());
        floatimg::scale(p.method, tmp, g.width, g.height, stride, frame, g.scaled_width, g.scaled_height,
                        stride);
    }
    const std::vector<float> aa = anti_alias_filter(p);
    floatimg::convolve(aa, frame, nullptr, floatimg::Product::kPlain, g.scaled_width, g.scaled_height, stride,
                       curr, stride);
    for (int i = 0; i < g.scaled_height / kDecimation; ++i)
        for (int j = 0; j < g.scaled_width / kDecimation; ++j)
            frame[static_cast<std::ptrdiff_t>(i) * stride + j] =
                curr[static_cast<std::size_t>(i * kDecimation) * stride + j * kDecimation];
    const int w = g.scaled_width >> kScales, h = g.scaled_height >> kScales;
    const std::vector<float> window = local_mean_filter(p);
    floatimg::convolve(window, frame, nullptr, floatimg::Product::kPlain, w, h, stride, curr, stride);
    subtract(frame, curr, w, h, stride);
}

namespace {

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

}  // namespace

// --- speed.c est_params ---------------------------------------------------------------------

// Documented in speed_kernels.hpp (the lanes and the reduction order).
double covariance_sum_reference(const float* x, const float* y, int stride, int h, int w, double mx, double my) {
    double acc0[8] = {}, acc1[8] = {};
    double tail = 0.0;
    for (int i = 0; i < h; ++i) {
        const float* rx = x + static_cast<std::ptrdiff_t>(i) * stride;
        const float* ry = y + static_cast<std::ptrdiff_t>(i) * stride;
        int j = 0;
        for (; j + 15 < w; j += 16)
            for (int l = 0; l < 8; ++l) {
                acc0[l] = std::fma(static_cast<double>(rx[j + l]) - mx, static_cast<double>(ry[j + l]) - my, acc0[l]);
                acc1[l] = std::fma(static_cast<double>(rx[j + 8 + l]) - mx, static_cast<double>(ry[j + 8 + l]) - my,
                                   acc1[l]);
            }
        for (; j + 7 < w; j += 8)
            for (int l = 0; l < 8; ++l)
                acc0[l] = std::fma(static_cast<double>(rx[j + l]) - mx, static_cast<double>(ry[j + l]) - my, acc0[l]);
        covariance_add_rest(rx, ry, j, w, mx, my, tail);
    }
    return covariance_reduce(acc0, acc1, tail);
}

namespace {

struct Stats {
    std::vector<float> entropies, variances;
};

}  // namespace

// Step 1 of est_params: the means of the 25 shifted sub-pictures, the covariance matrix.
void covariance_matrix(const Geometry& g, const float* data, std::ptrdiff_t stride, float* cov) {
    float means[kElements];
    const std::size_t samples = static_cast<std::size_t>(g.sub_width) * static_cast<std::size_t>(g.sub_height);
    const float count = static_cast<float>(samples);
    for (int r = 0; r < kBlock; ++r)
        for (int c = 0; c < kBlock; ++c) {
            float sum = 0;
            for (int i = 0; i < g.sub_height; ++i)
                for (int j = 0; j < g.sub_width; ++j) sum += data[static_cast<std::ptrdiff_t>(r + i) * stride + c + j];
            means[r * kBlock + c] = sum / count;
        }
    const double dcount = static_cast<double>(samples);
    for (int xi = 0; xi < kElements; ++xi)
        for (int yi = 0; yi <= xi; ++yi) {
            const int rx = xi / kBlock, cx = xi % kBlock, ry = yi / kBlock, cy = yi % kBlock;
            const double sum = covariance_sum_simd(data + static_cast<std::ptrdiff_t>(rx) * stride + cx,
                                              data + static_cast<std::ptrdiff_t>(ry) * stride + cy, stride,
                                              g.sub_height, g.sub_width, means[rx * kBlock + cx],
                                              means[ry * kBlock + cy]);
            const float v = static_cast<float>(sum / dcount);
            cov[xi * kElements + yi] = v;
            cov[yi * kElements + xi] = v;
        }
}

namespace {

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

}  // namespace

ScaleMethod parse_scale_method(const std::string& metric, const std::string& text) {
    if (text == "nearest") return ScaleMethod::kNearest;
    if (text == "bilinear") return ScaleMethod::kBilinear;
    if (text == "bicubic") return ScaleMethod::kBicubic;
    if (text == "lanczos4") return ScaleMethod::kLanczos4;
    throw Error(fmt::format("{}: invalid speed_prescale_method \"{}\" (nearest, bilinear, bicubic or lanczos4)",
                            metric, text));
}

Geometry Geometry::of(int width, int height, double prescale) {
    Geometry g;
    g.width = width;
    g.height = height;
    g.scaled_width = static_cast<int>(static_cast<double>(width) * prescale + 0.5);
    g.scaled_height = static_cast<int>(static_cast<double>(height) * prescale + 0.5);
    g.alloc_width = std::max(width, g.scaled_width);
    g.alloc_height = std::max(height, g.scaled_height);
    g.operating_width = g.scaled_width >> kScales;
    g.operating_height = g.scaled_height >> kScales;
    g.truncated_width = g.operating_width / kBlock * kBlock;
    g.truncated_height = g.operating_height / kBlock * kBlock;
    g.blocks_horizontal = g.truncated_width / kBlock;
    g.blocks_vertical = g.truncated_height / kBlock;
    g.blocks = g.blocks_horizontal * g.blocks_vertical;
    g.sub_width = g.truncated_width - kBlock + 1;
    g.sub_height = g.truncated_height - kBlock + 1;
    return g;
}

int smallest_plane_side(double prescale) {
    int n = 1;
    while (Geometry::of(n, n, prescale).too_small()) ++n;  // (scaled sides grow with n: prescale >= 0.1)
    return n;
}

void check(const char* metric, const char* what, const Params& params, int plane_width,
           int plane_height, bool unscaled_buffers) {
    if (!floatimg::vif_kernelscale_valid(static_cast<float>(params.kernelscale)))
        throw Error(fmt::format("{}: invalid speed_kernelscale {:g} (upstream accepts only its 21 kernel scales: "
                                "1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, "
                                "1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111)",
                                metric, params.kernelscale));
    const Geometry g = Geometry::of(plane_width, plane_height, params.prescale);
    if (g.too_small())
        throw Error(fmt::format("{}: {} {}x{} is too small at speed_prescale {:g}: scaled to {}x{}, it must be at "
                                "least 80x80 (SpEED's operating picture, 1/16 of it, needs a 5x5 block)",
                                metric, what, plane_width, plane_height, params.prescale, g.scaled_width,
                                g.scaled_height));
    // speed_prescale within 1e-3 of 1 skips the rescale (ALMOST_EQUAL) but not the new size:
    // upstream then filters samples of its buffers it never wrote.
    if (std::fabs(params.prescale - 1.0) < 1.0e-3 && (g.scaled_width != plane_width || g.scaled_height != plane_height))
        throw Error(fmt::format("{}: speed_prescale {:g} is not supported for a {} {}x{}: within 1e-3 of 1 upstream "
                                "does not rescale, yet scores a {}x{} picture (samples it never wrote)",
                                metric, params.prescale, what, plane_width, plane_height, g.scaled_width,
                                g.scaled_height));
    if (unscaled_buffers && g.scaled_height > plane_height)
        throw Error(fmt::format("{}: speed_prescale {:g} is not supported: upstream sizes its frame buffers by the "
                                "unscaled height and writes the {} rows of the rescaled {} past them (it aborts); "
                                "speed_prescale must leave the height at most {}",
                                metric, params.prescale, g.scaled_height, what, plane_height));
}

BufferPool::Lease BufferPool::lease() const {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!free_.empty()) {
            auto set = std::move(free_.back());
            free_.pop_back();
            return Lease(*this, std::move(set));
        }
    }
    auto set = std::make_unique<std::vector<std::vector<float>>>(static_cast<std::size_t>(count_));
    for (auto& buffer : *set) buffer.assign(floats_, 0.0f);
    return Lease(*this, std::move(set));
}

void BufferPool::give_back(std::unique_ptr<std::vector<std::vector<float>>> set) const {
    if (!set) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(set));
}

float score(const Geometry& g, const Params& p, float* ref, float* dis, bool& singular) {
    std::vector<float> curr(g.buffer_size()), tmp(g.buffer_size());
    return score(g, p, ref, dis, singular, curr.data(), tmp.data());
}

float score(const Geometry& g, const Params& p, float* ref, float* dis, bool& singular, float* curr, float* tmp) {
    band_pass(g, p, ref, curr, tmp);
    band_pass(g, p, dis, curr, tmp);
    return score_band_pass(g, p, ref, dis, g.alloc_width, singular);
}

float score_band_pass(const Geometry& g, const Params& p, const float* ref, const float* dis, std::ptrdiff_t stride,
                      bool& singular) {
    float ref_cov[kElements * kElements], dis_cov[kElements * kElements];
    covariance_matrix(g, ref, stride, ref_cov);
    covariance_matrix(g, dis, stride, dis_cov);
    return score_band_pass(g, p, ref, ref_cov, dis, dis_cov, stride, singular);
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

}  // namespace vmafx::speed
