// The inputs of a run, internal to src/engine (engine.cpp): both videos opened and checked
// against each other (open_inputs), their frame counts and skips (count_and_skip), the frame
// pairs read in order (PairSource), and the damage of regular files.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "engine/engine.hpp"
#include "io/video_reader.hpp"

namespace vmafx {

/// "WxH SUBSAMPLING B-bit", for messages.
std::string describe(const VideoFormat& f);

/// Runs `a` and `b` at the same time and waits for both; rethrows `a`'s exception first, as if
/// they had run in turn. Where `threads` is set (a stream is read), `b` gets a thread of its
/// own: a writer feeding both videos (one process writing two pipes) may block on either, so
/// the two reads must really overlap, which oneTBB does not promise when it has one thread.
void concurrently(bool threads, const std::function<void()>& a, const std::function<void()>& b);
/// The error of videos whose lengths differ (after the skips) without --frame_cnt.
Error length_mismatch(const RunConfig& config, const std::string& ref, std::uint64_t ref_frames,
                      const std::string& dist, std::uint64_t dist_frames);
/// The error of a run with nothing to score.
Error no_frames(const std::string& ref, const std::string& dist);

/// Frames of a regular file after `skip`, its damaged frame counted as one.
std::uint64_t frames_after(const FrameCount& c, unsigned skip);
/// Throws the damage of a regular file when its damaged frame is among frames
/// skip..skip+frames-1, the ones a run scores.
void check_damage(const FrameCount& c, unsigned skip, std::uint64_t frames);
/// After a run that scored `frames` frames from `skip`: a damaged tail it did not reach is a
/// warning naming the file and the frame.
void warn_damage(const std::optional<FrameCount>& c, unsigned skip, unsigned frames,
                 std::vector<std::string>& warnings);

/// The frame pairs of a run, read in order: frame i of both videos at once, until `limit`
/// pairs or the end of either video.
class PairSource {
public:
    PairSource(const RunConfig& config, VideoReader& ref, VideoReader& dist, unsigned limit)
        : config_(config), ref_(ref), dist_(dist), limit_(limit), threads_(ref.is_stream() || dist.is_stream()) {}

    /// Whether next() is known to return false: `limit` reached, or a video ended.
    bool exhausted() const { return count_ == limit_ || ended_; }

    /// Reads the next pair into `ref` and `dist` (the planes `which`). Returns false when the
    /// run has no more pairs: `limit` reached, or one video or both ended.
    bool next(Picture& ref, Picture& dist, PlaneSet which) {
        if (exhausted()) return false;
        if (config_.align_pts) return next_by_time(ref, dist, which);
        bool ref_ok = false, dist_ok = false;
        concurrently(
            threads_, [&] { ref_ok = ref_.read(ref, which); }, [&] { dist_ok = dist_.read(dist, which); });
        return counted(ref_ok, dist_ok);
    }

    /// Whether pairs can be taken in order (take) and read out of order, from several threads
    /// at once (read_taken): both videos regular raw files (VideoReader::reads_ahead), no
    /// --align pts.
    bool reads_ahead() const { return !config_.align_pts && ref_.reads_ahead() && dist_.reads_ahead(); }

    /// With reads_ahead(): counts the next pair as next() would, without reading it. Returns
    /// its index (pairs from 0), or std::nullopt where next() would have returned false (the
    /// limit, or a video's end); throws the damage next() would have thrown, the reference's
    /// first.
    std::optional<unsigned> take() {
        if (exhausted()) return std::nullopt;
        const unsigned k = count_;
        const bool ref_ok = ref_.has_frame_ahead(k);
        const bool dist_ok = dist_.has_frame_ahead(k);
        if (!counted(ref_ok, dist_ok)) return std::nullopt;
        return k;
    }

    /// Reads pair `k`, one take() returned, into `ref` and `dist` (the planes `which`), the two
    /// videos at once; from any thread, several pairs at once. Throws as next() would.
    void read_taken(unsigned k, Picture& ref, Picture& dist, PlaneSet which) const {
        concurrently(
            false, [&] { ref_.read_ahead(k, ref, which); }, [&] { dist_.read_ahead(k, dist, which); });
    }

    /// Pairs read (or taken) so far.
    unsigned count() const { return count_; }

    /// Whether both videos decode on GPU backend `backend`'s device and leave their frames there
    /// (VideoReader::decoder(), has_surfaces()), so that next_surfaces() can read them; never
    /// with --align pts (next() reads those pairs).
    bool on_device(const std::string& backend) const {
        return !config_.align_pts && ref_.decoder() == backend && dist_.decoder() == backend &&
               ref_.has_surfaces() && dist_.has_surfaces();
    }

    /// next() for videos that decode on the GPU (on_device()): the next pair as the decoders'
    /// surfaces on the device (VideoReader::read_surface).
    bool next_surfaces(DeviceSurface& ref, DeviceSurface& dist) {
        if (exhausted()) return false;
        bool ref_ok = false, dist_ok = false;
        concurrently(
            threads_, [&] { ref_ok = ref_.read_surface(ref); }, [&] { dist_ok = dist_.read_surface(dist); });
        return counted(ref_ok, dist_ok);
    }

    /// Pairs the run is expected to read, for progress display and the GPU ring's first
    /// allocations (an estimate): `limit` capped by what each
    /// reader expects after its skip; 0 when unknown.
    unsigned expected() const {
        std::uint64_t n = limit_;
        const auto cap = [&n](const VideoReader& r, unsigned skipped) {
            if (const auto e = r.expected_frames()) n = std::min<std::uint64_t>(n, *e > skipped ? *e - skipped : 0);
        };
        cap(ref_, config_.frame_skip_ref);
        cap(dist_, config_.frame_skip_dist);
        return n == UINT_MAX ? 0u : static_cast<unsigned>(n);
    }

    /// With --align pts: a warning counting the frames dropped for want of a partner, or empty.
    std::string alignment_warning() const {
        if (!config_.align_pts || (dropped_ref_ == 0 && dropped_dist_ == 0)) return {};
        return fmt::format("--align pts: {} frame{} of reference \"{}\" and {} of distorted \"{}\" had no frame "
                           "of the other within {:.3f} ms and were not scored ({} pair{} scored)",
                           dropped_ref_, dropped_ref_ == 1 ? "" : "s", ref_.path(), dropped_dist_, dist_.path(),
                           tolerance_ * 1e3, count_, count_ == 1 ? "" : "s");
    }

    /// After the last pair: unless --frame_cnt asked for a common prefix (or --align pts pairs
    /// by time), throws when one video ended before the other, naming both counts (a stream
    /// that is longer is read to its end to count its frames); throws when there was no pair
    /// at all.
    void finish() {
        if (config_.align_pts) {
            if (count_ == 0) throw no_frames(ref_.path(), dist_.path());
            return;
        }
        if (config_.frame_count || (!ref_longer_ && !dist_longer_)) {
            if (count_ == 0) throw no_frames(ref_.path(), dist_.path());
            return;
        }
        VideoReader& longer = ref_longer_ ? ref_ : dist_;
        const unsigned skipped = ref_longer_ ? config_.frame_skip_ref : config_.frame_skip_dist;
        std::uint64_t more = 1;  // the frame read with the other's end
        if (const auto c = longer.frame_count()) {
            more = c->whole + (c->damage.empty() ? 0u : 1u) - skipped - count_;
        } else {
            Picture scratch;
            while (longer.read(scratch, PlaneSet::kLuma)) ++more;
        }
        const std::uint64_t ref_frames = ref_longer_ ? count_ + more : count_;
        const std::uint64_t dist_frames = dist_longer_ ? count_ + more : count_;
        throw length_mismatch(config_, ref_.path(), ref_frames, dist_.path(), dist_frames);
    }

private:
    /// After reading frame `count_` of both videos (whether each had one): counts the pair, or
    /// notes the end and which video still had a frame.
    bool counted(bool ref_ok, bool dist_ok) {
        if (ref_ok && dist_ok) {
            ++count_;
            return true;
        }
        ended_ = true;
        ref_longer_ = ref_ok;
        dist_longer_ = dist_ok;
        return false;
    }

    /// next() with --align pts: reads on from whichever video is behind, dropping its frame,
    /// until the two frames in hand are within tolerance_ of each other; at either video's end
    /// the other's remaining frames are dropped (read to its end to count them, unless the
    /// limit was reached).
    bool next_by_time(Picture& ref, Picture& dist, PlaneSet which) {
        if (tolerance_ < 0) {
            const auto interval = [](const VideoReader& r) {
                if (!r.frame_interval())
                    throw Error(fmt::format("--align pts: \"{}\" has no timestamps or frame rate (raw and y4m video "
                                            "is paired by position only)",
                                            r.path()));
                return *r.frame_interval();
            };
            tolerance_ = std::min(interval(ref_), interval(dist_)) / 2;
        }
        bool need_ref = true, need_dist = true;
        bool ref_ok = true, dist_ok = true;
        for (;;) {
            if (need_ref && need_dist) {
                concurrently(
                    threads_, [&] { ref_ok = ref_.read(ref, which); }, [&] { dist_ok = dist_.read(dist, which); });
            } else if (need_ref) {
                ref_ok = ref_.read(ref, which);
            } else if (need_dist) {
                dist_ok = dist_.read(dist, which);
            }
            need_ref = need_dist = false;
            if (!ref_ok || !dist_ok) {
                ended_ = true;
                // The other video's frame in hand and the rest of it have no partner.
                VideoReader& other = ref_ok ? ref_ : dist_;
                unsigned& dropped = ref_ok ? dropped_ref_ : dropped_dist_;
                if (ref_ok || dist_ok) {
                    Picture scratch;
                    for (++dropped; other.read(scratch, PlaneSet::kLuma);) ++dropped;
                }
                return false;
            }
            const double tr = ref_.timestamp().value_or(0.0), td = dist_.timestamp().value_or(0.0);
            if (std::abs(tr - td) < tolerance_) {
                ++count_;
                return true;
            }
            if (tr < td) {
                ++dropped_ref_;
                need_ref = true;
            } else {
                ++dropped_dist_;
                need_dist = true;
            }
        }
    }

    const RunConfig& config_;
    VideoReader& ref_;
    VideoReader& dist_;
    unsigned limit_;
    double tolerance_ = -1;                      ///< --align pts: seconds (set at the first pair)
    unsigned dropped_ref_ = 0, dropped_dist_ = 0;  ///< --align pts: frames without a partner
    bool threads_;
    unsigned count_ = 0;
    bool ended_ = false;
    bool ref_longer_ = false, dist_longer_ = false;  ///< which one still had a frame at the end
};

/// The two videos of a run, opened and checked against each other, their known frame counts
/// (regular files) and the number of pairs to score at most.
struct Inputs {
    std::unique_ptr<VideoReader> ref, dist;
    std::optional<FrameCount> ref_count, dist_count;
    unsigned limit = UINT_MAX;
    std::vector<std::string> notices;  ///< the readers' (VideoReader::notices())
};

/// Opens both videos: two streams at once (opening a pipe waits for its writer, and one
/// writer may feed both); otherwise the file first, so that its errors come without waiting
/// for the stream's writer. Compressed videos decode where `gpu` says (empty: on the CPU).
/// Throws when the formats differ or both are one stream.
void open_inputs(const RunConfig& config, Inputs& in, const GpuDecode& gpu = {});

/// Frame counts. Regular files: known now, so that a mismatch or a damaged frame to be scored
/// is reported before scoring, with both numbers; they must agree unless --frame_cnt asks for
/// the common prefix. Streams: read until they end (PairSource checks their lengths). Then
/// skips the frames --frame_skip_ref/_dist ask for.
void count_and_skip(const RunConfig& config, Inputs& in);

}  // namespace vmafx
