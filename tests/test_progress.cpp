// The CLI's progress line (src/output/progress.*): its text for known and unknown totals, the
// time left, narrow terminals.
#include <gtest/gtest.h>

#include "output/progress.hpp"

namespace {

using vmafx::format_progress;

TEST(Progress, KnownTotalShowsBarCountPercentRateAndTimeLeft) {
    // 120 of 480 in 4 s: 30 fps, 360 frames left = 12 s. The text takes 42 columns, the bar the
    // other 38 (36 inside the brackets, a quarter of them filled).
    const std::string line = format_progress(120, 480, 4.0, 80);
    EXPECT_EQ(line, "[========>                           ]  120/480 frames  25%  30.0 fps  0:12 left");
    EXPECT_EQ(line.size(), 80u);
    // A wide terminal: the bar stops at 40.
    EXPECT_EQ(format_progress(120, 480, 4.0, 200),
              "[=========>                              ]  120/480 frames  25%  30.0 fps  0:12 left");
}

TEST(Progress, LastFrameShowsElapsedTime) {
    EXPECT_EQ(format_progress(480, 480, 75.5, 80),
              "[=================================]  480/480 frames  100%  6.4 fps  1:15 elapsed");
}

TEST(Progress, TimeLeftFromAnHourHasHours) {
    // 1 fps, 3723 frames left.
    EXPECT_NE(format_progress(10, 3733, 10.0, 120).find("1:02:03 left"), std::string::npos);
}

TEST(Progress, UnknownTotalOrOverrunDropsTheBar) {
    EXPECT_EQ(format_progress(1, 0, 0.5, 80), "1 frame  2.0 fps  0:00 elapsed");
    EXPECT_EQ(format_progress(500, 480, 10.0, 80), "500 frames  50.0 fps  0:10 elapsed");
}

TEST(Progress, NoTimeLeftBeforeAnyRate) {
    EXPECT_EQ(format_progress(0, 100, 0.0, 30), "0/100 frames  0%  0.0 fps");
}

TEST(Progress, NarrowTerminalShrinksThenDropsTheBarThenCuts) {
    // The text takes 41 columns: 13 leave a bar of 11, half filled.
    EXPECT_EQ(format_progress(50, 100, 1.0, 54), "[====>      ]  50/100 frames  50%  50.0 fps  0:01 left");
    EXPECT_EQ(format_progress(50, 100, 1.0, 40), "50/100 frames  50%  50.0 fps  0:01 left");
    EXPECT_EQ(format_progress(50, 100, 1.0, 10), "50/100 fra");
}

}  // namespace
