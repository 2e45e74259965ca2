// The pipeline's worker side (src/core/pipeline.cpp): worker threads that
// extract whole frames in parallel, each through its own FrameProcessor (the
// CPU workers of every feature, or one CUDA frame runner), results taken
// back in frame order.
#pragma once
#include <atomic>
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

// Every extractor's CPU worker. With `stop`: once *stop is true, the frame in
// work is given up between two extractors (FrameAbandoned).
std::unique_ptr<FrameProcessor> make_cpu_processor(std::vector<Extractor>& extractors,
                                                   const std::atomic<bool>* stop = nullptr);
struct FrameAbandoned {};

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

// Threads that score the first frames while the pool's own workers are still
// being made (CPU threads while the CUDA driver starts: the same bits). They
// take frames until every worker's factory has returned and one has a
// processor. Then the frames they hold go back to the front of the queue for
// the workers, and their processors give them up at the next extractor (the
// `stop` flag): whichever result of a frame comes first is kept, both being
// the same bits. A worker whose factory returns nullptr takes no frame; when
// no worker gets a processor, the head threads score the whole run.
struct HeadWorkers {
  unsigned threads = 0;
  std::function<std::unique_ptr<FrameProcessor>(unsigned thread, const std::atomic<bool>* stop)> make_processor;
  std::size_t window = 0;  // frames in flight while they take frames
};

class WorkerPool {
 public:
  // `window`: frames in flight (queued, in work or not yet taken) that
  // has_room() allows; with head threads, head.window applies until the
  // hand-over and the workers' own count after it. `on_done` (may be empty) is called by a worker after
  // each frame it finishes.
  WorkerPool(unsigned n, std::vector<Extractor>& extractors, ProcessorFactory make_processor, std::size_t window,
             std::function<void()> on_done = {}, HeadWorkers head = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(FrameTask task);
  // Whether another frame may be submitted. After a hand-over, frames the
  // head threads still finish, and results waiting behind them, do not count:
  // the workers are not held up by a slow head frame.
  bool has_room();
  // Waits until has_room() or ready(index).
  void wait_for_room_or(std::uint64_t index);
  // Waits for the result of frame `index`; rethrows a worker's error.
  FrameResult take(std::uint64_t index);
  // Whether take(index) would return without waiting.
  bool ready(std::uint64_t index);
  // Frames the head threads scored (final once every result is taken).
  std::uint64_t head_frames();
  // Whether the workers have taken over from the head threads.
  bool handed_over();

 private:
  void loop(unsigned worker);
  void head_loop(unsigned thread);
  void run_task(FrameProcessor& processor, FrameTask task, std::vector<PictureView>& prev_ref,
                std::vector<PictureView>& prev_dist, std::vector<bool>& active, unsigned worker, bool head);
  void hand_over_locked();
  bool has_room_locked() const;
  void fail(std::exception_ptr e);

  std::vector<Extractor>& extractors_;
  ProcessorFactory make_processor_;
  std::function<void()> on_done_;
  std::size_t window_;
  HeadWorkers head_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_, done_cv_, start_cv_;
  unsigned starting_;  // workers still making their processor
  unsigned ready_workers_ = 0;  // workers that have one
  std::deque<FrameTask> tasks_;
  std::map<std::uint64_t, FrameResult> results_;
  std::size_t in_flight_ = 0;      // submitted, not yet taken
  std::size_t worker_running_ = 0; // frames the workers (not the head) are scoring
  bool head_open_ = false;         // head threads still take frames
  std::uint64_t head_frames_ = 0;
  std::atomic<bool> head_stop_{false};
  std::map<std::uint64_t, FrameTask> head_in_hand_;  // frames the head threads are scoring
  struct Twice {
    bool stored = false;  // a result is in results_ (or was taken)
    unsigned ended = 0;   // runs of the frame that ended (of two)
  };
  std::map<std::uint64_t, Twice> twice_;  // frames given back at the hand-over
  bool closing_ = false;
  std::exception_ptr error_;
};

}  // namespace exactvmaf::pipeline
