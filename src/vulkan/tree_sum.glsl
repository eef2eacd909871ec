// The workgroup tree sum of the Vulkan shaders, one text for every type: VMAFX_TREE_SUM(T, name,
// tree, group) defines `T name(T v)`, the sum of v over the workgroup's `group` invocations (a
// power of 2; local_size_x) in the pairwise order of a halving tree, returned to every invocation,
// through the shared array `tree` of `group` T. Call from uniform control flow. Exact in any order
// for integers; for floating-point types the tree's order is the result's (the planted
// kReductionOrder sums, SequentialSum's predictions).
#ifndef VMAFX_VULKAN_TREE_SUM_GLSL
#define VMAFX_VULKAN_TREE_SUM_GLSL

#define VMAFX_TREE_SUM(T, name, tree, group)                        \
    T name(T v) {                                                   \
        const uint lid = gl_LocalInvocationID.x;                    \
        tree[lid] = v;                                              \
        barrier();                                                  \
        for (uint s = uint(group) / 2u; s > 0u; s >>= 1u) {         \
            if (lid < s) tree[lid] += tree[lid + s];                \
            barrier();                                              \
        }                                                           \
        const T total = tree[0];                                    \
        barrier(); /* the tree is free for the next call */         \
        return total;                                               \
    }

#endif  // VMAFX_VULKAN_TREE_SUM_GLSL
