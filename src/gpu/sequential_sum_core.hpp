// The arithmetic of SequentialSum (cuda/sequential_sum.hpp): functions that the CUDA passes
// (cuda/sequential_sum.cu) call, and a host emulation of the whole method that the tests run
// against plain sequential loops (tests/test_sequential_sum.cpp). Written in the
// shared-arithmetic subset (base/shared_math.hpp): the per-element arithmetic (binade, grid,
// tie parity, the transfers and their composition, the walk's step) compiles as C++, CUDA
// (__host__ __device__) and GLSL. Its float and double variants are one body,
// sequential_sum_acc.inc, included twice (names suffixed _f and _d); the C++ adaptors at the
// end (templates on Acc over the two variants, the pointer loop seq_add, the host emulation
// seq_emulate with its vectors, the host's test double_sum_may_round) hold no per-element
// arithmetic of their own.
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
#ifndef VMAFX_GPU_SEQUENTIAL_SUM_CORE_HPP
#define VMAFX_GPU_SEQUENTIAL_SUM_CORE_HPP

#include "base/shared_math.hpp"

VMAFX_NAMESPACE_BEGIN(gpu::seqsum)

/// Terms per chunk (the device's passes A and C use kChunk / kTermsPerThread threads a chunk).
VMAFX_CONST int kChunk = 2048;
/// Consecutive terms each thread of pass C composes before the block's ordered tree.
VMAFX_CONST int kTermsPerThread = 8;
/// Candidate binades per chunk: e0 - 1, e0, e0 + 1.
VMAFX_CONST int kCandidates = 3;
/// base e0 of a chunk without a prediction (its prefix is 0 or not finite).
VMAFX_CONST int kNoBase = -100000;

/// 2^k as a double for -1074 <= k <= 1023 (bit construction: exact, no library call).
VMAFX_FN double seq_pow2(int k) {
    uint64_t b;
    if (k >= -1022) b = uint64_t(k + 1023) << 52;
    else b = uint64_t(1) << (k + 1074);
    return vmafx_bits_double(b);
}

/// +infinity as a double.
VMAFX_FN double seq_inf() { return vmafx_bits_double(uint64_t(0x7ff) << 52); }

/// x * 2^k for -1074 <= k <= 2046, exact unless the result overflows or is subnormal (for
/// k > 1023 the first product overflows only where the result does).
VMAFX_FN double seq_scale(double x, int k) {
    if (k > 1023) return x * seq_pow2(1023) * seq_pow2(k - 1023);
    return x * seq_pow2(k);
}

/// A run of terms' action on a running value a on the grid u of one binade, as a function of
/// the entry parity q = (a / u) mod 2: a becomes a + inc[q] * u with parity par[q]. inc wraps
/// modulo 2^64 (compositions are then associative whatever the values; an applied transfer's
/// true increment is below 2^p). bad (0 or 1): a term is too large for the grid (the transfer
/// must not be applied).
struct SeqTransfer {
    uint64_t inc[2];
    int32_t par[2];
    int32_t bad;
};

/// The identity (no terms).
VMAFX_FN SeqTransfer seq_identity() {
    SeqTransfer t;
    t.inc[0] = uint64_t(0);
    t.inc[1] = uint64_t(0);
    t.par[0] = 0;
    t.par[1] = 1;
    t.bad = 0;
    return t;
}

/// A then B (order matters).
VMAFX_FN SeqTransfer seq_compose(VMAFX_IN(SeqTransfer, a), VMAFX_IN(SeqTransfer, b)) {
    SeqTransfer c;
    for (int q = 0; q < 2; ++q) {
        const int mid = a.par[q];
        c.inc[q] = a.inc[q] + b.inc[mid];
        c.par[q] = b.par[mid];
    }
    c.bad = a.bad | b.bad;
    return c;
}

/// A chunk's prediction from the approximate prefix P of the chunk sums before it: its sign
/// (+1, -1) and binade; e0 = kNoBase when P is 0 or not finite (or subnormal).
struct SeqBase {
    int e0;
    int sigma;
};

/// Candidate binade k (0 .. kCandidates - 1) of a chunk with base b.
VMAFX_FN int seq_candidate(VMAFX_IN(SeqBase, b), int k) { return b.e0 == kNoBase ? kNoBase : b.e0 - 1 + k; }

/// A chunk's data after passes A to C: its count of terms, its term bounds (pos: sum of the positive
/// terms, neg: of |negative terms|, each computed in double in any order: relative error below
/// kChunk * 2^-53), its base and its candidate transfers.
struct SeqChunk {
    double pos;
    double neg;
    SeqBase base;
    int count;  ///< the chunk's terms (not `length`: a method name in GLSL)
    SeqTransfer tr[kCandidates];
};

/// What the walk needs of a chunk (seq_step_*): per candidate k, the range [lo[k], hi[k]) of
/// a = sigma * s (double) where the transfer applies, its grid u[k] and its increments by
/// entry parity. An unusable candidate has an empty range (lo = +inf, hi = -inf).
struct SeqStep {
    double lo[kCandidates];
    double hi[kCandidates];
    double u[kCandidates];
    uint64_t inc[kCandidates][2];
    int sigma;
    int pad;
};

// The float variants: seq_bits_f, seq_binade_f, seq_parity_f, seq_usable_binade_f, seq_term_f,
// seq_step_f, seq_apply_f, seq_add_term_f, kSeqP_f, kSeqEmin_f, kSeqEmax_f.
#define VMAFX_SEQ_ACC float
#define VMAFX_SEQ_BITS uint32_t
#define VMAFX_SEQ_WIDTH 32
#define VMAFX_SEQ_P 24
#define VMAFX_SEQ_EMIN (-126)
#define VMAFX_SEQ_EMAX 127
#define VMAFX_SEQ_TO_BITS vmafx_float_bits
#define VMAFX_SEQ_FN(name) name##_f
#include "gpu/sequential_sum_acc.inc"
#undef VMAFX_SEQ_ACC
#undef VMAFX_SEQ_BITS
#undef VMAFX_SEQ_WIDTH
#undef VMAFX_SEQ_P
#undef VMAFX_SEQ_EMIN
#undef VMAFX_SEQ_EMAX
#undef VMAFX_SEQ_TO_BITS
#undef VMAFX_SEQ_FN

// The double variants: the same names with _d.
#define VMAFX_SEQ_ACC double
#define VMAFX_SEQ_BITS uint64_t
#define VMAFX_SEQ_WIDTH 64
#define VMAFX_SEQ_P 53
#define VMAFX_SEQ_EMIN (-1022)
#define VMAFX_SEQ_EMAX 1023
#define VMAFX_SEQ_TO_BITS vmafx_double_bits
#define VMAFX_SEQ_FN(name) name##_d
#include "gpu/sequential_sum_acc.inc"
#undef VMAFX_SEQ_ACC
#undef VMAFX_SEQ_BITS
#undef VMAFX_SEQ_WIDTH
#undef VMAFX_SEQ_P
#undef VMAFX_SEQ_EMIN
#undef VMAFX_SEQ_EMAX
#undef VMAFX_SEQ_TO_BITS
#undef VMAFX_SEQ_FN

/// A chunk's base from the approximate prefix of the chunk sums before it (pass B).
VMAFX_FN SeqBase seq_base(double prefix) {
    SeqBase b;
    b.sigma = prefix < VMAFX_D(0.0) ? -1 : 1;
    b.e0 = seq_binade_d(prefix < VMAFX_D(0.0) ? -prefix : prefix);
    return b;
}

VMAFX_NAMESPACE_END

#if !VMAFX_GLSL
// ---------------------------------------------------------------------------------------------
// C++ adaptors: templates on the accumulator type over the _f / _d variants, the pointer loop
// of the CPU's sum, and the host emulation.

#include <cstddef>
#include <type_traits>
#include <vector>

namespace vmafx::gpu::seqsum {

/// The format of Acc (float or double): p significand bits (with the hidden one), the smallest
/// and largest exponents of a normal number, the type of its bits.
template <typename Acc>
struct SeqFormat;
template <>
struct SeqFormat<float> {
    static constexpr int p = kSeqP_f, emin = kSeqEmin_f, emax = kSeqEmax_f;
    using Bits = uint32_t;
};
template <>
struct SeqFormat<double> {
    static constexpr int p = kSeqP_d, emin = kSeqEmin_d, emax = kSeqEmax_d;
    using Bits = uint64_t;
};

/// Whether Acc is float (else double; SeqFormat<Acc> rejects any other type).
template <typename Acc>
inline constexpr bool kIsFloat = std::is_same_v<Acc, float> && sizeof(SeqFormat<Acc>) > 0;

/// seq_bits_f / seq_bits_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline typename SeqFormat<Acc>::Bits seq_bits(Acc v) {
    if constexpr (kIsFloat<Acc>) return seq_bits_f(v);
    else return seq_bits_d(v);
}

/// seq_binade_f / seq_binade_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline int seq_binade(Acc a) {
    if constexpr (kIsFloat<Acc>) return seq_binade_f(a);
    else return seq_binade_d(a);
}

/// seq_parity_f / seq_parity_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline int seq_parity(Acc a) {
    if constexpr (kIsFloat<Acc>) return seq_parity_f(a);
    else return seq_parity_d(a);
}

/// seq_usable_binade_f / seq_usable_binade_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline bool seq_usable_binade(int e) {
    if constexpr (kIsFloat<Acc>) return seq_usable_binade_f(e);
    else return seq_usable_binade_d(e);
}

/// seq_term_f / seq_term_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline SeqTransfer seq_term(Acc t, int e, int sigma) {
    if constexpr (kIsFloat<Acc>) return seq_term_f(t, e, sigma);
    else return seq_term_d(t, e, sigma);
}

/// seq_step_f / seq_step_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline SeqStep seq_step(const SeqChunk& c) {
    if constexpr (kIsFloat<Acc>) return seq_step_f(c);
    else return seq_step_d(c);
}

/// seq_apply_f / seq_apply_d.
template <typename Acc>
VMAFX_HOST_DEVICE inline bool seq_apply(Acc& s, const SeqStep& st) {
    if constexpr (kIsFloat<Acc>) return seq_apply_f(s, st);
    else return seq_apply_d(s, st);
}

/// The CPU's loop over n terms, continuing from s (seq_add_term_f / _d in order).
template <typename Acc>
VMAFX_HOST_DEVICE inline Acc seq_add(Acc s, const Acc* terms, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (kIsFloat<Acc>) s = seq_add_term_f(s, terms[i]);
        else s = seq_add_term_d(s, terms[i]);
    }
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
        info[j].count = static_cast<int>(end - begin);
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
                    if (at < info[j].count) acc = seq_compose(acc, seq_term<Acc>(terms[j * kChunk + at], e, info[j].base.sigma));
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
            s = seq_add<Acc>(s, terms + j * kChunk, static_cast<std::size_t>(info[j].count));
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

#endif  // !VMAFX_GLSL

#endif  // VMAFX_GPU_SEQUENTIAL_SUM_CORE_HPP
