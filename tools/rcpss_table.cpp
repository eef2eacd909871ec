// Prints the reciprocal-estimate table of this CPU's SSE `rcpss` instruction as the C++ array of
// src/feature/float_adm/rcp_estimate.hpp: for x in [1, 2), rcpss(x)'s significand (its 23 bits,
// of which rcpss sets the top 12) depends only on x's top 12 significand bits, so 4096 entries
// give it. The array in the header was measured on the AMD EPYC (Zen) machines whose upstream
// libvmaf build made ../shared/golden; run this elsewhere to see another CPU's table (Intel's
// differs).  Build and run: g++ -O2 -o rcpss_table tools/rcpss_table.cpp && ./rcpss_table
#include <immintrin.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

int main() {
    std::printf("inline constexpr std::uint16_t kRcpTable[4096] = {");
    for (std::uint32_t k = 0; k < 4096; ++k) {
        // Every significand of the group must give the same estimate (checked, not assumed).
        std::uint32_t first = 0;
        for (std::uint32_t low = 0; low < 2048; ++low) {
            const std::uint32_t bits = (127u << 23) | (k << 11) | low;
            float x;
            std::memcpy(&x, &bits, sizeof x);
            const float r = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
            std::uint32_t rb;
            std::memcpy(&rb, &r, sizeof rb);
            if (low == 0) first = rb;
            if (rb != first || (rb & 0x7ffu) != 0 || (rb >> 23) != 126u) {
                std::fprintf(stderr, "rcpss_table: this CPU's rcpss is not a 4096-entry table (x = %08x)\n", bits);
                return 1;
            }
        }
        std::printf("%s0x%03x", k == 0 ? "\n    " : (k % 12 ? ", " : ",\n    "), (first & 0x7fffffu) >> 11);
    }
    std::printf("};\n");
}
