// Small helpers of the reader tests (test_io.cpp, test_av_reader.cpp): a format from its four
// numbers, and a sample-by-sample comparison of two pictures.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "picture/picture.hpp"

namespace vmafx::test {

inline VideoFormat make_format(int width, int height, Subsampling s, int bit_depth) {
    VideoFormat f;
    f.width = width;
    f.height = height;
    f.subsampling = s;
    f.bit_depth = bit_depth;
    return f;
}

/// Checks that `a` and `b` have the same format and the same samples in every plane.
inline void expect_same_samples(const Picture& a, const Picture& b, const std::string& what) {
    ASSERT_EQ(a.format, b.format) << what;
    for (int p = 0; p < 3; ++p) {
        const Plane& pa = a.planes[p];
        const Plane& pb = b.planes[p];
        ASSERT_EQ(pa.width(), pb.width()) << what;
        ASSERT_EQ(pa.height(), pb.height()) << what;
        const std::size_t row_bytes = static_cast<std::size_t>(pa.width()) * pa.bytes_per_sample();
        for (int y = 0; y < pa.height(); ++y)
            ASSERT_EQ(std::memcmp(pa.row<std::uint8_t>(y), pb.row<std::uint8_t>(y), row_bytes), 0)
                << what << ": plane " << p << " row " << y << " differs";
    }
}

}  // namespace vmafx::test
