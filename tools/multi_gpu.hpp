// A CLI run on several GPUs (--gpu all, --gpu 0,1; issue 29). A GPU backend runs on one device
// per process (DeviceApi::select_device), so the CLI scores each GPU's part in a process of its
// own: itself, started again with the same command line and VMAFX_GPU_PART naming the part.
// Each part is a contiguous run of frames with the temporal context its metrics declare
// (engine.hpp temporal_context, segment_run), so that the parts' frames are the whole run's; the
// parts' results come back through a pipe (serialize_run) and are stitched (stitch_runs), as
// vmafx.batch stitches its segments.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace vmafx::cli {

/// The GPUs of --gpu SPEC for backend `backend`: "all" (every usable device of the backend, in
/// its order), or indices separated by commas ("0,1"; an index may repeat: two processes then
/// share that GPU). Throws UsageError for anything else; Error for "all" where the backend has no
/// usable device.
std::vector<int> parse_gpu_list(const std::string& spec, const std::string& backend);

/// The part of a multi-GPU run this process scores, from the environment variable
/// VMAFX_GPU_PART that run_on_gpus sets for the processes it starts; nullopt when it is not set.
/// Throws Error when it is malformed.
struct GpuPart {
    int gpu = 0;
    unsigned start = 0, count = 0;  ///< frames [start, start + count) after the run's skips
    bool notices = false;           ///< the first part sends the readers' notices to the run; the others do not
};
std::optional<GpuPart> gpu_part_from_environment();

/// In a part's process: scores `config`'s frames of `part` on its GPU and writes to file
/// descriptor 3, the pipe run_on_gpus reads, its progress (frames done, at most every 50 ms),
/// the first part's notes, and then the run's result (serialize_run), or, where the run
/// throws, the error's message instead, which run_on_gpus prints once for the whole run. Returns the process's exit status
/// (0, or 1 after an error's message); throws Error when the pipe cannot be written.
int run_gpu_part(RunConfig config, const GpuPart& part);

/// Scores `config` on `gpus` (two or more), one process each, started from this program with
/// `argv` (the command line it was given): the frames after the skips are split into one
/// contiguous part per GPU (at most one per frame), each read with its temporal context, and
/// the parts' runs are stitched into the run of the whole video. Every value is the one-GPU
/// run's. Returns nullopt, after telling `notice` why, where the run cannot be split: a stream
/// or a compressed video (the frame count is unknown without decoding it), subsampling, --align
/// pts, --scale-dist, a run-wide value (psnr's aggregates), a damaged tail, or videos whose
/// lengths the single run would refuse; the caller then runs on gpus[0] alone. Reports the
/// frames the parts have scored to config.progress (where set), of the run's frames (a part's
/// context frames not counted). Throws Error where a part fails, naming the part, its
/// frames and GPU, with the part's own message (one line for the run, whatever the parts that
/// would fail the same way); the other parts' processes are then stopped.
std::optional<RunResult> run_on_gpus(const RunConfig& config, const std::vector<int>& gpus, char** argv,
                                     const std::function<void(const std::string&)>& notice);

}  // namespace vmafx::cli
