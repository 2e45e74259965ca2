// Scoring a reference/distorted pair: the frame pipeline.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "exactvmaf/io.hpp"
#include "exactvmaf/scores.hpp"

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

// cpu: the reference. cuda: every feature on the GPU (a feature without a
// CUDA version is an error naming it). automatic: cuda when a usable device
// exists and every requested feature has a CUDA version, else the whole run
// on the cpu, with one warning saying why.
enum class Backend { cpu, cuda, automatic };
const char* backend_name(Backend b);  // "cpu", "cuda", "auto"

// How the CUDA kernels evaluate R's fp64 islands (docs/fp64-free.md). on: the
// device's fp64. off: fp32 operations only (fp32 pairs with an error bound,
// undecided islands replayed in integer binary64), for devices whose fp64 is
// slow or absent; a feature without such kernels is then an error. automatic:
// off where the device's fp32:fp64 throughput ratio is above 8 (features
// without fp64-free kernels then use their fp64 ones). Same bits every way.
enum class DeviceFp64 { automatic, on, off };
const char* device_fp64_name(DeviceFp64 d);  // "auto", "on", "off"
// The inverse of device_fp64_name, shared by every place that takes the
// option. Throws Error "OPTION: expected auto, on or off" for anything else;
// `option` is how the value was given ({} is the value), as backend_option.
DeviceFp64 parse_device_fp64(std::string_view name, std::string_view option = "--device_fp64 {}");

// --gpu's value: "all" (every usable device: an empty list), one index, or
// indices separated by commas ("0,1"; one may repeat). Throws Error
// "OPTION: expected ..." otherwise; `option` as in parse_device_fp64.
std::vector<int> parse_gpu_list(std::string_view text, std::string_view option = "--gpu {}");

struct Progress {
  std::uint64_t frames_done = 0;
  std::uint64_t frames_total = 0;  // 0 when unknown (pipes)
  double seconds = 0;
};

struct RunOptions {
  unsigned threads = 0;           // worker threads; 0: one per hardware thread (cuda: frames in flight per gpus entry, 0: 4)
  unsigned subsample = 1;         // output and pool every N-th frame
  std::uint64_t frame_cnt = 0;    // 0: all frames
  std::uint64_t frame_skip_ref = 0;
  std::uint64_t frame_skip_dist = 0;
  Backend backend = Backend::cpu;
  // How the backend was asked for, in messages ({} is its name): the CLI's
  // --backend, the libvmaf API's EXACTVMAF_BACKEND=...
  std::string backend_option = "--backend {}";
  // CUDA devices (--gpu). With several, frames are spread over them, each
  // entry with its own worker threads (`threads` frames in flight each) and
  // streams, results committed in frame order: the same bits as one. An index
  // may repeat (two entries sharing one GPU). Empty: every usable device.
  std::vector<int> gpus = {0};
  bool cuda_graphs = true;        // replay each thread's captured launch chain; false: launch directly
  // cuda: time each frame's upload and kernels with device events (into
  // RunResult; costs a little throughput).
  bool cuda_timing = false;
  // cuda: previous frames (motion's earlier reference, ...) copied on the
  // device from a ring of recent frames that every thread on that GPU
  // shares, instead of uploaded again by each thread (same bits either way).
  bool cuda_history_ring = true;
  DeviceFp64 device_fp64 = DeviceFp64::automatic;  // --device_fp64
  // cuda and automatic: while the CUDA driver and context start (~0.2 s
  // before a process's first CUDA run), CPU threads score the first frames
  // (the same bits) and hand over once the device is ready
  // (RunResult::cpu_head_frames). Only for inputs in host memory, a list of
  // devices (not "all"), and when the driver has not started in this
  // process already. false: the run waits for the device.
  bool cpu_while_cuda_starts = false;
  // Frame buffers read ahead per input beyond what the workers hold.
  unsigned read_ahead = 0;        // 0: chosen from threads
  std::function<void(const Progress&)> on_progress;  // called from the pipeline thread
  std::function<void(const std::string&)> on_warning; // one line, no newline
};

struct RunResult {
  ScoreTable scores;
  std::uint64_t frames = 0;       // frame pairs processed
  double seconds = 0;             // wall time from first read to flush
  double fps = 0;                 // frames / seconds, as libvmaf reports it
  VideoFormat format;
  unsigned threads = 0;           // worker threads actually used (cuda: over every gpus entry)
  Backend backend = Backend::cpu; // the backend that ran (cpu or cuda)
  // With RunOptions::cuda_timing: device milliseconds summed over frames
  // (and over the threads' streams, which overlap).
  double cuda_upload_ms = 0, cuda_kernel_ms = 0;
  // cuda: frames a feature's CUDA worker computed on the host instead (an
  // overflowing queue of undecided samples, a frame-wide fallback), summed
  // over features. 0 on ordinary content.
  std::uint64_t cuda_host_frames = 0;
  // cuda: frames decoded on the GPU (--hwdec cuda) whose samples were copied
  // to the host for a host step (an undecided sample, a host fallback).
  std::uint64_t cuda_host_downloads = 0;
  // cuda: history frames the threads copied from the GPU's ring, and those
  // they uploaded (the ring off, or a frame it did not hold).
  std::uint64_t cuda_history_on_device = 0, cuda_history_uploaded = 0;
  // cuda: the devices that ran (RunOptions::gpus, "all" resolved) and the
  // frames each of these entries scored.
  std::vector<int> cuda_gpus;
  std::vector<std::uint64_t> cuda_gpu_frames;
  // The first frames, scored on CPU threads while the device started
  // (RunOptions::cpu_while_cuda_starts); with cuda the others are in
  // cuda_gpu_frames, after an `auto` fallback the cpu workers scored them.
  std::uint64_t cpu_head_frames = 0;
  // cuda: whether the kernels ran fp64-free (DeviceFp64), and their island
  // counts: evaluated on fp32 pairs, of those replayed in integer binary64,
  // evaluated in integer binary64 directly.
  bool cuda_fp32pair = false;
  std::uint64_t cuda_pair_islands = 0, cuda_replays = 0, cuda_exact_islands = 0;
  // cuda, fp32pair: samples (ciede pixels) the device left undecided and the
  // host recomputed with R's functions.
  std::uint64_t cuda_host_samples = 0;
};

// Runs every requested feature over both inputs. Throws Error for bad input
// (mismatched formats, read errors) with a one-line message.
RunResult run(VideoReader& ref, VideoReader& dist, std::vector<FeatureRequest> features,
              const RunOptions& opts);

}  // namespace exactvmaf

#pragma GCC visibility pop
