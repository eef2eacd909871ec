// The four passes of SequentialSum (vulkan/sequential_sum.hpp) as one compute module, the pass
// chosen by a push constant, as cuda/sequential_sum.cu's four kernels do them:
//  0. bounds   (A, a workgroup per chunk and row): pos / neg of the chunk, double, any order;
//  1. base     (B, a workgroup per row): the prefix of the chunk sums (double, any order) and
//              each chunk's SeqBase;
//  2. transfer (C, a workgroup per chunk and row): the chunk's transfers in its candidate
//              binades, each invocation composing kTermsPerThread consecutive terms in order,
//              then a pairwise tree (composition is associative and exact: any grouping gives
//              the same transfer), and from them the walk's data (seq_step);
//  3. walk     (D, a workgroup per row): one invocation walks the chunks in order with the exact
//              running sum (seq_apply), the walk data staged in shared memory a few chunks at a
//              time; a chunk the walk must add one by one is staged by the workgroup in pieces
//              and added by the one invocation (seq_add_term, the CPU's add). A dispatch walks
//              the chunks [walk_begin, walk_end), continuing from the sum the previous one left
//              in the row's output: one dispatch a row on a GPU; on lavapipe, whose loops stop
//              silently after 65535 iterations of an invocation in all (Mesa 22's llvmpipe loop
//              limiter), dispatches of few enough chunks to stay below that.
// Every value comes from gpu/sequential_sum_core.hpp's functions; the passes only index, load,
// store and choose a path (A's and B's sums only predict; seq_step / seq_apply check).
// Chunks beyond the device's workgroup count along x are taken in a stride.
//
// Include after `#version 460`, GL_EXT_shader_explicit_arithmetic_types,
// GL_EXT_buffer_reference, GL_GOOGLE_include_directive, `#define VMAFX_GLSL 1`, and SEQ_ACC
// (double or float), SEQ_BYTES (its size: 8 or 4) and SEQ(name) naming the core's variant
// (name##_d or name##_f).
#include "gpu/sequential_sum_core.hpp"
#include "vulkan/tree_sum.glsl"

#define SEQ_GROUP 256  // kChunk / kTermsPerThread
#define SEQ_WALK 8     // walk data staged at a time
#define SEQ_PIECE 512  // terms of a one-by-one chunk staged at a time
// Four of the CPU's adds, in order, of seq_piece[at .. at + 3] to s.
#define SEQ_ADD4(at)                                           \
    s = SEQ(seq_add_term)(s, seq_piece[(at)]);                 \
    s = SEQ(seq_add_term)(s, seq_piece[(at) + 1u]);            \
    s = SEQ(seq_add_term)(s, seq_piece[(at) + 2u]);            \
    s = SEQ(seq_add_term)(s, seq_piece[(at) + 3u]);

layout(local_size_x = SEQ_GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = SEQ_BYTES) readonly buffer SeqTerms { SEQ_ACC v[]; };
layout(buffer_reference, std430, buffer_reference_align = SEQ_BYTES) buffer SeqSums { SEQ_ACC v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer SeqChunks { SeqChunk c[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer SeqSteps { SeqStep s[]; };

// sequential_sum.cpp's Push, member for member.
layout(push_constant) uniform Push {
    uint64_t terms;  // row b's terms at terms + sizeof(SEQ_ACC) * b * pitch
    uint64_t info;   // SeqChunk per chunk and row (row-major by row)
    uint64_t steps;  // SeqStep per chunk and row
    uint64_t sums;   // one SEQ_ACC per row
    uint32_t n;      // terms a row
    uint32_t pitch;  // terms between rows
    uint32_t chunks; // chunks a row
    int32_t pass;
    uint32_t walk_begin, walk_end;  // pass 3: the chunks this dispatch walks
} pc;

shared double seq_scratch[SEQ_GROUP];
shared SeqTransfer seq_tree[SEQ_GROUP];
shared SeqStep seq_staged[SEQ_WALK];
shared SEQ_ACC seq_piece[SEQ_PIECE];
shared SEQ_ACC seq_running;
shared uint seq_stop;

/// The term i of row `row`.
SEQ_ACC seq_term_at(uint row, uint i) {
    return SeqTerms(pc.terms + uint64_t(row) * uint64_t(pc.pitch) * uint64_t(SEQ_BYTES)).v[i];
}

/// The workgroup's sum of v (double, tree order: a prediction only): seq_block_sum(double v).
/// Uniform control flow.
VMAFX_TREE_SUM(double, seq_block_sum, seq_scratch, SEQ_GROUP)

void seq_bounds_pass() {
    const uint lid = gl_LocalInvocationID.x, row = gl_WorkGroupID.y;
    for (uint j = gl_WorkGroupID.x; j < pc.chunks; j += gl_NumWorkGroups.x) {
        const uint begin = j * uint(kChunk);
        const uint end = min(begin + uint(kChunk), pc.n);
        double pos = 0.0, neg = 0.0;
        for (uint i = begin + lid; i < end; i += SEQ_GROUP) {
            const double v = double(seq_term_at(row, i));
            if (v > 0.0)
                pos += v;
            else if (v < 0.0)
                neg -= v;
            else if (isnan(v))
                pos += v;  // NaN poisons the bounds: never applied
        }
        pos = seq_block_sum(pos);
        neg = seq_block_sum(neg);
        if (lid == 0u) {
            const uint at = row * pc.chunks + j;
            SeqChunks(pc.info).c[at].pos = pos;
            SeqChunks(pc.info).c[at].neg = neg;
            SeqChunks(pc.info).c[at].count = int(end - begin);
        }
    }
}

void seq_base_pass() {
    const uint lid = gl_LocalInvocationID.x, row = gl_WorkGroupID.x;
    const uint first = row * pc.chunks;
    const uint seg = (pc.chunks + SEQ_GROUP - 1u) / SEQ_GROUP;
    const uint begin = min(lid * seg, pc.chunks);
    const uint end = min(begin + seg, pc.chunks);
    double sum = 0.0;
    for (uint j = begin; j < end; ++j) sum += SeqChunks(pc.info).c[first + j].pos - SeqChunks(pc.info).c[first + j].neg;
    seq_scratch[lid] = sum;
    barrier();
    for (uint s = 1u; s < SEQ_GROUP; s <<= 1u) {  // inclusive Hillis-Steele scan
        const double add = lid >= s ? seq_scratch[lid - s] : 0.0;
        barrier();
        seq_scratch[lid] += add;
        barrier();
    }
    double prefix = lid > 0u ? seq_scratch[lid - 1u] : 0.0;
    for (uint j = begin; j < end; ++j) {
        SeqChunks(pc.info).c[first + j].base = seq_base(prefix);
        prefix += SeqChunks(pc.info).c[first + j].pos - SeqChunks(pc.info).c[first + j].neg;
    }
}

void seq_transfer_pass() {
    const uint lid = gl_LocalInvocationID.x, row = gl_WorkGroupID.y;
    for (uint j = gl_WorkGroupID.x; j < pc.chunks; j += gl_NumWorkGroups.x) {
        const uint at = row * pc.chunks + j;
        SeqChunk whole = SeqChunks(pc.info).c[at];
        for (int k = 0; k < kCandidates; ++k) {
            const int e = seq_candidate(whole.base, k);
            SeqTransfer acc = seq_identity();
            if (e == kNoBase || !SEQ(seq_usable_binade)(e)) {
                acc.bad = 1;
            } else {
                const int first = int(lid) * kTermsPerThread;
                for (int i = 0; i < kTermsPerThread && first + i < whole.count; ++i)
                    acc = seq_compose(acc, SEQ(seq_term)(seq_term_at(row, j * uint(kChunk) + uint(first + i)), e,
                                                        whole.base.sigma));
            }
            seq_tree[lid] = acc;
            barrier();
            for (uint stride = 1u; stride < SEQ_GROUP; stride <<= 1u) {
                const uint r = lid * 2u * stride;
                if (r + stride < SEQ_GROUP) seq_tree[r] = seq_compose(seq_tree[r], seq_tree[r + stride]);
                barrier();
            }
            whole.tr[k] = seq_tree[0];
            barrier();  // the tree is free for the next candidate
        }
        if (lid == 0u) SeqSteps(pc.steps).s[at] = SEQ(seq_step)(whole);
    }
}

void seq_walk_pass() {
    const uint lid = gl_LocalInvocationID.x, row = gl_WorkGroupID.x;
    if (lid == 0u) seq_running = pc.walk_begin == 0u ? SEQ_ACC(0.0) : SeqSums(pc.sums).v[row];
    for (uint batch = pc.walk_begin; batch < pc.walk_end; batch += SEQ_WALK) {
        const uint count = min(uint(SEQ_WALK), pc.walk_end - batch);
        barrier();  // the previous batch's staged data is no longer read
        if (lid < count) seq_staged[lid] = SeqSteps(pc.steps).s[row * pc.chunks + batch + lid];
        barrier();
        uint j = 0u;
        while (j < count) {
            if (lid == 0u) {
                SEQ_ACC s = seq_running;
                uint k = j;
                while (k < count && SEQ(seq_apply)(s, seq_staged[k])) ++k;
                seq_running = s;
                seq_stop = k;
            }
            barrier();
            j = seq_stop;
            if (j >= count) break;
            // Chunk batch + j goes one by one, in pieces staged by the workgroup.
            const uint begin = (batch + j) * uint(kChunk);
            const uint end = min(begin + uint(kChunk), pc.n);
            for (uint piece = begin; piece < end; piece += SEQ_PIECE) {
                const uint length = min(uint(SEQ_PIECE), end - piece);
                for (uint i = lid; i < length; i += SEQ_GROUP) seq_piece[i] = seq_term_at(row, piece + i);
                barrier();
                if (lid == 0u) {
                    // Sixteen terms a loop iteration, in order: fewer iterations against
                    // lavapipe's loop limiter (see the head), and less loop overhead.
                    SEQ_ACC s = seq_running;
                    uint i = 0u;
                    for (; i + 16u <= length; i += 16u) {
                        SEQ_ADD4(i) SEQ_ADD4(i + 4u) SEQ_ADD4(i + 8u) SEQ_ADD4(i + 12u)
                    }
                    for (; i < length; ++i) s = SEQ(seq_add_term)(s, seq_piece[i]);
                    seq_running = s;
                }
                barrier();  // seq_piece and seq_running before the next piece or step
            }
            ++j;
        }
    }
    barrier();
    if (lid == 0u) SeqSums(pc.sums).v[row] = seq_running;
}

void main() {
    if (pc.pass == 0)
        seq_bounds_pass();
    else if (pc.pass == 1)
        seq_base_pass();
    else if (pc.pass == 2)
        seq_transfer_pass();
    else
        seq_walk_pass();
}
