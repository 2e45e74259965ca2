// The pipeline's worker side (src/core/pipeline.cpp): worker threads that
// extract whole frames in parallel, each through its own FrameProcessor (the
// CPU workers of every feature, or one CUDA frame runner), results taken
// back in frame order.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/cuda/runner.hpp"
#include "exactvmaf/feature.hpp"
#include "exactvmaf/frame.hpp"

namespace exactvmaf::pipeline {

struct Extractor {
  std::unique_ptr<FeatureExtractor> impl;
  std::vector<std::size_t> metric_ids;  // slot -> ScoreTable id
  bool every_frame = false;
  unsigned history = 0;
};

struct FrameTask {
  std::uint64_t index = 0;
  std::vector<std::shared_ptr<FrameBuffer>> refs, dists;  // [0] current, then previous
  bool subsampled_out = false;
};

struct FrameResult {
  std::vector<FrameOutput> outputs;  // one per extractor
};

// What one worker thread does with a frame; made on that thread.
class FrameProcessor {
 public:
  virtual ~FrameProcessor() = default;
  // `in` holds every history frame the task has; active[e]: extractor e runs.
  virtual void process(const FrameInput& in, const std::vector<bool>& active, FrameResult& result) = 0;
};

// Called once on each worker thread, with the thread's number (0, 1, ...).
using ProcessorFactory = std::function<std::unique_ptr<FrameProcessor>(unsigned worker)>;

// Every extractor's CPU worker.
std::unique_ptr<FrameProcessor> make_cpu_processor(std::vector<Extractor>& extractors);

// What a run's CUDA frame runners measured, summed as each ends.
struct CudaTotals {
  std::mutex mutex;
  cuda::RunnerStats stats;
  std::vector<std::uint64_t> entry_frames;  // per RunOptions::gpus entry
};

// One CUDA frame runner for entry `entry` of the run's devices; adds its
// statistics to *totals when it ends.
std::unique_ptr<FrameProcessor> make_cuda_processor(const cuda::RunnerOptions& opts, std::size_t entry,
                                                    const std::vector<Extractor>& extractors, CudaTotals* totals);

class WorkerPool {
 public:
  // `on_done` (may be empty) is called by a worker after each frame it finishes.
  WorkerPool(unsigned n, std::vector<Extractor>& extractors, ProcessorFactory make_processor,
             std::function<void()> on_done = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(FrameTask task);
  std::size_t in_flight();
  // Waits for the result of frame `index`; rethrows a worker's error.
  FrameResult take(std::uint64_t index);
  // Whether take(index) would return without waiting.
  bool ready(std::uint64_t index);

 private:
  void loop(unsigned worker);
  void fail(std::exception_ptr e);

  std::vector<Extractor>& extractors_;
  ProcessorFactory make_processor_;
  std::function<void()> on_done_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_, done_cv_, start_cv_;
  unsigned starting_;  // workers still making their processor
  std::deque<FrameTask> tasks_;
  std::map<std::uint64_t, FrameResult> results_;
  std::size_t in_flight_ = 0;
  bool closing_ = false;
  std::exception_ptr error_;
};

}  // namespace exactvmaf::pipeline
