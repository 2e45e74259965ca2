// The pipeline side of the CUDA backend (used by src/core/pipeline.cpp and
// src/core/frame.cpp). No CUDA header here: a CPU-only build compiles the
// callers against these declarations and links src/core/cuda_absent.cpp's
// stand-ins instead of runner.cu / device.cu.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cuda/cuda_feature.hpp"
#include "exactvmaf/feature.hpp"
#include "exactvmaf/format.hpp"
#include "exactvmaf/run.hpp"

namespace exactvmaf::cuda {

// Whether the CUDA driver and a device context have already started in this
// process (device_problem() found a usable device), or there is none to start
// (a build without CUDA): a run then has no start-up worth scoring frames on
// CPU threads through.
bool driver_started();

// Page-locks [p, p + bytes) for asynchronous uploads to device `gpu`. Returns
// false when the driver refuses (the buffer then stays pageable: uploads are
// slower, results the same).
bool pin_host_memory(void* p, std::size_t bytes, int gpu);
void unpin_host_memory(void* p);

// Empty when device `gpu` can run this build's kernels; otherwise one line
// saying why not (no driver, no device, compute capability too old). Throws
// Error for an index that names no device on a machine that has some.
std::string device_problem(int gpu);

struct RunnerFeature {
  FeatureExtractor* extractor = nullptr;  // init() already called
  unsigned history = 0;                   // its history()
};

// What a runner measured and counted: device milliseconds (with
// RunnerOptions::timing) and the frames its workers computed on the host
// (FeatureWorker::host_frames).
struct RunnerStats {
  double upload_ms = 0, kernel_ms = 0;
  std::uint64_t host_frames = 0;
  // Frames decoded on the GPU whose samples were copied to the host because
  // a host step read them (FeatureWorker::reads_host_samples).
  std::uint64_t host_downloads = 0;
  DeviceArithCounts arith;  // FeatureWorker::arith_counts, summed
  // History frames (motion's earlier reference, ...) copied from the GPU's
  // HistoryRing, and those uploaded from the host.
  std::uint64_t history_on_device = 0, history_uploaded = 0;
};

class HistoryRing;  // history_ring.cuh

// The history ring of one GPU, shared by the runners on it: the first runner
// that needs one makes it. `unavailable`: it could not be made (out of device
// memory): history is uploaded.
struct SharedHistoryRing {
  std::mutex mutex;
  std::shared_ptr<HistoryRing> ring;
  bool unavailable = false;
};

// One pipeline thread's device state: a stream, the fixed device planes, the
// features' CUDA workers and their captured graphs. Made and used by one
// thread (which it binds to the device).
class FrameRunner {
 public:
  virtual ~FrameRunner() = default;
  // Scores one frame. `in` holds the current frame and every history frame
  // available (most recent first); active[e]: feature e runs on this frame;
  // outputs[e] receives its values.
  virtual void run(const FrameInput& in, const std::vector<bool>& active, std::vector<FrameOutput>& outputs) = 0;
  virtual RunnerStats stats() const = 0;
};

struct RunnerOptions {
  int gpu = 0;
  VideoFormat format;
  bool graphs = true;  // capture once per set of active features, replay per frame
  bool timing = false; // events around each frame's upload and kernels
  DeviceArith arith = DeviceArith::fp64;
  // Null: every runner uploads its history frames from the host.
  std::shared_ptr<SharedHistoryRing> history_ring;
  unsigned history_slots = 0;  // frames the ring holds: frames in flight + history + 1
};

// The device's fp32:fp64 throughput ratio (cudaDevAttrSingleToDoublePrecisionPerfRatio;
// the H200 reports 2, GeForce cards 32 or 64).
int fp32_to_fp64_ratio(int gpu);

// --device_fp64's choice: on -> fp64, off -> fp32pair, auto -> fp32pair when
// the device's fp64 is slower than 1/8 of its fp32 (ratio > 8).
inline constexpr int kFp64SlowRatio = 8;
DeviceArith choose_device_arith(DeviceFp64 option, int fp32_to_fp64_ratio);


std::unique_ptr<FrameRunner> make_frame_runner(const RunnerOptions& opts, const std::vector<RunnerFeature>& features);

}  // namespace exactvmaf::cuda
