// The feature side of the CUDA backend: what a feature implements to run on
// the device. This header includes no CUDA header (a CPU-only build compiles
// it too); cudaStream_t is spelled by its definition, CUstream_st*.
//
// Per pipeline thread and frame the backend uploads the planes the features
// asked for (once for all of them) into fixed device buffers, then replays
// one CUDA graph captured from the features' enqueue() calls, waits for the
// stream, and calls finish() on the host. See docs/cuda.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "exactvmaf/error.hpp"
#include "exactvmaf/feature.hpp"
#include "exactvmaf/format.hpp"

struct CUstream_st;

namespace exactvmaf::cuda {

using Stream = CUstream_st*;  // == cudaStream_t

// One plane on the device: libvmaf's picture size (VideoFormat::picture_width
// / picture_height), uint8_t samples at 8 bits, else uint16_t; pitch in bytes.
struct DevicePlane {
  const std::uint8_t* data = nullptr;
  std::size_t pitch = 0;
  unsigned width = 0, height = 0;
};

struct DevicePicture {
  DevicePlane plane[3];
};

// Previous frames a feature can ask for (FeatureExtractor::history()).
inline constexpr unsigned kMaxHistory = 4;

// Bit p: plane p (0 luma, 1 and 2 chroma).
inline constexpr std::uint8_t kLuma = 1u, kChroma = 6u, kAllPlanes = 7u;

// The planes a worker reads; the union over a run's features is uploaded.
struct PlaneNeeds {
  std::uint8_t ref = 0, dist = 0;            // of the current frame
  std::uint8_t prev_ref = 0, prev_dist = 0;  // of each history frame
  PlaneNeeds& operator|=(const PlaneNeeds& o) {
    ref |= o.ref;
    dist |= o.dist;
    prev_ref |= o.prev_ref;
    prev_dist |= o.prev_dist;
    return *this;
  }
  bool any_history() const { return prev_ref || prev_dist; }
};

// How device code evaluates R's fp64 islands (docs/fp64-free.md): in the
// hardware's fp64, or with fp32 operations only (pairs with an error bound,
// undecided islands replayed in integer binary64).
enum class DeviceArith { fp64, fp32pair };

// Islands a worker's fp32pair kernels evaluated on pairs, those of them
// replayed in Sf64, and those evaluated in Sf64 directly (a run's sums).
struct DeviceArithCounts {
  std::uint64_t pair_islands = 0, replays = 0, exact_islands = 0;
  std::uint64_t host_samples = 0;  // samples the fp64-free kernels left to R's functions on the host
  DeviceArithCounts& operator+=(const DeviceArithCounts& o) {
    pair_islands += o.pair_islands;
    replays += o.replays;
    exact_islands += o.exact_islands;
    host_samples += o.host_samples;
    return *this;
  }
};

// The device buffers of one pipeline thread. They are the same for every
// frame that thread processes (a captured graph keeps their addresses); only
// the planes some feature asked for are valid (the others are null).
// prev_ref[k] / prev_dist[k] is the frame k + 1 before the current one; at the
// start of the clip they hold stale or zeroed samples (finish() knows the
// frame index and decides).
struct DeviceFrame {
  VideoFormat format;
  DevicePicture ref, dist;
  DevicePicture prev_ref[kMaxHistory], prev_dist[kMaxHistory];
  unsigned history = 0;  // slots with buffers
  // The arithmetic of the run's kernels: every worker whose kernels hold
  // fp64 islands has both variants (motion's and cambi's have none).
  DeviceArith arith = DeviceArith::fp64;
};

// The PlaneNeeds of a feature that reads the reference and distorted luma.
inline PlaneNeeds luma_pair_needs() {
  PlaneNeeds n;
  n.ref = kLuma;
  n.dist = kLuma;
  return n;
}

// The PlaneNeeds of a feature that reads all three planes of both pictures.
inline PlaneNeeds all_planes_needs() {
  PlaneNeeds n;
  n.ref = kAllPlanes;
  n.dist = kAllPlanes;
  return n;
}

// setup()'s check that both luma planes are on the device at w x h; an
// internal error (the backend's bug, not the input's) naming the feature.
inline void require_luma_pair(const DeviceFrame& frame, unsigned w, unsigned h, const char* feature) {
  const DevicePlane &ref = frame.ref.plane[0], &dis = frame.dist.plane[0];
  if (!ref.data || !dis.data || ref.width != w || ref.height != h || dis.width != w || dis.height != h)
    throw InternalError("internal: " + std::string(feature) + "'s CUDA worker did not get both luma planes at " +
                std::to_string(w) + "x" + std::to_string(h) + " on the device");
}

// A feature's per-thread CUDA state; made by FeatureExtractor::make_cuda_worker()
// after init(), used by one pipeline thread (its current device is set).
class FeatureWorker {
 public:
  virtual ~FeatureWorker() = default;
  // Planes this worker reads (luma only for adm, vif and motion). The backend
  // also uploads history frames up to the extractor's history().
  virtual PlaneNeeds planes() const = 0;
  // Once, before the first frame: allocate device scratch and the pinned host
  // buffer for the results. May allocate and synchronise.
  virtual void setup(const DeviceFrame& frame, Stream stream) = 0;
  // Puts one frame's work on `stream`. Must be capturable into a CUDA graph:
  // no allocation, no synchronisation, no host value that changes per frame
  // (the same `frame` every time); results go to the worker's pinned buffer
  // with cudaMemcpyAsync inside this call.
  virtual void enqueue(const DeviceFrame& frame, Stream stream) = 0;
  // After the stream completed: the host tail (R's functions for pow/log per
  // frame) and the outputs, as the CPU worker's extract() sets them. `in`
  // has the frame index and the host pictures (current and history).
  virtual void finish(const FrameInput& in, FrameOutput& out) = 0;
  // Frames finish() computed on the host instead of taking the device's
  // results (an undecided-sample queue that overflowed, a frame-wide
  // fallback). Counted so that a run (RunResult::cuda_host_frames) and the
  // CUDA tests can tell a device result from a host recomputation.
  virtual std::uint64_t host_frames() const { return 0; }
  // Asked after the stream completed, before finish(): whether finish() will
  // read the frame's host samples (current or history). Frames decoded on the
  // GPU (--hwdec cuda) are copied to the host only then. The default, yes, is
  // always right; a worker that knows better says so.
  virtual bool reads_host_samples() const { return true; }
  // The fp32pair kernels' island counts so far (zero for fp64 kernels).
  virtual DeviceArithCounts arith_counts() const { return {}; }
};

}  // namespace exactvmaf::cuda
