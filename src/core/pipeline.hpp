// The frame pipeline behind run(), for callers that bring their own frames
// (the libvmaf C API pushes pictures one pair at a time).
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exactvmaf/frame.hpp"
#include "exactvmaf/run.hpp"

namespace exactvmaf::pipeline {

// What the pipeline asks of its source once its features and backend are set.
struct SourceNeeds {
  std::size_t buffers = 0;       // frame buffers per input the pipeline may hold at once
  unsigned parallel_readers = 1; // reader threads per input worth having
  HostMemory memory;             // where buffers should live (page-locked for cuda)
  bool luma_only = false;        // every feature reads luma only: chroma may stay unwritten
  Backend backend = Backend::cpu; // the backend that runs (cpu or cuda)
  unsigned threads = 0;          // worker threads (cuda: frames in flight)
  bool cuda_fp32pair = false;    // cuda: the kernels run without fp64 (RunOptions::device_fp64)
};

// Frame pairs in frame order. Used by the thread that calls run_pairs().
class PairSource {
 public:
  virtual ~PairSource() = default;
  // Once, before the first next().
  virtual void start(const SourceNeeds& needs) = 0;
  enum class Pull { pair, end, woken };
  // The next pair (buffers in the run's format), or the end. A source that
  // waits for input may return `woken` after wake(): the pipeline then
  // commits the frames finished meanwhile and asks again. Throws Error for
  // bad input.
  virtual Pull next(std::shared_ptr<FrameBuffer>& ref, std::shared_ptr<FrameBuffer>& dist) = 0;
  // Called from worker threads when a frame is finished.
  virtual void wake() {}
  // Once when run_pairs() ends, normally or by an exception.
  virtual void stop() = 0;
  // Pairs the source will give, 0 when unknown (for progress).
  virtual std::uint64_t frames_total() const { return 0; }
  // Whether every frame it gives lives in host memory and its buffers may
  // change kind midway (use_memory()), so that CPU threads may score the
  // first frames while the CUDA backend starts (RunOptions::cpu_while_cuda_starts).
  virtual bool host_frames_only() const { return false; }
  // After start(), from another thread: buffers made from now on live in
  // `memory` (page-locked once the device is ready), at most `buffers` per
  // input.
  virtual void use_memory(const HostMemory& memory, std::size_t buffers) {
    (void)memory;
    (void)buffers;
  }
};

struct Hooks {
  // After frame `frame` is in `table` (its per-frame values; values derived
  // at the flush come later), on the pipeline's thread.
  std::function<void(std::uint64_t frame, const ScoreTable& table)> on_commit;
};

// run() for any source: frames are extracted in parallel and committed in
// order; the result is the same for every thread count and backend.
RunResult run_pairs(PairSource& source, const VideoFormat& fmt, std::vector<FeatureRequest> features,
                    const RunOptions& opts, const Hooks& hooks = {});

namespace testing {
// A stand-in for the CUDA backend's start, so that core tests run the head
// threads' path (RunOptions::cpu_while_cuda_starts) without a GPU. While
// set, run_pairs takes the driver as not started and every feature as having
// CUDA; the start sleeps `delay`, then throws Error(`error`) when it is not
// empty, else falls back to the cpu with a warning, as `auto` does without a
// device. For tests only: set it before a run and reset it after.
struct FakeCudaStart {
  std::chrono::milliseconds delay{0};
  std::string error;
};
void set_fake_cuda_start(std::optional<FakeCudaStart> fake);
}  // namespace testing

}  // namespace exactvmaf::pipeline
