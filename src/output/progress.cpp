#include "output/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace vmafx {

namespace {

/// Whole seconds (rounded up, or down when `down`) as m:ss, or h:mm:ss from an hour.
std::string clock_time(double seconds, bool down = false) {
    const double whole = down ? std::floor(seconds) : std::ceil(seconds);
    const auto s = static_cast<unsigned long long>(std::max(0.0, whole));
    if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

std::string format_progress(unsigned done, unsigned total, double seconds, int columns) {
    const double fps = seconds > 0 ? done / seconds : 0.0;
    const bool known = total > 0 && done <= total;
    std::string text;
    if (known) {
        const unsigned percent = static_cast<unsigned>(100.0 * done / total);
        text = fmt::format("  {}/{} frames  {}%  {:.1f} fps", done, total, percent, fps);
        if (done == total)
            text += fmt::format("  {} elapsed", clock_time(seconds, true));
        else if (fps > 0)
            text += fmt::format("  {} left", clock_time((total - done) / fps));
    } else {
        text = fmt::format("{} frame{}  {:.1f} fps  {} elapsed", done, done == 1 ? "" : "s", fps, clock_time(seconds, true));
    }
    const int room = columns - static_cast<int>(text.size()) - 2;  // the brackets
    if (known && room >= 10) {
        const int bar = std::min(room, 40);
        const int filled = static_cast<int>(static_cast<double>(bar) * done / total);
        std::string b(static_cast<std::size_t>(bar), ' ');
        std::fill_n(b.begin(), filled, '=');
        if (filled < bar && filled > 0) b[static_cast<std::size_t>(filled - 1)] = '>';
        text = "[" + b + "]" + text;
    } else if (known) {
        text.erase(0, 2);
    }
    if (columns > 0 && static_cast<int>(text.size()) > columns) text.resize(static_cast<std::size_t>(columns));
    return text;
}

ProgressBar::ProgressBar(std::FILE* out) : out_(out), columns_(80), start_(std::chrono::steady_clock::now()) {
    winsize ws{};
    if (::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns_ = ws.ws_col;
    // Leave the last column free: some terminals wrap when it is written.
    columns_ = std::max(1, columns_ - 1);
    last_draw_ = start_;
}

void ProgressBar::update(unsigned done, unsigned total) {
    done_ = done;
    total_ = total;
    stale_ = true;
    const auto now = std::chrono::steady_clock::now();
    if (!open_ || done == total || now - last_draw_ >= std::chrono::milliseconds(100)) {
        last_draw_ = now;
        draw(std::chrono::duration<double>(now - start_).count());
    }
}

void ProgressBar::finish(bool complete) {
    if (complete && done_ > 0 && total_ != done_) {
        total_ = done_;
        stale_ = true;
    }
    if (stale_ && (open_ || complete)) draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    if (open_) std::fputc('\n', out_);
    std::fflush(out_);
    open_ = false;
}

void ProgressBar::draw(double seconds) {
    std::fprintf(out_, "\r%s\033[K", format_progress(done_, total_, seconds, columns_).c_str());
    std::fflush(out_);
    open_ = true;
    stale_ = false;
}

}  // namespace vmafx
