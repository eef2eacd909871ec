// The inputs of a run (engine.cpp): opening and checking both videos, their frame counts and
// skips, and the damage of regular files.
#include "engine/inputs.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_group.h>

#include "io/av_reader.hpp"

namespace vmafx {

std::string describe(const VideoFormat& f) {
    return fmt::format("{}x{} {} {}-bit", f.width, f.height, subsampling_name(f.subsampling), f.bit_depth);
}

/// Runs `a` and `b` at the same time and waits for both; rethrows `a`'s exception first, as if
/// they had run in turn. Where `threads` is set (a stream is read), `b` gets a thread of its
/// own: a writer feeding both videos (one process writing two pipes) may block on either, so
/// the two reads must really overlap, which oneTBB does not promise when it has one thread.
void concurrently(bool threads, const std::function<void()>& a, const std::function<void()>& b) {
    std::exception_ptr a_error, b_error;
    const auto guarded = [](const std::function<void()>& fn, std::exception_ptr& error) {
        try {
            fn();
        } catch (...) {
            error = std::current_exception();
        }
    };
    if (threads) {
        std::thread other([&] { guarded(b, b_error); });
        guarded(a, a_error);
        other.join();
    } else {
        // Its own context: a cancelled pipeline cannot skip one of the two.
        tbb::task_group_context context(tbb::task_group_context::isolated);
        tbb::parallel_invoke([&] { guarded(a, a_error); }, [&] { guarded(b, b_error); }, context);
    }
    if (a_error) std::rethrow_exception(a_error);
    if (b_error) std::rethrow_exception(b_error);
}

/// The error of videos whose lengths differ (after the skips) without --frame_cnt.
Error length_mismatch(const RunConfig& config, const std::string& ref, std::uint64_t ref_frames,
                      const std::string& dist, std::uint64_t dist_frames) {
    return Error(fmt::format("reference \"{}\" has {} frame{} but distorted \"{}\" has {}{}; use --frame_cnt N "
                             "to score the first N frames of both",
                             ref, ref_frames, ref_frames == 1 ? "" : "s", dist, dist_frames,
                             config.frame_skip_ref || config.frame_skip_dist ? " (after skipping)" : ""));
}

/// The error of a run with nothing to score.
Error no_frames(const std::string& ref, const std::string& dist) {
    return Error(fmt::format("no frames to score in \"{}\" and \"{}\"", ref, dist));
}

/// Frames of a regular file after `skip`, its damaged frame counted as one (in 64 bits: a file
/// of 2^32 - 1 whole frames and a damaged tail has 2^32).
std::uint64_t frames_after(const FrameCount& c, unsigned skip) {
    const std::uint64_t all = std::uint64_t{c.whole} + (c.damage.empty() ? 0u : 1u);
    return all - std::min<std::uint64_t>(all, skip);
}

/// Throws the damage of a regular file when its damaged frame is among frames
/// skip..skip+frames-1, the ones a run scores.
void check_damage(const FrameCount& c, unsigned skip, std::uint64_t frames) {
    if (!c.damage.empty() && skip + frames > c.whole) throw Error(c.damage);
}

/// After a run that scored `frames` frames from `skip`: a damaged tail it did not reach is a
/// warning naming the file and the frame.
void warn_damage(const std::optional<FrameCount>& c, unsigned skip, unsigned frames,
                 std::vector<std::string>& warnings) {
    if (!c || c->damage.empty()) return;
    warnings.push_back(fmt::format("{} (not scored: the run scored frames {} to {})", c->damage, skip,
                                   static_cast<std::uint64_t>(skip) + frames - 1));
}


/// Opens both videos: two streams at once (opening a pipe waits for its writer, and one
/// writer may feed both); otherwise the file first, so that its errors come without waiting
/// for the stream's writer. Throws when the formats differ or both are one stream.
void open_inputs(const RunConfig& config, Inputs& in, const GpuDecode& gpu) {
    // Standard input closed: a file opened now would take descriptor 0 and be read as "-".
    if ((config.reference_path == "-" || config.distorted_path == "-") && ::fcntl(STDIN_FILENO, F_GETFD) < 0)
        throw Error(fmt::format("standard input: cannot read: {}", std::strerror(errno)));
    // Codec threads of decoded videos: --threads (0: one per core, libavcodec's choice).
    const auto open_one = [&](const std::function<std::unique_ptr<VideoReader>()>& open, const std::string& path) {
        if (!open) return open_video(path, config.raw_format, config.threads, gpu, config.decode_sessions);
        std::unique_ptr<VideoReader> r = open();
        if (!r) throw Error(fmt::format("{}: internal: the caller's reader opened nothing", path));
        return r;
    };
    const auto open_ref = [&] { in.ref = open_one(config.open_reference, config.reference_path); };
    const auto open_dist = [&] { in.dist = open_one(config.open_distorted, config.distorted_path); };
    const bool ref_stream = !stream_identity_of(config.reference_path).empty();
    const bool dist_stream = !stream_identity_of(config.distorted_path).empty();
    if (ref_stream && dist_stream) {
        concurrently(true, open_ref, open_dist);
    } else if (ref_stream) {
        open_dist();
        open_ref();
    } else {
        open_ref();
        open_dist();
    }
    const VideoFormat format = in.ref->format();
    const VideoFormat& dist_format = in.dist->format();
    if (dist_format.width != format.width || dist_format.height != format.height) {
        if (config.scale_dist.empty())
            throw Error(fmt::format("reference \"{}\" is {}x{} but distorted \"{}\" is {}x{}: the sizes must match, "
                                    "or add --scale-dist bicubic (or another libswscale algorithm) to scale the "
                                    "distorted video to the reference's size",
                                    in.ref->path(), format.width, format.height, in.dist->path(), dist_format.width,
                                    dist_format.height));
        in.dist = scale_video(std::move(in.dist), format.width, format.height, config.scale_dist);
    }
    for (const VideoReader* r : {in.ref.get(), in.dist.get()}) {
        for (std::string& n : r->notices()) in.notices.push_back(std::move(n));
        if (config.align_pts && !r->frame_interval())
            throw Error(fmt::format("--align pts: \"{}\" has no timestamps or frame rate (raw and y4m video is "
                                    "paired by position only)",
                                    r->path()));
    }
    if (!(in.dist->format() == format))
        throw Error(fmt::format("reference \"{}\" is {} but distorted \"{}\" is {}: they must match",
                                in.ref->path(), describe(format), in.dist->path(), describe(in.dist->format())));
    if (in.ref->is_stream() && in.ref->stream_identity() == in.dist->stream_identity())
        throw Error(fmt::format("reference \"{}\" and distorted \"{}\" are the same stream", in.ref->path(),
                                in.dist->path()));
}

/// Frame counts. Regular files: known now, so that a mismatch or a damaged frame to be scored
/// is reported before scoring, with both numbers; they must agree unless --frame_cnt asks for
/// the common prefix. Streams: read until they end (PairSource checks their lengths). Then
/// skips the frames --frame_skip_ref/_dist ask for.
void count_and_skip(const RunConfig& config, Inputs& in) {
    in.ref_count = in.ref->frame_count();
    in.dist_count = in.dist->frame_count();
    in.limit = config.frame_count ? config.frame_count : UINT_MAX;
    if (in.ref_count && in.dist_count) {
        const FrameCount& rc = *in.ref_count;
        const FrameCount& dc = *in.dist_count;
        if (config.frame_skip_ref > rc.whole) in.ref->skip(config.frame_skip_ref);     // throws
        if (config.frame_skip_dist > dc.whole) in.dist->skip(config.frame_skip_dist);  // throws
        const std::uint64_t ref_frames = frames_after(rc, config.frame_skip_ref);
        const std::uint64_t dist_frames = frames_after(dc, config.frame_skip_dist);
        if (config.frame_count == 0 && !config.align_pts) {
            // Every frame is to be scored: a damaged one is an error, whatever the other video.
            check_damage(rc, config.frame_skip_ref, ref_frames);
            check_damage(dc, config.frame_skip_dist, dist_frames);
            if (ref_frames != dist_frames)
                throw length_mismatch(config, in.ref->path(), ref_frames, in.dist->path(), dist_frames);
        }
        in.limit = static_cast<unsigned>(std::min({std::uint64_t{in.limit}, ref_frames, dist_frames}));
        if (in.limit == 0) throw no_frames(in.ref->path(), in.dist->path());
        check_damage(rc, config.frame_skip_ref, in.limit);
        check_damage(dc, config.frame_skip_dist, in.limit);
    } else if ((in.ref_count || in.dist_count) && config.frame_count == 0 && !config.align_pts) {
        // A regular file beside a stream, every frame to be scored: its damaged frame is an
        // error now, before any picture is allocated or the stream read.
        const bool ref_known = in.ref_count.has_value();
        const FrameCount& c = ref_known ? *in.ref_count : *in.dist_count;
        const unsigned skip = ref_known ? config.frame_skip_ref : config.frame_skip_dist;
        if (skip <= c.whole) check_damage(c, skip, frames_after(c, skip));
    }
    concurrently(
        in.ref->is_stream() || in.dist->is_stream(), [&] { in.ref->skip(config.frame_skip_ref); },
        [&] { in.dist->skip(config.frame_skip_dist); });
}

}  // namespace vmafx
