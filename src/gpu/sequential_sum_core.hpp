// The arithmetic of SequentialSum (gpu/sequential_sum.hpp): host/device functions that the CUDA
// passes (gpu/sequential_sum.cu) call, and a host emulation of the whole method that the tests
// run against plain sequential loops (tests/test_sequential_sum.cpp).
//
// The method, for one row of n terms t_0..t_{n-1} of type Acc (float: p = 24, double: p = 53),
// whose CPU value is  s = +0; s = fl(s + t_i) for i = 0..n-1  (round to nearest, ties to even):
//  A. chunks of kChunk consecutive terms; per chunk (any order, double): pos = sum of the
//     positive terms, neg = sum of |negative terms| (bounds of the running sum's travel).
//  B. an approximate prefix P_j of the chunk sums (pos - neg, double, any order) predicts the
//     running sum at the chunk's start: its sign sigma and binade e0 (seq_base).
//  C. per chunk and candidate binade e in {e0 - 1, e0, e0 + 1}: the chunk's transfer function
//     (SeqTransfer) in the frame sigma * s, grid u = 2^(e - p + 1): while a running value a
//     (= sigma * s > 0) stays in [2^e, 2^(e+1)) on the grid u, a + sigma * t rounds to
//     a + u * r, where r is t's quotient sigma * t / u rounded to an integer, to nearest, and on
//     a tie (sigma * t / u = k + 1/2 exactly) to the one that makes a / u + r even: a function
//     of the parity of a / u only. A chunk's transfer is the ordered composition (associative,
//     exact in 64-bit integers) of its terms' transfers: entry parity -> (increment, exit parity).
//  D. the exact walk, in order, with the actual running sum s (Acc): a chunk whose candidate
//     transfer applies (seq_step, seq_apply: s's sign and binade are a candidate's, and s plus the
//     chunk's bounds, widened by the accumulated rounding of n_chunk adds and a margin, stays
//     strictly inside the binade, so every add of the chunk rounds on the grid u as above) moves
//     s by inc[parity(s / u)] * u, exactly; any other chunk (the row's start, binade crossings,
//     zeros, subnormal sums, non-finite terms, predictions the actual sum does not follow) adds
//     its terms one by one in Acc, as the CPU does (seq_add).
// Nothing is bounded or approximated in the result: the predictions only choose which exact
// path a chunk takes. Signed zeros, NaN and infinities: the sum is +0 until a term changes it,
// and only the one-by-one path ever sees a zero or non-finite running sum or term bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/host_device.hpp"

namespace vmafx::gpu::seqsum {

/// Terms per chunk (the device's passes A and C use kChunk / kTermsPerThread threads a chunk).
constexpr int kChunk = 2048;
/// Consecutive terms each thread of pass C composes before the block's ordered tree.
constexpr int kTermsPerThread = 8;
/// Candidate binades per chunk: e0 - 1, e0, e0 + 1.
constexpr int kCandidates = 3;
/// base e0 of a chunk without a prediction (its prefix is 0 or not finite).
constexpr int kNoBase = -100000;

/// The format of Acc: p significand bits (with the hidden one), the smallest and largest
/// exponents of a normal number.
template <typename Acc>
struct SeqFormat;
template <>
struct SeqFormat<float> {
    static constexpr int p = 24, emin = -126, emax = 127;
    using Bits = std::uint32_t;
};
template <>
struct SeqFormat<double> {
    static constexpr int p = 53, emin = -1022, emax = 1023;
    using Bits = std::uint64_t;
};

/// 2^k as a double for -1074 <= k <= 1023 (bit construction: exact, no library call).
VMAFX_HOST_DEVICE inline double seq_pow2(int k) {
    std::uint64_t b;
    if (k >= -1022) b = static_cast<std::uint64_t>(k + 1023) << 52;
    else b = std::uint64_t{1} << (k + 1074);
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

/// +infinity as a double.
VMAFX_HOST_DEVICE inline double seq_inf() {
    const std::uint64_t b = std::uint64_t{0x7ff} << 52;
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

/// x * 2^k for -1074 <= k <= 2046, exact unless the result overflows or is subnormal (for
/// k > 1023 the first product overflows only where the result does).
VMAFX_HOST_DEVICE inline double seq_scale(double x, int k) {
    if (k > 1023) return x * seq_pow2(1023) * seq_pow2(k - 1023);
    return x * seq_pow2(k);
}

/// The bits of v.
template <typename Acc>
VMAFX_HOST_DEVICE inline typename SeqFormat<Acc>::Bits seq_bits(Acc v) {
    typename SeqFormat<Acc>::Bits b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// The binade e of a > 0 (2^e <= a < 2^(e+1)) when a is a normal finite number; kNoBase for
/// 0, subnormals, infinities and NaN (and negative a).
template <typename Acc>
VMAFX_HOST_DEVICE inline int seq_binade(Acc a) {
    using F = SeqFormat<Acc>;
    const auto b = seq_bits(a);
    constexpr int sign_shift = sizeof(Acc) * 8 - 1;
    if ((b >> sign_shift) != 0) return kNoBase;
    const int biased = static_cast<int>(b >> (F::p - 1));
    constexpr int bias = F::emax;
    if (biased == 0 || biased == 2 * F::emax + 1) return kNoBase;
    return biased - bias;
}

/// The parity of a / u for a normal a > 0 and u = ulp(a): the lowest significand bit.
template <typename Acc>
VMAFX_HOST_DEVICE inline int seq_parity(Acc a) {
    return static_cast<int>(seq_bits(a) & 1u);
}

/// A run of terms' action on a running value a on the grid u of one binade, as a function of
/// the entry parity q = (a / u) mod 2: a becomes a + inc[q] * u with parity par[q]. inc wraps
/// modulo 2^64 (compositions are then associative whatever the values; an applied transfer's
/// true increment is below 2^p). bad: a term is too large for the grid (the transfer must not
/// be applied).
struct SeqTransfer {
    std::uint64_t inc[2];
    unsigned char par[2];
    unsigned char bad;
};

/// The identity (no terms).
VMAFX_HOST_DEVICE inline SeqTransfer seq_identity() {
    SeqTransfer t{};
    t.inc[0] = t.inc[1] = 0;
    t.par[0] = 0;
    t.par[1] = 1;
    t.bad = 0;
    return t;
}

/// A then B (order matters).
VMAFX_HOST_DEVICE inline SeqTransfer seq_compose(const SeqTransfer& a, const SeqTransfer& b) {
    SeqTransfer c;
    for (int q = 0; q < 2; ++q) {
        const int mid = a.par[q];
        c.inc[q] = a.inc[q] + b.inc[mid];
        c.par[q] = b.par[mid];
    }
    c.bad = static_cast<unsigned char>(a.bad | b.bad);
    return c;
}

/// Whether binade e can hold a chunk's running value: normal, and not the top binade (whose
/// upper end 2^(emax+1) is not a number).
template <typename Acc>
VMAFX_HOST_DEVICE inline bool seq_usable_binade(int e) {
    return e >= SeqFormat<Acc>::emin && e < SeqFormat<Acc>::emax;
}

/// One term's transfer in binade e (seq_usable_binade) of the frame sigma (+1 or -1): the term
/// there is sigma * t, its quotient q = sigma * t / 2^(e - p + 1), exact in double (a float
/// term's quotient always; a double term's unless it overflows, then the transfer is bad, or
/// falls below 2^-1022, then it rounds to 0 as the exact quotient does).
template <typename Acc>
VMAFX_HOST_DEVICE inline SeqTransfer seq_term(Acc t, int e, int sigma) {
    constexpr int p = SeqFormat<Acc>::p;
    SeqTransfer r;
    const double q = seq_scale(sigma > 0 ? static_cast<double>(t) : -static_cast<double>(t), p - 1 - e);
    const double a = q < 0 ? -q : q;
    constexpr double limit = static_cast<double>(1ull << p);  // 2^p: |term| <= the binade's width
    if (!(a <= limit)) {  // also NaN
        r = seq_identity();
        r.bad = 1;
        return r;
    }
    const double n = floor(a);
    const double f = a - n;  // exact (Sterbenz for a >= 1; a itself below 1)
    r.bad = 0;
    if (f != 0.5) {
        const std::int64_t m = static_cast<std::int64_t>(n) + (f > 0.5 ? 1 : 0);
        const std::int64_t inc = q < 0 ? -m : m;
        const int odd = static_cast<int>(inc & 1);
        r.inc[0] = r.inc[1] = static_cast<std::uint64_t>(inc);
        r.par[0] = static_cast<unsigned char>(odd);
        r.par[1] = static_cast<unsigned char>(1 - odd);
    } else {  // a tie: floor(q) or floor(q) + 1, whichever leaves a / u even
        const std::int64_t lo = q < 0 ? -static_cast<std::int64_t>(n) - 1 : static_cast<std::int64_t>(n);
        for (int par = 0; par < 2; ++par) {
            const std::int64_t inc = ((par + lo) & 1) != 0 ? lo + 1 : lo;
            r.inc[par] = static_cast<std::uint64_t>(inc);
            r.par[par] = 0;
        }
    }
    return r;
}

/// A chunk's prediction from the approximate prefix P of the chunk sums before it: its sign
/// (+1, -1) and binade; e0 = kNoBase when P is 0 or not finite (or subnormal).
struct SeqBase {
    int e0;
    int sigma;
};

VMAFX_HOST_DEVICE inline SeqBase seq_base(double prefix) {
    SeqBase b;
    b.sigma = prefix < 0 ? -1 : 1;
    b.e0 = seq_binade<double>(prefix < 0 ? -prefix : prefix);
    return b;
}

/// Candidate binade k (0 .. kCandidates - 1) of a chunk with base b.
VMAFX_HOST_DEVICE inline int seq_candidate(const SeqBase& b, int k) { return b.e0 == kNoBase ? kNoBase : b.e0 - 1 + k; }

/// A chunk's data after passes A to C: its length, its term bounds (pos: sum of the positive
/// terms, neg: of |negative terms|, each computed in double in any order: relative error below
/// kChunk * 2^-53), its base and its candidate transfers.
struct SeqChunk {
    double pos, neg;
    SeqBase base;
    int length;
    SeqTransfer tr[kCandidates];
};

/// What the walk needs of a chunk (seq_step): per candidate k, the range [lo[k], hi[k]) of
/// a = sigma * s (double) where the transfer applies, its grid u[k] and its increments by
/// entry parity. An unusable candidate has an empty range (lo = +inf, hi = -inf).
struct SeqStep {
    double lo[kCandidates], hi[kCandidates], u[kCandidates];
    std::uint64_t inc[kCandidates][2];
    int sigma;
    int pad;
};

/// The walk's data of chunk c. Why applying it is exact: let a = sigma * s lie in
/// [lo[k], hi[k]) for the candidate binade e = e0 - 1 + k, grid u = 2^(e - p + 1); a is then a
/// normal number of binade e, on the grid u. While the chunk's first i adds have each been
/// rounded on the grid u (induction), the running value is a + (an exact prefix of the chunk's
/// terms, within [-down, up]) + (i errors of at most u / 2), so the next add's exact value lies
/// within [a - down - n u / 2, a + up + n u / 2] (n = the chunk's length). With
///   lo = 2^e + (down + (n + 2) u) (1 + 2^-30),  hi = 2^(e+1) - (up + (n + 2) u) (1 + 2^-30)
/// (each rounded to double once: off by at most u / 2 for double, far less for float; the
/// factor covers the bounds' own relative error, below kChunk * 2^-53, and the few roundings
/// of these formulas, 2^-52 relative each), that interval stays inside [2^e + u, 2^(e+1) - u):
/// the add rounds on the grid u (never up to 2^(e+1)), as the transfer assumes, and the
/// running value stays in the binade. Non-finite or NaN bounds give empty ranges.
template <typename Acc>
VMAFX_HOST_DEVICE inline SeqStep seq_step(const SeqChunk& c) {
    constexpr int p = SeqFormat<Acc>::p;
    constexpr double slack = 1.0 + 0x1p-30;
    const double inf = seq_inf();
    SeqStep st{};
    st.sigma = c.base.sigma;
    const double up = c.base.sigma > 0 ? c.pos : c.neg;
    const double down = c.base.sigma > 0 ? c.neg : c.pos;
    for (int k = 0; k < kCandidates; ++k) {
        const int e = seq_candidate(c.base, k);
        st.inc[k][0] = c.tr[k].inc[0];
        st.inc[k][1] = c.tr[k].inc[1];
        st.lo[k] = inf;
        st.hi[k] = -inf;
        st.u[k] = 0;
        if (e == kNoBase || !seq_usable_binade<Acc>(e) || c.tr[k].bad) continue;
        const double u = seq_pow2(e - p + 1);
        const double lo = seq_pow2(e) + (down + (c.length + 2) * u) * slack;
        const double hi = seq_pow2(e + 1) - (up + (c.length + 2) * u) * slack;
        if (!(lo < hi)) continue;  // also NaN
        st.lo[k] = lo;
        st.hi[k] = hi;
        st.u[k] = u;
    }
    return st;
}

/// Applies the chunk of step st to the running sum s when a candidate applies (see seq_step)
/// and returns true; leaves s and returns false otherwise (the chunk then goes one by one).
/// |inc| u < 2^e: inc is exact in Acc, inc * u a multiple of u below 2^e, a + inc * u on the
/// grid u inside the binade: every operation is exact.
template <typename Acc>
VMAFX_HOST_DEVICE inline bool seq_apply(Acc& s, const SeqStep& st) {
    const Acc a = st.sigma > 0 ? s : -s;
    const double ad = static_cast<double>(a);
    for (int k = 0; k < kCandidates; ++k) {
        if (ad >= st.lo[k] && ad < st.hi[k]) {
            const auto inc = static_cast<std::int64_t>(st.inc[k][seq_parity(a)]);
            const Acc moved = a + static_cast<Acc>(inc) * static_cast<Acc>(st.u[k]);
            s = st.sigma > 0 ? moved : -moved;
            return true;
        }
    }
    return false;
}

/// The CPU's loop over n terms, continuing from s.
template <typename Acc>
VMAFX_HOST_DEVICE inline Acc seq_add(Acc s, const Acc* terms, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) s += terms[i];
    return s;
}

/// Counts of a host emulation run, for the tests.
struct SeqStats {
    std::size_t chunks = 0;      ///< chunks of the row
    std::size_t sequential = 0;  ///< chunks added one by one
};

/// The whole method on the host, with the device's chunking and grouping (pass C: runs of
/// kTermsPerThread terms composed in order, then an ordered pairwise tree over the runs): the
/// tests prove it bit for bit against plain loops. Host only.
template <typename Acc>
inline Acc seq_emulate(const Acc* terms, std::size_t n, SeqStats* stats = nullptr) {
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<SeqChunk> info(chunks);
    // A.
    for (std::size_t j = 0; j < chunks; ++j) {
        const std::size_t begin = j * kChunk;
        const std::size_t end = begin + kChunk < n ? begin + kChunk : n;
        double pos = 0, neg = 0;
        for (std::size_t i = begin; i < end; ++i) {
            const double t = static_cast<double>(terms[i]);
            if (t > 0) pos += t;
            else if (t < 0) neg -= t;
            else if (t != t) pos += t;  // NaN poisons the bounds: never applied
        }
        info[j].pos = pos;
        info[j].neg = neg;
        info[j].length = static_cast<int>(end - begin);
    }
    // B.
    double prefix = 0;
    for (std::size_t j = 0; j < chunks; ++j) {
        info[j].base = seq_base(prefix);
        prefix += info[j].pos - info[j].neg;
    }
    // C.
    constexpr int runs = kChunk / kTermsPerThread;
    std::vector<SeqTransfer> tree(runs);
    for (std::size_t j = 0; j < chunks; ++j) {
        for (int k = 0; k < kCandidates; ++k) {
            const int e = seq_candidate(info[j].base, k);
            if (e == kNoBase || !seq_usable_binade<Acc>(e)) {
                info[j].tr[k] = seq_identity();
                info[j].tr[k].bad = 1;
                continue;
            }
            for (int r = 0; r < runs; ++r) {
                SeqTransfer acc = seq_identity();
                for (int i = 0; i < kTermsPerThread; ++i) {
                    const int at = r * kTermsPerThread + i;
                    if (at < info[j].length) acc = seq_compose(acc, seq_term<Acc>(terms[j * kChunk + at], e, info[j].base.sigma));
                }
                tree[r] = acc;
            }
            for (int stride = 1; stride < runs; stride *= 2)
                for (int r = 0; r + stride < runs; r += 2 * stride) tree[r] = seq_compose(tree[r], tree[r + stride]);
            info[j].tr[k] = tree[0];
        }
    }
    // D.
    Acc s = 0;
    std::size_t sequential = 0;
    for (std::size_t j = 0; j < chunks; ++j) {
        const SeqStep step = seq_step<Acc>(info[j]);
        if (!seq_apply<Acc>(s, step)) {
            s = seq_add<Acc>(s, terms + j * kChunk, static_cast<std::size_t>(info[j].length));
            ++sequential;
        }
    }
    if (stats) {
        stats->chunks = chunks;
        stats->sequential = sequential;
    }
    return s;
}

}  // namespace vmafx::gpu::seqsum

namespace vmafx::gpu {

/// Whether a CPU's running double sum of `n` non-negative terms, each a whole number of units
/// below 2^term_bits (e.g. float_moment's and float_psnr's float squares at `bits` per sample:
/// term_bits = 2 * bits), can round: false where n * 2^term_bits <= 2^53, since every partial
/// sum is then an exact integer number of units, so an integer sum in any order is the CPU's;
/// true beyond, where the sum must go through SequentialSum<double>.
constexpr bool double_sum_may_round(std::size_t n, int term_bits) {
    return term_bits >= 53 || n > (std::size_t{1} << (53 - term_bits));
}

}  // namespace vmafx::gpu
