#include "core/worker_pool.hpp"

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "core/startup_trace.hpp"
#include "exactvmaf/error.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf::pipeline {

namespace {

class CpuProcessor final : public FrameProcessor {
 public:
  CpuProcessor(std::vector<Extractor>& extractors, const std::atomic<bool>* stop)
      : extractors_(extractors), stop_(stop) {
    for (auto& e : extractors) workers_.push_back(e.impl->make_worker());
  }
  void process(const FrameInput& in, const std::vector<bool>& active, FrameResult& result) override {
    if (in.ref.device || in.dist.device)
      throw Error("a frame decoded on the GPU reached the cpu backend (--hwdec cuda needs --backend cuda)");
    FrameInput each = in;
    for (std::size_t e = 0; e < extractors_.size(); ++e) {
      if (!active[e]) continue;
      if (stop_ && stop_->load(std::memory_order_relaxed)) throw FrameAbandoned{};
      const std::size_t h = std::min<std::size_t>(extractors_[e].history, in.prev_ref.size());
      each.prev_ref = in.prev_ref.first(h);
      each.prev_dist = in.prev_dist.first(h);
      workers_[e]->extract(each, result.outputs[e]);
    }
  }

 private:
  std::vector<Extractor>& extractors_;
  const std::atomic<bool>* stop_;
  std::vector<std::unique_ptr<FeatureWorker>> workers_;
};

class CudaProcessor final : public FrameProcessor {
 public:
  CudaProcessor(const cuda::RunnerOptions& opts, std::size_t entry, const std::vector<Extractor>& extractors,
                CudaTotals* totals)
      : entry_(entry), totals_(totals) {
    std::vector<cuda::RunnerFeature> features;
    for (const auto& e : extractors) features.push_back({e.impl.get(), e.history});
    runner_ = cuda::make_frame_runner(opts, features);
  }
  ~CudaProcessor() override {
    const cuda::RunnerStats s = runner_->stats();
    std::lock_guard lock(totals_->mutex);
    totals_->stats.upload_ms += s.upload_ms;
    totals_->stats.kernel_ms += s.kernel_ms;
    totals_->stats.host_frames += s.host_frames;
    totals_->stats.host_downloads += s.host_downloads;
    totals_->stats.history_on_device += s.history_on_device;
    totals_->stats.history_uploaded += s.history_uploaded;
    totals_->stats.arith += s.arith;
    totals_->entry_frames.at(entry_) += frames_;
  }
  void process(const FrameInput& in, const std::vector<bool>& active, FrameResult& result) override {
    runner_->run(in, active, result.outputs);
    ++frames_;
  }

 private:
  std::unique_ptr<cuda::FrameRunner> runner_;
  std::size_t entry_;
  CudaTotals* totals_;
  std::uint64_t frames_ = 0;
};

}  // namespace

std::unique_ptr<FrameProcessor> make_cpu_processor(std::vector<Extractor>& extractors,
                                                   const std::atomic<bool>* stop) {
  return std::make_unique<CpuProcessor>(extractors, stop);
}

std::unique_ptr<FrameProcessor> make_cuda_processor(const cuda::RunnerOptions& opts, std::size_t entry,
                                                    const std::vector<Extractor>& extractors, CudaTotals* totals) {
  return std::make_unique<CudaProcessor>(opts, entry, extractors, totals);
}

WorkerPool::WorkerPool(unsigned n, std::vector<Extractor>& extractors, ProcessorFactory make_processor,
                       std::size_t window, std::function<void()> on_done, HeadWorkers head)
    : extractors_(extractors),
      make_processor_(std::move(make_processor)),
      on_done_(std::move(on_done)),
      window_(window),
      head_(std::move(head)),
      starting_(n),
      head_open_(head_.threads > 0) {
  for (unsigned i = 0; i < head_.threads; ++i) threads_.emplace_back([this, i] { head_loop(i); });
  for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit(FrameTask task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
    ++in_flight_;
  }
  cv_.notify_all();  // a worker or a head thread, whichever waits
}

void WorkerPool::hand_over_locked() {
  head_open_ = false;
  head_stop_.store(true, std::memory_order_relaxed);
  // The frames still on head threads go to the workers first, lowest first.
  for (auto it = head_in_hand_.rbegin(); it != head_in_hand_.rend(); ++it) {
    tasks_.push_front(it->second);
    twice_.emplace(it->first, Twice{});
  }
  startup_mark(fmt::format("hand-over: the head threads scored {} frames; {} in hand go to the workers",
                           head_frames_, head_in_hand_.size()));
}

bool WorkerPool::has_room_locked() const {
  if (head_open_) return in_flight_ < head_.window;
  if (head_.threads == 0) return in_flight_ < window_;
  // Handed over: frames queued or in work, as many as the workers that run
  // (made for either backend) and two ready, as the pipeline plans a window.
  return tasks_.size() + worker_running_ < ready_workers_ + 2u;
}

bool WorkerPool::has_room() {
  std::lock_guard lock(mutex_);
  return has_room_locked();
}

void WorkerPool::wait_for_room_or(std::uint64_t index) {
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [&] { return error_ || has_room_locked() || results_.count(index); });
}

bool WorkerPool::ready(std::uint64_t index) {
  std::lock_guard lock(mutex_);
  return error_ || results_.count(index);
}

std::uint64_t WorkerPool::head_frames() {
  std::lock_guard lock(mutex_);
  return head_frames_;
}

bool WorkerPool::handed_over() {
  std::lock_guard lock(mutex_);
  return head_.threads > 0 && !head_open_ && ready_workers_ > 0;
}

FrameResult WorkerPool::take(std::uint64_t index) {
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [&] { return error_ || results_.count(index); });
  if (error_) std::rethrow_exception(error_);
  FrameResult r = std::move(results_[index]);
  results_.erase(index);
  --in_flight_;
  return r;
}

void WorkerPool::loop(unsigned worker) {
  FpEnvGuard env;
  std::unique_ptr<FrameProcessor> processor;
  try {
    processor = make_processor_(worker);
    if (processor) startup_mark(fmt::format("worker {} ready (cuda: its stream, device buffers, tables)", worker));
  } catch (...) {
    fail(std::current_exception());  // the run stops at the next take(); tasks here are dropped
  }
  {
    // No worker takes a frame before every processor is made: otherwise the
    // workers whose device is ready first (one GPU of several, say) would
    // take every frame of a short clip.
    std::unique_lock lock(mutex_);
    if (processor) ++ready_workers_;
    if (--starting_ == 0) {
      if (ready_workers_ > 0 && head_open_) {
        hand_over_locked();
      } else if (ready_workers_ == 0 && head_.threads == 0 && !error_) {
        error_ = std::make_exception_ptr(InternalError("internal: no frame processor"));
      }
      start_cv_.notify_all();
      cv_.notify_all();
      done_cv_.notify_all();
    }
    start_cv_.wait(lock, [&] { return starting_ == 0; });
  }
  if (!processor) return;
  std::vector<PictureView> prev_ref, prev_dist;
  std::vector<bool> active(extractors_.size());
  while (true) {
    FrameTask task;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return closing_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++worker_running_;
    }
    run_task(*processor, std::move(task), prev_ref, prev_dist, active, worker, false);
  }
}

void WorkerPool::head_loop(unsigned thread) {
  FpEnvGuard env;
  std::unique_ptr<FrameProcessor> processor;
  try {
    processor = head_.make_processor(thread, &head_stop_);
    if (!processor) throw InternalError("internal: no head frame processor");
  } catch (...) {
    fail(std::current_exception());
    return;
  }
  std::vector<PictureView> prev_ref, prev_dist;
  std::vector<bool> active(extractors_.size());
  while (true) {
    FrameTask task;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return closing_ || !tasks_.empty() || !head_open_; });
      if (!head_open_ || tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      head_in_hand_.emplace(task.index, task);
    }
    run_task(*processor, std::move(task), prev_ref, prev_dist, active, thread, true);
  }
}

void WorkerPool::run_task(FrameProcessor& processor, FrameTask task, std::vector<PictureView>& prev_ref,
                          std::vector<PictureView>& prev_dist, std::vector<bool>& active, unsigned worker,
                          bool head) {
  FrameResult result;
  result.outputs.resize(extractors_.size());
  bool abandoned = false;
  try {
    FrameInput in;
    in.index = task.index;
    in.ref = task.refs[0]->view();
    in.dist = task.dists[0]->view();
    prev_ref.clear();
    prev_dist.clear();
    for (std::size_t k = 1; k < task.refs.size(); ++k) {
      prev_ref.push_back(task.refs[k]->view());
      prev_dist.push_back(task.dists[k]->view());
    }
    in.prev_ref = std::span<const PictureView>(prev_ref.data(), prev_ref.size());
    in.prev_dist = std::span<const PictureView>(prev_dist.data(), prev_dist.size());
    for (std::size_t e = 0; e < extractors_.size(); ++e)
      active[e] = !task.subsampled_out || extractors_[e].every_frame;
    processor.process(in, active, result);
    if (task.index == 0)
      startup_mark(fmt::format("first frame scored ({} {}; cuda: with its graph capture)",
                               head ? "head thread" : "worker", worker));
  } catch (const FrameAbandoned&) {
    abandoned = true;  // a head frame given back to the workers at the hand-over
  } catch (...) {
    fail(std::current_exception());
  }
  task.refs.clear();  // give the buffers back before reporting
  task.dists.clear();
  {
    std::lock_guard lock(mutex_);
    if (head) head_in_hand_.erase(task.index);
    bool keep = !abandoned;
    if (const auto t = twice_.find(task.index); t != twice_.end()) {
      keep = keep && !t->second.stored;  // the first result of the frame
      t->second.stored = t->second.stored || keep;
      if (++t->second.ended == 2) twice_.erase(t);
    } else if (abandoned && !error_) {
      error_ = std::make_exception_ptr(InternalError("internal: a frame given up was not given back"));
    }
    if (keep) {
      results_.emplace(task.index, std::move(result));
      if (head) ++head_frames_;
    }
    if (!head) --worker_running_;
  }
  done_cv_.notify_all();
  if (on_done_) on_done_();
}

void WorkerPool::fail(std::exception_ptr e) {
  {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = e;
  }
  done_cv_.notify_all();
}

}  // namespace exactvmaf::pipeline
