// PairSource's reading ahead (engine/inputs.hpp: take, read_taken), which the GPU pipeline uses
// for regular raw files: the same pairs, counts, ends and errors as next(), with pairs read out
// of order from several threads.
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "engine/inputs.hpp"
#include "io/video_reader.hpp"
#include "picture_checks.hpp"
#include "test_support.hpp"

namespace vmafx {
namespace {

using test::error_of;
using test::expect_same_samples;
using test::make_format;
using test::random_pictures;
using test::raw_bytes;

using PairSourceTest = test::TempDirTest;

std::string bytes_of(const std::vector<Picture>& pics, std::size_t first, std::size_t count) {
    std::string out;
    for (std::size_t i = first; i < first + count; ++i) out += raw_bytes(pics[i]);
    return out;
}

// Reference of 5 frames, distorted of 4 (another content), skips and a --frame_cnt: every pair
// taken is read, out of order and from threads, as next() reads it in order, and the run ends
// where next()'s does.
TEST_F(PairSourceTest, TakenPairsAreTheSequentialPairs) {
    const VideoFormat format = make_format(1030, 600, Subsampling::k420, 10);  // planes above 512 KiB
    const auto refs = random_pictures(format, 5, 11);
    const auto dists = random_pictures(format, 4, 12);
    const std::string ref_path = write("ref.yuv", bytes_of(refs, 0, 5));
    const std::string dist_path = write("dist.yuv", bytes_of(dists, 0, 4));
    struct Case {
        unsigned skip_ref, skip_dist, limit, pairs;
    };
    for (const Case c : {Case{0, 0, 2, 2}, Case{1, 0, 10, 4}, Case{2, 1, 10, 3}, Case{0, 1, 3, 3}}) {
        const std::string what = "skips " + std::to_string(c.skip_ref) + ", " + std::to_string(c.skip_dist) +
                                 ", limit " + std::to_string(c.limit);
        RunConfig config;
        config.frame_count = c.limit;
        auto ref = open_video(ref_path, format);
        auto dist = open_video(dist_path, format);
        ref->skip(c.skip_ref);
        dist->skip(c.skip_dist);
        PairSource pairs(config, *ref, *dist, c.limit);
        ASSERT_TRUE(pairs.reads_ahead()) << what;
        std::vector<unsigned> taken;
        while (const std::optional<unsigned> k = pairs.take()) taken.push_back(*k);
        ASSERT_EQ(taken.size(), c.pairs) << what;
        EXPECT_EQ(pairs.count(), c.pairs) << what;
        EXPECT_TRUE(pairs.exhausted()) << what;
        std::vector<Picture> r(c.pairs), d(c.pairs);
        std::vector<std::thread> threads;
        for (auto it = taken.rbegin(); it != taken.rend(); ++it)
            threads.emplace_back([&, k = *it] { pairs.read_taken(k, r[k], d[k], PlaneSet::kAll); });
        for (auto& t : threads) t.join();
        for (unsigned k = 0; k < c.pairs; ++k) {
            EXPECT_EQ(taken[k], k) << what;
            expect_same_samples(r[k], refs[c.skip_ref + k], what + ": reference of pair " + std::to_string(k));
            expect_same_samples(d[k], dists[c.skip_dist + k], what + ": distorted of pair " + std::to_string(k));
        }
        pairs.finish();  // a --frame_cnt run: a common prefix, no length check
    }
}

// Without --frame_cnt, videos of different lengths: finish() names both lengths, as after
// next(); a damaged frame among those scored is thrown by take(), as next() throws it.
TEST_F(PairSourceTest, EndsAndDamageAsNext) {
    const VideoFormat format = make_format(8, 6, Subsampling::k444, 8);
    const auto pics = random_pictures(format, 4, 13);
    const std::string ref_path = write("ref.yuv", bytes_of(pics, 0, 4));
    const std::string dist_path = write("dist.yuv", bytes_of(pics, 0, 3));
    const auto finish_error = [&](bool ahead) {
        RunConfig config;
        auto ref = open_video(ref_path, format);
        auto dist = open_video(dist_path, format);
        PairSource pairs(config, *ref, *dist, UINT_MAX);
        Picture r, d;
        if (ahead) {
            while (pairs.take()) {
            }
        } else {
            while (pairs.next(r, d, PlaneSet::kAll)) {
            }
        }
        EXPECT_EQ(pairs.count(), 3u);
        return error_of([&] { pairs.finish(); });
    };
    const std::string sequential = finish_error(false);
    EXPECT_NE(sequential.find("has 4 frames"), std::string::npos) << sequential;
    EXPECT_EQ(finish_error(true), sequential);

    const std::string damaged = write("damaged.yuv", bytes_of(pics, 0, 2) + "xyz");
    RunConfig config;
    auto ref = open_video(damaged, format);
    auto dist = open_video(dist_path, format);
    PairSource pairs(config, *ref, *dist, UINT_MAX);
    ASSERT_TRUE(pairs.take());
    ASSERT_TRUE(pairs.take());
    const std::string thrown = error_of([&] { pairs.take(); });
    EXPECT_NE(thrown.find("frame 2 is truncated"), std::string::npos) << thrown;
    EXPECT_NE(thrown.find(damaged), std::string::npos) << thrown;
}

// y4m files, and --align pts, are read in order only.
TEST_F(PairSourceTest, Y4mIsReadInOrder) {
    const VideoFormat format = make_format(6, 4, Subsampling::k420, 8);
    const auto pics = random_pictures(format, 1, 14);
    const std::string y4m = write("one.y4m", "YUV4MPEG2 W6 H4 C420jpeg\nFRAME\n" + raw_bytes(pics[0]));
    const std::string raw = write("one.yuv", raw_bytes(pics[0]));
    RunConfig config;
    auto a = open_video(y4m, std::nullopt);
    auto b = open_video(raw, format);
    EXPECT_FALSE(PairSource(config, *a, *b, UINT_MAX).reads_ahead());
    auto c = open_video(raw, format);
    EXPECT_TRUE(PairSource(config, *b, *c, UINT_MAX).reads_ahead());
    config.align_pts = true;
    EXPECT_FALSE(PairSource(config, *b, *c, UINT_MAX).reads_ahead());
}

}  // namespace
}  // namespace vmafx
