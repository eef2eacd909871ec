// The CLI's progress bar: frames done of the frames expected, frames per second and time left,
// redrawn in place on a terminal.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace vmafx {

/// One progress line of at most `columns` characters (no carriage return, no newline):
///
///     [=========>          ]  120/480 frames  25%  45.3 fps  0:08 left
///
/// `done`: frame pairs read; `total`: frame pairs expected (0 when unknown, or when `done`
/// already exceeds it: the bar and the time left are then left out, "120 frames  45.3 fps
/// 0:03 elapsed"); `seconds`: time since the run started (frames per second = done / seconds,
/// the time left = (total - done) / fps rounded up to a whole second, the time elapsed rounded
/// down; h:mm:ss from an hour).
/// The bar shrinks to fit `columns` and is dropped below 10 characters; the text is cut at
/// `columns` where even that does not fit.
std::string format_progress(unsigned done, unsigned total, double seconds, int columns);

/// Draws format_progress() lines on `out` (a terminal), each over the last ("\r" + line +
/// erase to the end of the line), at most every 100 ms (a run scores up to thousands of frames
/// a second) and always for the last frame expected. Columns: the terminal's width
/// (TIOCGWINSZ on `out`), else 80. Not thread-safe: call from one thread at a time.
class ProgressBar {
public:
    explicit ProgressBar(std::FILE* out);
    /// Reports `done` of `total` (as format_progress()); redraws when due.
    void update(unsigned done, unsigned total);
    /// Whether a line was drawn and not yet ended by finish() (an error message printed now
    /// should start with a newline).
    bool open() const { return open_; }
    /// Ends the line. `complete`: the run read every frame it was to read, so the frames done
    /// are the total (an estimate from a container may have been off) and the line is redrawn
    /// that way; otherwise the last state reported is drawn, if not already on screen.
    void finish(bool complete);

private:
    void draw(double seconds);
    std::FILE* out_;
    int columns_;
    std::chrono::steady_clock::time_point start_, last_draw_;
    unsigned done_ = 0, total_ = 0;
    bool open_ = false, stale_ = false;
};

}  // namespace vmafx
