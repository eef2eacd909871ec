// The CUDA twin's pooling selection (cambi_cuda.cu): the CPU's quick_select (cambi_contrast.cpp,
// upstream's Hoare-partition quickselect) reproduced in parallel rounds, leaving the very same
// permutation of the array, so that the double sum of its first k elements in that order (the
// CPU's spatial_pooling) is the CPU's. Host-device functions, so that a CPU test
// (cambi_select_test.cpp) runs the code the kernels run. Internal: used by cambi_cuda.cu and
// that test.
//
// One partition of quick_select over [left, right] with pivot p = arr[k]:
//     i = left, j = right;
//     do { while (arr[i] > p) ++i;  while (arr[j] < p) --j;
//          if (i <= j) swap(arr[i++], arr[j--]); } while (i <= j);
//     if (j < k) left = i;  if (k < i) right = j;
// Call a position x of [left, right] a left stop when !(arr[x] > p) and a right stop when
// !(arr[x] < p) (in the array as the round starts; a position may be both; one that is not a
// right stop is a left stop). Let a_m be the m-th left stop from the left, b_m the m-th right
// stop from the right, and M the largest m with a_m < b_m (a_m rises, b_m falls, so m <= M
// exactly while a_m < b_m; M = 0 when a_1 >= b_1). By induction the loop's m-th swap, m <= M,
// exchanges a_m and b_m: after m - 1 swaps i = a_(m-1) + 1 and j = b_(m-1) - 1, the positions
// between them are untouched, and a_m < b_m lie between them. So the first M swaps are those
// disjoint pairs (swapped in parallel), and only the loop's end remains (close_round): after
// them the positions (a_M, b_M) are untouched and position b_M holds a left stop, a_M a right
// stop (for M = 0: a_0 = left - 1, b_0 = right + 1; the pivot's position k is a stop of both
// kinds inside). Then i's scan ends at a_(M+1) if that exists below b_M, else at b_M; j's at
// b_(M+1) if that exists above a_M, else at a_M (when b_M = a_M + 1 the loop does not scan
// again, and these are i = a_M + 1, j = b_M - 1 all the same). These never have i < j (that
// would be a pair M + 1); i == j (a_(M+1) == b_(M+1), a value equal to p) is the self-swap,
// after which i = x + 1, j = x - 1. The comparisons are the CPU's (!(v > p), !(v < p)), NaN
// included.
//
// A round on the device (cambi_pool_cuda.cuh), over chunks of [left, right] (kSelectChunk
// positions each, the last one shorter): count each chunk's stops of both kinds, then scan the
// counts, left stops from the left, right stops from the right, and note the pivot (count
// kernel); each position's ranks: the left stop of rank r (1-based) at x is pos_a[r - 1] = x, the
// right stop of rank r is pos_b[r - 1] = x, and a left stop of rank r with at least r right
// stops after it is paired (M: their largest rank; rank kernel); swap pos_a[m] with pos_b[m]
// for m < M, then close_round (swap kernel). Small ranges take the same steps in one
// block (finish_kernel: a thread's share of the range as a chunk). select_rounds below runs the
// same steps on the host.
#pragma once

#include <algorithm>
#include <vector>

#include "base/host_device.hpp"

namespace vmafx::cambi {

/// Positions of [left, right] a chunk of a round covers (the kernels: a block's).
inline constexpr int kSelectChunk = 4096;

/// One selection's state between the rounds (device memory in cambi_cuda.cu). The selection is
/// done when left >= right (quick_select's loop test), or from the start when k == n.
struct SelectState {
    int left = 0, right = 0;  ///< quick_select's bounds (inclusive)
    int k = 0;                ///< the pivot's position: the count of values pooled
    float pivot = 0.0f;       ///< arr[k] as the round starts
    int total_a = 0;          ///< left stops in [left, right] this round
    int total_b = 0;          ///< right stops in [left, right] this round
    int pairs = 0;            ///< M: the swaps of this round
    int rounds = 0;           ///< rounds run (close_round counts them)
    int arrived = 0;          ///< the kernels' count of blocks done (0 between kernels)
};

/// The state of a selection of the k largest of n values (1 <= k <= n), before its first round.
VMAFX_HOST_DEVICE inline SelectState select_start(int n, int k) {
    SelectState s;
    s.left = 0;
    s.right = k == n ? 0 : n - 1;  // k == n: quick_select returns at once (left >= right)
    s.k = k;
    return s;
}

/// Whether the selection is done (no round changes anything any more).
VMAFX_HOST_DEVICE inline bool select_done(const SelectState& s) { return s.left >= s.right; }

/// The CPU's scans: i stops where !(v > pivot) (a left stop), j where !(v < pivot) (a right stop).
VMAFX_HOST_DEVICE inline bool left_stop(float v, float pivot) { return !(v > pivot); }
VMAFX_HOST_DEVICE inline bool right_stop(float v, float pivot) { return !(v < pivot); }

/// Whether the left stop of rank `rank_a` (1-based from the left) is swapped this round, given
/// `right_after`, the right stops after it (positions (x, right]): a_r < b_r.
VMAFX_HOST_DEVICE inline bool paired(int rank_a, int right_after) { return rank_a <= right_after; }

/// The end of a round (header comment): from s.pairs (M), s.total_a, s.total_b and the stop
/// positions of the round (pos_a[r - 1]: the left stop of rank r; pos_b likewise from the
/// right; read at ranks M and M + 1 only), quick_select's new bounds. Counts the round.
VMAFX_HOST_DEVICE inline void close_round(SelectState& s, const int* pos_a, const int* pos_b) {
    const int m = s.pairs;
    const int a_m = m > 0 ? pos_a[m - 1] : s.left - 1;
    const int b_m = m > 0 ? pos_b[m - 1] : s.right + 1;
    int i = b_m;
    if (m < s.total_a && pos_a[m] < b_m) i = pos_a[m];
    int j = a_m;
    if (m < s.total_b && pos_b[m] > a_m) j = pos_b[m];
    if (i == j) {  // the self-swap of a value equal to the pivot
        ++i;
        --j;
    }
    if (j < s.k) s.left = i;
    if (s.k < i) s.right = j;
    ++s.rounds;
}

/// quick_select's loop from the state s on, sequentially (the CPU's code from the bounds where
/// the rounds left it: the tests end rounds cut short with it, to check the state they leave).
VMAFX_HOST_DEVICE inline void select_finish(float* arr, SelectState& s) {
    int left = s.left, right = s.right;
    const int k = s.k;
    while (left < right) {
        const float pivot = arr[k];
        int i = left, j = right;
        do {
            while (arr[i] > pivot) ++i;
            while (arr[j] < pivot) --j;
            if (i <= j) {
                const float t = arr[i];
                arr[i] = arr[j];
                arr[j] = t;
                ++i;
                --j;
            }
        } while (i <= j);
        if (j < k) left = i;
        if (k < i) right = j;
    }
    s.left = left;
    s.right = right;
}

/// The host's model of the device's rounds (cambi_pool_cuda.cuh), step by step as the kernels
/// take them, with chunks of `chunk` positions (the grid-wide kernels': kSelectChunk), or, for
/// chunk = -t, each round's range in t equal shares (finish_kernel's t threads: chunks of
/// ceil(size / t)): at most `max_rounds` rounds on arr (n values), from state s (select_start).
/// Returns the state (done or not; select_finish ends it).
inline SelectState select_rounds(float* arr, int n, SelectState s, int chunk_or_shares, int max_rounds) {
    std::vector<int> pos_a(static_cast<std::size_t>(n)), pos_b(static_cast<std::size_t>(n));
    for (int round = 0; round < max_rounds && !select_done(s); ++round) {
        const int size = s.right - s.left + 1;
        const int chunk = chunk_or_shares > 0 ? chunk_or_shares : (size - chunk_or_shares - 1) / -chunk_or_shares;
        const int chunks = (size + chunk - 1) / chunk;
        std::vector<int> count_a(static_cast<std::size_t>(chunks)), count_b(static_cast<std::size_t>(chunks));
        const float p0 = arr[s.k];
        // count kernel
        for (int c = 0; c < chunks; ++c) {
            const int lo = s.left + c * chunk, hi = std::min(lo + chunk, s.right + 1);
            for (int x = lo; x < hi; ++x) {
                count_a[static_cast<std::size_t>(c)] += left_stop(arr[x], p0);
                count_b[static_cast<std::size_t>(c)] += right_stop(arr[x], p0);
            }
        }
        // scan kernel
        std::vector<int> base_a(static_cast<std::size_t>(chunks)), base_b(static_cast<std::size_t>(chunks));
        int run = 0;
        for (int c = 0; c < chunks; ++c) base_a[static_cast<std::size_t>(c)] = run, run += count_a[static_cast<std::size_t>(c)];
        s.total_a = run;
        run = 0;
        for (int c = chunks - 1; c >= 0; --c) base_b[static_cast<std::size_t>(c)] = run, run += count_b[static_cast<std::size_t>(c)];
        s.total_b = run;
        s.pivot = arr[s.k];
        s.pairs = 0;
        // rank kernel
        for (int c = 0; c < chunks; ++c) {
            const int lo = s.left + c * chunk, hi = std::min(lo + chunk, s.right + 1);
            int ra = base_a[static_cast<std::size_t>(c)];
            int rb = base_b[static_cast<std::size_t>(c)] + count_b[static_cast<std::size_t>(c)];  // right stops in [x, right]
            for (int x = lo; x < hi; ++x) {
                const bool a = left_stop(arr[x], s.pivot), b = right_stop(arr[x], s.pivot);
                ra += a;
                if (a) {
                    pos_a[static_cast<std::size_t>(ra - 1)] = x;
                    if (paired(ra, rb - b)) s.pairs = std::max(s.pairs, ra);
                }
                if (b) pos_b[static_cast<std::size_t>(rb - 1)] = x;
                rb -= b;
            }
        }
        // swap kernel
        for (int m = 0; m < s.pairs; ++m)
            std::swap(arr[pos_a[static_cast<std::size_t>(m)]], arr[pos_b[static_cast<std::size_t>(m)]]);
        close_round(s, pos_a.data(), pos_b.data());
    }
    return s;
}

}  // namespace vmafx::cambi
