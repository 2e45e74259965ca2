// The frame pipeline: one reader thread per input fills pooled frame buffers
// ahead of use; worker threads extract whole frames in parallel; this thread
// commits each frame's values in frame order, so output bits and order are
// the same for every thread count. With the cuda backend each worker thread
// drives its own stream (src/backends/cuda/runner.hpp) and the frame buffers
// are page-locked, so the readers fill memory the device copies from.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "backends/cuda/runner.hpp"
#include "core/pipeline.hpp"
#include "exactvmaf/error.hpp"
#include "exactvmaf/run.hpp"
#include "numeric/fpenv.hpp"

namespace exactvmaf {

std::unique_ptr<cuda::FeatureWorker> FeatureExtractor::make_cuda_worker() { return nullptr; }

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: return "auto";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

// Reads frames of one input into its pool ahead of use: one thread reading
// in order, or, for inputs readable by frame index (raw regular files),
// several threads reading different frames at once, handed out in order.
class InputStream {
 public:
  InputStream(VideoReader& reader, std::shared_ptr<FramePool> pool, std::uint64_t skipped, std::uint64_t limit,
              unsigned parallel_readers)
      : reader_(reader), pool_(std::move(pool)), skipped_(skipped), limit_(limit) {
    if (parallel_readers > 1 && reader.random_access() && reader.info().frame_count) {
      readers_ = parallel_readers;
      const std::uint64_t count = *reader.info().frame_count;
      total_ = count > skipped ? count - skipped : 0;
      if (limit_) total_ = std::min(total_, limit_);
    }
  }
  ~InputStream() { stop(); }

  void start() {
    if (readers_ == 0) {
      threads_.emplace_back([this] { loop_sequential(); });
    } else {
      for (unsigned i = 0; i < readers_; ++i) threads_.emplace_back([this] { loop_parallel(); });
    }
  }
  void stop() {
    pool_->cancel();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  // Next frame in order, or nullptr at the end of the input. Rethrows a read
  // error once the frames before it are taken.
  std::shared_ptr<FrameBuffer> pop() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return ready_.count(next_out_) || finished_ == threads_.size(); });
    auto it = ready_.find(next_out_);
    if (it != ready_.end()) {
      auto b = std::move(it->second);
      ready_.erase(it);
      ++next_out_;
      return b;
    }
    if (error_) std::rethrow_exception(error_);
    return nullptr;
  }
  VideoReader& reader() { return reader_; }

 private:
  void loop_sequential() {
    FpEnvGuard env;
    try {
      for (std::uint64_t n = 0; limit_ == 0 || n < limit_; ++n) {
        auto buf = pool_->acquire();
        if (!buf) break;
        if (!reader_.read_frame(*buf)) break;
        deliver(n, std::move(buf));
      }
    } catch (...) {
      fail(std::current_exception());
    }
    finish();
  }
  void loop_parallel() {
    FpEnvGuard env;
    try {
      while (true) {
        // The buffer first, then the index: whoever holds an index holds a
        // buffer, so the frame pop() waits for is always being read.
        auto buf = pool_->acquire();
        if (!buf) break;
        std::uint64_t index;
        {
          std::lock_guard lock(mutex_);
          if (failed_ || next_in_ >= total_) break;
          index = next_in_++;
        }
        reader_.read_frame_at(skipped_ + index, *buf);
        deliver(index, std::move(buf));
      }
    } catch (...) {
      fail(std::current_exception());
    }
    finish();
  }
  void deliver(std::uint64_t index, std::shared_ptr<FrameBuffer> buf) {
    {
      std::lock_guard lock(mutex_);
      ready_.emplace(index, std::move(buf));
    }
    cv_.notify_all();
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = e;
      failed_ = true;
    }
    // Readers waiting for a buffer would wait forever: the frames ahead that
    // hold the buffers are never taken once the failed frame is missing.
    pool_->cancel();
  }
  void finish() {
    {
      std::lock_guard lock(mutex_);
      ++finished_;
    }
    cv_.notify_all();
  }

  VideoReader& reader_;
  std::shared_ptr<FramePool> pool_;
  std::uint64_t skipped_, limit_;
  unsigned readers_ = 0;  // 0: one sequential reader
  std::uint64_t total_ = 0;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::uint64_t, std::shared_ptr<FrameBuffer>> ready_;
  std::uint64_t next_in_ = 0, next_out_ = 0;
  std::size_t finished_ = 0;
  bool failed_ = false;
  std::exception_ptr error_;
};

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

class CpuProcessor final : public FrameProcessor {
 public:
  explicit CpuProcessor(std::vector<Extractor>& extractors) : extractors_(extractors) {
    for (auto& e : extractors) workers_.push_back(e.impl->make_worker());
  }
  void process(const FrameInput& in, const std::vector<bool>& active, FrameResult& result) override {
    FrameInput each = in;
    for (std::size_t e = 0; e < extractors_.size(); ++e) {
      if (!active[e]) continue;
      const std::size_t h = std::min<std::size_t>(extractors_[e].history, in.prev_ref.size());
      each.prev_ref = in.prev_ref.first(h);
      each.prev_dist = in.prev_dist.first(h);
      workers_[e]->extract(each, result.outputs[e]);
    }
  }

 private:
  std::vector<Extractor>& extractors_;
  std::vector<std::unique_ptr<FeatureWorker>> workers_;
};

class CudaProcessor final : public FrameProcessor {
 public:
  CudaProcessor(const cuda::RunnerOptions& opts, const std::vector<Extractor>& extractors, cuda::RunnerTimes* total,
                std::mutex* total_mutex)
      : total_(total), total_mutex_(total_mutex) {
    std::vector<cuda::RunnerFeature> features;
    for (const auto& e : extractors) features.push_back({e.impl.get(), e.history});
    runner_ = cuda::make_frame_runner(opts, features);
  }
  ~CudaProcessor() override {
    const cuda::RunnerTimes t = runner_->times();
    std::lock_guard lock(*total_mutex_);
    total_->upload_ms += t.upload_ms;
    total_->kernel_ms += t.kernel_ms;
  }
  void process(const FrameInput& in, const std::vector<bool>& active, FrameResult& result) override {
    runner_->run(in, active, result.outputs);
  }

 private:
  std::unique_ptr<cuda::FrameRunner> runner_;
  cuda::RunnerTimes* total_;
  std::mutex* total_mutex_;
};

using ProcessorFactory = std::function<std::unique_ptr<FrameProcessor>()>;

class WorkerPool {
 public:
  // `on_done` is called by a worker after each frame it finishes.
  WorkerPool(unsigned n, std::vector<Extractor>& extractors, ProcessorFactory make_processor,
             std::function<void()> on_done)
      : extractors_(extractors), make_processor_(std::move(make_processor)), on_done_(std::move(on_done)) {
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void submit(FrameTask task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
      ++in_flight_;
    }
    cv_.notify_one();
  }
  std::size_t in_flight() {
    std::lock_guard lock(mutex_);
    return in_flight_;
  }
  // Waits for the result of frame `index`; rethrows a worker's error.
  FrameResult take(std::uint64_t index) {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return error_ || results_.count(index); });
    if (error_) std::rethrow_exception(error_);
    FrameResult r = std::move(results_[index]);
    results_.erase(index);
    --in_flight_;
    return r;
  }
  // Whether take(index) would return without waiting.
  bool ready(std::uint64_t index) {
    std::lock_guard lock(mutex_);
    return error_ || results_.count(index);
  }

 private:
  void loop() {
    FpEnvGuard env;
    std::unique_ptr<FrameProcessor> processor;
    try {
      processor = make_processor_();
    } catch (...) {
      fail(std::current_exception());  // the run stops at the next take(); tasks here are dropped
    }
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
      }
      FrameResult result;
      result.outputs.resize(extractors_.size());
      try {
        if (!processor) throw Error("internal: no frame processor");
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
        processor->process(in, active, result);
      } catch (...) {
        fail(std::current_exception());
      }
      task.refs.clear();  // give the buffers back before reporting
      task.dists.clear();
      {
        std::lock_guard lock(mutex_);
        results_.emplace(task.index, std::move(result));
      }
      done_cv_.notify_all();
      if (on_done_) on_done_();
    }
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = e;
    }
    done_cv_.notify_all();
  }

  std::vector<Extractor>& extractors_;
  ProcessorFactory make_processor_;
  std::function<void()> on_done_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_, done_cv_;
  std::deque<FrameTask> tasks_;
  std::map<std::uint64_t, FrameResult> results_;
  std::size_t in_flight_ = 0;
  bool closing_ = false;
  std::exception_ptr error_;
};

// Frames the longer input has after its skipped ones, for the warning;
// `consumed` frames of it were taken (including the one past the end of the
// shorter input).
std::uint64_t frames_in_input(InputStream& s, std::uint64_t skipped, std::uint64_t consumed) {
  const auto& info = s.reader().info();
  if (info.frame_count) return *info.frame_count > skipped ? *info.frame_count - skipped : 0;
  std::uint64_t n = consumed;
  while (s.pop()) ++n;  // drains a pipe rather than leaving its writer blocked
  return n;
}

// The backend a run uses: cuda when asked for and possible, cpu otherwise;
// throws Error when cuda was required but cannot run.
Backend choose_backend(const RunOptions& opts, const std::vector<FeatureRequest>& requests,
                       const std::vector<Extractor>& extractors) {
  if (opts.backend == Backend::cpu) return Backend::cpu;
  std::string why_not = cuda::device_problem(opts.gpu);  // throws for a bad --gpu index
  if (why_not.empty()) {
    for (std::size_t e = 0; e < extractors.size(); ++e) {
      if (!extractors[e].impl->make_cuda_worker()) {
        why_not = fmt::format("feature {} has no CUDA version", requests[e].info->name);
        break;
      }
    }
  }
  if (why_not.empty()) return Backend::cuda;
  auto option = [&](const char* name) { return fmt::format(fmt::runtime(opts.backend_option), name); };
  if (opts.backend == Backend::cuda)
    throw Error(fmt::format("{}: {} (use {} or auto)", option("cuda"), why_not, option("cpu")));
  if (opts.on_warning) opts.on_warning(option("auto") + ": running on the cpu: " + why_not);
  return Backend::cpu;
}

// Two video readers: skipped frames, pooled buffers filled ahead by reader
// threads, and the warning when one input ends first.
class ReaderPairSource final : public pipeline::PairSource {
 public:
  ReaderPairSource(VideoReader& ref, VideoReader& dist, const RunOptions& opts)
      : ref_(ref), dist_(dist), opts_(opts) {}

  void start(const pipeline::SourceNeeds& needs) override {
    ref_.set_luma_only(needs.luma_only);
    dist_.set_luma_only(needs.luma_only);
    auto skip = [](VideoReader& r, std::uint64_t n) {
      std::uint64_t s = 0;
      while (s < n && r.skip_frame()) ++s;
      return s;
    };
    skipped_ref_ = skip(ref_, opts_.frame_skip_ref);
    skipped_dist_ = skip(dist_, opts_.frame_skip_dist);
    const VideoFormat& fmt = ref_.info().format;
    ref_in_.emplace(ref_, FramePool::create(fmt, needs.buffers, needs.memory), skipped_ref_, opts_.frame_cnt,
                    needs.parallel_readers);
    dist_in_.emplace(dist_, FramePool::create(fmt, needs.buffers, needs.memory), skipped_dist_, opts_.frame_cnt,
                     needs.parallel_readers);
    ref_in_->start();
    dist_in_->start();
  }

  Pull next(std::shared_ptr<FrameBuffer>& r, std::shared_ptr<FrameBuffer>& d) override {
    r = ref_in_->pop();
    d = dist_in_->pop();
    if (r && d) {
      ++pairs_;
      return Pull::pair;
    }
    if (r || d) {
      // One input ended first: libvmaf stops there and warns; we say both counts.
      InputStream& longer = r ? *ref_in_ : *dist_in_;
      const VideoReader& shorter = r ? dist_ : ref_;
      const std::uint64_t longer_frames = frames_in_input(longer, r ? skipped_ref_ : skipped_dist_, pairs_ + 1);
      if (opts_.on_warning)
        opts_.on_warning(fmt::format("\"{}\" ended after {} frames, before \"{}\" ({} frames); scored the first {}",
                                     shorter.path(), pairs_, longer.reader().path(), longer_frames, pairs_));
    }
    r.reset();
    d.reset();
    return Pull::end;
  }

  void stop() override {
    if (ref_in_) ref_in_->stop();
    if (dist_in_) dist_in_->stop();
  }

  std::uint64_t frames_total() const override {
    const auto& ri = ref_.info();
    const auto& di = dist_.info();
    if (!ri.frame_count || !di.frame_count) return 0;
    std::uint64_t n = std::min(*ri.frame_count - std::min(*ri.frame_count, skipped_ref_),
                               *di.frame_count - std::min(*di.frame_count, skipped_dist_));
    if (opts_.frame_cnt) n = std::min(n, opts_.frame_cnt);
    return n;
  }

 private:
  VideoReader& ref_;
  VideoReader& dist_;
  const RunOptions& opts_;
  std::uint64_t skipped_ref_ = 0, skipped_dist_ = 0, pairs_ = 0;
  std::optional<InputStream> ref_in_, dist_in_;
};

// Stops the source however run_pairs() leaves.
class SourceStop {
 public:
  explicit SourceStop(pipeline::PairSource& s) : source_(s) {}
  ~SourceStop() { source_.stop(); }
  SourceStop(const SourceStop&) = delete;
  SourceStop& operator=(const SourceStop&) = delete;

 private:
  pipeline::PairSource& source_;
};

}  // namespace

RunResult pipeline::run_pairs(PairSource& source, const VideoFormat& fmt, std::vector<FeatureRequest> features,
                              const RunOptions& opts, const Hooks& hooks) {
  FpEnvGuard env;
  SourceStop stop_source(source);
  if (features.empty()) throw Error("no feature requested (use --feature NAME or a model)");
  if (opts.subsample == 0) throw Error("--subsample must be at least 1");

  RunResult result;
  result.format = fmt;

  // libvmaf keeps the first request of a feature with a given option suffix
  // (its feature_output_name); requests with other suffixes run as well.
  std::vector<FeatureRequest> unique;
  std::vector<std::string> unique_keys;
  for (auto& f : features) {
    std::string key = feature_output_name(f.info->name, f.options);
    if (std::find(unique_keys.begin(), unique_keys.end(), key) != unique_keys.end()) continue;
    unique_keys.push_back(std::move(key));
    unique.push_back(std::move(f));
  }

  std::vector<Extractor> extractors;
  unsigned history = 0;
  for (auto& req : unique) {
    Extractor e;
    e.impl = req.info->create(req.options);
    for (const auto& name : e.impl->init(fmt)) e.metric_ids.push_back(result.scores.add_metric(name));
    e.every_frame = req.info->every_frame;
    e.history = e.impl->history();
    history = std::max(history, e.history);
    extractors.push_back(std::move(e));
  }

  bool luma_only = true;
  for (const auto& req : unique) luma_only = luma_only && req.info->luma_only;

  const Backend backend = choose_backend(opts, unique, extractors);
  result.backend = backend;
  ProcessorFactory make_processor = [&extractors]() -> std::unique_ptr<FrameProcessor> {
    return std::make_unique<CpuProcessor>(extractors);
  };
  HostMemory memory;
  cuda::RunnerTimes cuda_times;  // summed by the processors as they end
  std::mutex cuda_times_mutex;
  if (backend == Backend::cuda) {
    memory = {true, opts.gpu};
    cuda::RunnerOptions ro;
    ro.gpu = opts.gpu;
    ro.format = fmt;
    ro.graphs = opts.cuda_graphs;
    ro.timing = opts.cuda_timing;
    make_processor = [ro, &extractors, &cuda_times, &cuda_times_mutex]() -> std::unique_ptr<FrameProcessor> {
      return std::make_unique<CudaProcessor>(ro, extractors, &cuda_times, &cuda_times_mutex);
    };
  }

  // cuda: each worker thread is one frame in flight; four keep the H200 busy
  // (measured: 8 and 16 are slower, docs/benchmarks.md).
  const unsigned default_threads =
      backend == Backend::cuda ? 4u : std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = opts.threads ? opts.threads : default_threads;
  result.threads = threads;
  // Frames in flight: one per worker plus two ready, so no worker waits for
  // the commit thread. Few buffers keep the working set in the cache.
  const std::size_t window = static_cast<std::size_t>(threads) + 2;
  // Inputs readable by frame index get several reader threads when there
  // are cores to spare (reading from the page cache scales with threads).
  // With cuda the workers mostly wait for the device, so reading gets the
  // cores: half of them per input, whatever --threads is.
  const unsigned reader_cores = backend == Backend::cuda ? std::max(1u, std::thread::hardware_concurrency()) : threads;
  const unsigned parallel_readers = std::clamp(reader_cores / 2, 1u, 8u);
  const std::size_t read_ahead = std::max<std::size_t>(opts.read_ahead ? opts.read_ahead : 2, parallel_readers);

  SourceNeeds needs;
  needs.buffers = window + history + read_ahead + 1;
  needs.parallel_readers = parallel_readers;
  needs.memory = memory;
  needs.luma_only = luma_only;
  needs.backend = backend;
  needs.threads = threads;
  const auto t0 = Clock::now();
  source.start(needs);
  const std::uint64_t frames_total = source.frames_total();

  std::uint64_t committed = 0;
  {
    WorkerPool workers(threads, extractors, make_processor, [&source] { source.wake(); });
    std::deque<std::pair<std::shared_ptr<FrameBuffer>, std::shared_ptr<FrameBuffer>>> recent;
    auto commit_one = [&] {
      FrameResult r = workers.take(committed);
      for (std::size_t e = 0; e < extractors.size(); ++e)
        for (const auto& entry : r.outputs[e].entries())
          result.scores.set(extractors[e].metric_ids.at(entry.slot), committed, entry.value);
      if (hooks.on_commit) hooks.on_commit(committed, result.scores);
      ++committed;
      if (opts.on_progress)
        opts.on_progress({committed, frames_total, std::chrono::duration<double>(Clock::now() - t0).count()});
    };

    std::uint64_t index = 0;
    std::shared_ptr<FrameBuffer> r, d;
    while (true) {
      // Finished frames are committed before waiting for input, so that a
      // source fed one frame at a time sees every frame it gave scored.
      while (committed < index && workers.ready(committed)) commit_one();
      const PairSource::Pull pull = source.next(r, d);
      if (pull == PairSource::Pull::end) break;
      if (pull == PairSource::Pull::woken) continue;
      FrameTask task;
      task.index = index;
      task.subsampled_out = opts.subsample > 1 && (index % opts.subsample) != 0;
      task.refs.push_back(std::move(r));
      task.dists.push_back(std::move(d));
      for (auto it = recent.rbegin(); it != recent.rend(); ++it) {
        task.refs.push_back(it->first);
        task.dists.push_back(it->second);
      }
      if (history) {
        recent.emplace_back(task.refs.front(), task.dists.front());
        if (recent.size() > history) recent.pop_front();
      }
      while (workers.in_flight() >= window) commit_one();
      workers.submit(std::move(task));
      ++index;
    }
    recent.clear();
    while (committed < index) commit_one();
  }

  for (auto& e : extractors) e.impl->flush(result.scores);
  result.scores.order_metrics_by_first_write();
  result.cuda_upload_ms = cuda_times.upload_ms;
  result.cuda_kernel_ms = cuda_times.kernel_ms;

  result.frames = committed;
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  result.fps = result.seconds > 0 ? static_cast<double>(committed) / result.seconds : 0;
  return result;
}

RunResult run(VideoReader& ref, VideoReader& dist, std::vector<FeatureRequest> features,
              const RunOptions& opts) {
  FpEnvGuard env;
  const VideoFormat fmt = ref.info().format;
  if (!(fmt == dist.info().format)) {
    throw Error(fmt::format("{} is {} but {} is {}: reference and distorted must have the same size, "
                            "pixel format and bit depth",
                            ref.path(), ref.info().format.describe(), dist.path(),
                            dist.info().format.describe()));
  }
  ReaderPairSource source(ref, dist, opts);
  return pipeline::run_pairs(source, fmt, std::move(features), opts);
}

}  // namespace exactvmaf
