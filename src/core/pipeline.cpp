// The frame pipeline: one reader thread per input fills pooled frame buffers
// ahead of use (core/input_stream.hpp); worker threads extract whole frames
// in parallel (core/worker_pool.hpp); this thread commits each frame's values
// in frame order, so output bits and order are the same for every thread
// count. With the cuda backend each worker thread drives its own stream
// (src/backends/cuda/runner.hpp) and the frame buffers are page-locked, so
// the readers fill memory the device copies from.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backends/cuda/cuda_feature.hpp"
#include "backends/cuda/runner.hpp"
#include "core/input_stream.hpp"
#include "core/pair_timing.hpp"
#include "core/pipeline.hpp"
#include "core/startup_trace.hpp"
#include "core/worker_pool.hpp"
#include "exactvmaf/cuda.hpp"
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

const char* device_fp64_name(DeviceFp64 d) {
  switch (d) {
    case DeviceFp64::automatic: return "auto";
    case DeviceFp64::on: return "on";
    case DeviceFp64::off: return "off";
  }
  return "?";
}

DeviceFp64 parse_device_fp64(std::string_view name, std::string_view option) {
  for (const DeviceFp64 d : {DeviceFp64::automatic, DeviceFp64::on, DeviceFp64::off})
    if (name == device_fp64_name(d)) return d;
  throw Error(fmt::format("{}: expected auto, on or off", fmt::format(fmt::runtime(option), name)));
}

std::vector<int> parse_gpu_list(std::string_view text, std::string_view option) {
  if (text == "all") return {};
  std::vector<int> gpus;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    int index = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || index < 0 || item[0] == '+')
      throw Error(fmt::format("{}: expected all, a CUDA device index (0, 1, ...) or indices separated by commas",
                              fmt::format(fmt::runtime(option), text)));
    gpus.push_back(index);
    if (comma == text.size()) return gpus;
    start = comma + 1;
  }
}

cuda::DeviceArith cuda::choose_device_arith(DeviceFp64 option, int ratio) {
  switch (option) {
    case DeviceFp64::on: return DeviceArith::fp64;
    case DeviceFp64::off: return DeviceArith::fp32pair;
    case DeviceFp64::automatic: break;
  }
  return ratio > kFp64SlowRatio ? DeviceArith::fp32pair : DeviceArith::fp64;
}

namespace {

using Clock = std::chrono::steady_clock;
using pipeline::Extractor;
using pipeline::FrameTask;
using pipeline::InputStream;
using pipeline::WorkerPool;

// The devices of RunOptions::gpus, "all" resolved to every device that can
// run this build's kernels. Sets why_not when one cannot (or none exists).
// Throws Error for an index that names no device.
std::vector<int> usable_gpus(const RunOptions& opts, std::string& why_not) {
  std::vector<int> gpus = opts.gpus;
  if (gpus.empty()) {
    const CudaStatus s = cuda_status();
    why_not = s.problem;
    for (const auto& d : s.devices) {
      std::string problem = cuda::device_problem(d.index);
      if (problem.empty()) gpus.push_back(d.index);
      else if (why_not.empty()) why_not = std::move(problem);  // the first reason, should no device be usable
    }
    if (!gpus.empty()) why_not.clear();
    return gpus;
  }
  std::vector<int> checked;  // each device once, though an index may repeat
  for (const int g : gpus) {
    if (std::find(checked.begin(), checked.end(), g) != checked.end()) continue;
    checked.push_back(g);
    why_not = cuda::device_problem(g);  // throws for a bad --gpu index
    if (!why_not.empty()) break;
  }
  return gpus;
}

// The backend a run uses: cuda when asked for and possible, cpu otherwise;
// throws Error when cuda was required but cannot run. `gpus`: the devices
// the cuda backend is to use; `warning`: why auto runs on the cpu.
Backend choose_backend(const RunOptions& opts, const std::vector<FeatureRequest>& requests, std::vector<int>& gpus,
                       std::string& warning) {
  if (opts.backend == Backend::cpu) return Backend::cpu;
  std::string why_not;
  gpus = usable_gpus(opts, why_not);
  if (why_not.empty()) {
    for (const auto& req : requests) {
      if (!req.info->has_cuda) {
        why_not = fmt::format("feature {} has no CUDA version", req.info->name);
        break;
      }
    }
  }
  if (why_not.empty()) return Backend::cuda;
  auto option = [&](const char* name) { return fmt::format(fmt::runtime(opts.backend_option), name); };
  if (opts.backend == Backend::cuda)
    throw Error(fmt::format("{}: {} (use {} or auto)", option("cuda"), why_not, option("cpu")));
  warning = option("auto") + ": running on the cpu: " + why_not;
  return Backend::cpu;
}

// The backend chosen, and with cuda the runner settings of each gpus entry
// (worker thread w drives entry w % entries.size(), so each entry has the
// same number of threads).
struct BackendStart {
  Backend backend = Backend::cpu;
  std::vector<int> gpus;
  std::string warning;  // auto runs on the cpu: why
  std::vector<cuda::RunnerOptions> entries;
  bool fp32pair = false;  // some entry runs its kernels fp64-free
};

BackendStart start_backend(const RunOptions& opts, const std::vector<FeatureRequest>& requests,
                           const VideoFormat& fmt) {
  BackendStart s;
  s.backend = choose_backend(opts, requests, s.gpus, s.warning);
  if (s.backend != Backend::cuda) return s;
  for (const int g : s.gpus) {
    cuda::RunnerOptions ro;
    ro.gpu = g;
    ro.format = fmt;
    ro.graphs = opts.cuda_graphs;
    ro.timing = opts.cuda_timing;
    ro.arith = cuda::choose_device_arith(
        opts.device_fp64, opts.device_fp64 == DeviceFp64::automatic ? cuda::fp32_to_fp64_ratio(g) : 0);
    s.fp32pair = s.fp32pair || ro.arith == cuda::DeviceArith::fp32pair;
    s.entries.push_back(ro);
  }
  return s;
}

// One history ring per GPU (RunOptions::cuda_history_ring), shared by its
// entries' runners, holding the frames in flight and the history.
void attach_history_rings(BackendStart& s, const RunOptions& opts, std::size_t frames_in_flight, unsigned history) {
  if (s.backend != Backend::cuda || !opts.cuda_history_ring || history == 0) return;
  std::map<int, std::shared_ptr<cuda::SharedHistoryRing>> rings;
  for (cuda::RunnerOptions& ro : s.entries) {
    auto& ring = rings[ro.gpu];
    if (!ring) ring = std::make_shared<cuda::SharedHistoryRing>();
    ro.history_ring = ring;
    ro.history_slots = static_cast<unsigned>(frames_in_flight) + history + 1;
  }
}

std::optional<pipeline::testing::FakeCudaStart> g_fake_cuda_start;  // pipeline::testing

// The start the head threads hide: start_backend, or the tests' stand-in.
BackendStart start_backend_behind_head(const RunOptions& opts, const std::vector<FeatureRequest>& requests,
                                       const VideoFormat& fmt) {
  if (!g_fake_cuda_start) return start_backend(opts, requests, fmt);
  std::this_thread::sleep_for(g_fake_cuda_start->delay);
  if (!g_fake_cuda_start->error.empty()) throw Error(g_fake_cuda_start->error);
  BackendStart s;
  s.warning = "--backend auto: running on the cpu: a test's stand-in for the CUDA start";
  return s;
}

// Head threads at most. Each makes every feature's CPU worker and faults in
// its scratch (tens of MB at 1080p) while the driver starts and page-locks
// memory: measured on an H100, 15 head threads delayed the device by
// 20-320 ms and halved its rate after the hand-over, where 2 or 4 brought
// the first 1080p frame from ~260 ms to ~100 ms with whole runs unchanged.
constexpr unsigned kMaxHeadThreads = 4;

// Whether CPU threads score the first frames while the CUDA backend starts
// (RunOptions::cpu_while_cuda_starts): only where the start is worth hiding
// and the CPU can score what the source gives.
bool cpu_head_wanted(const RunOptions& opts, const std::vector<FeatureRequest>& requests,
                     const pipeline::PairSource& source) {
  if (!opts.cpu_while_cuda_starts || opts.backend == Backend::cpu || opts.gpus.empty()) return false;
  if (g_fake_cuda_start) return source.host_frames_only();
  if (!source.host_frames_only() || cuda::driver_started()) return false;
  return std::all_of(requests.begin(), requests.end(), [](const FeatureRequest& r) { return r.info->has_cuda; });
}

// libvmaf keeps the first request of a feature with a given option suffix
// (its feature_output_name); requests with other suffixes run as well.
std::vector<FeatureRequest> unique_requests(std::vector<FeatureRequest> features) {
  std::vector<FeatureRequest> unique;
  std::vector<std::string> unique_keys;
  for (auto& f : features) {
    std::string key = feature_output_name(f.info->name, f.options);
    if (std::find(unique_keys.begin(), unique_keys.end(), key) != unique_keys.end()) continue;
    unique_keys.push_back(std::move(key));
    unique.push_back(std::move(f));
  }
  return unique;
}

// One initialised extractor per request, its outputs registered in `scores`.
std::vector<Extractor> make_extractors(const std::vector<FeatureRequest>& requests, const VideoFormat& fmt,
                                       ScoreTable& scores) {
  std::vector<Extractor> extractors;
  for (const auto& req : requests) {
    Extractor e;
    e.impl = req.info->create(req.options);
    for (const auto& name : e.impl->init(fmt)) e.metric_ids.push_back(scores.add_metric(name));
    e.every_frame = req.info->every_frame;
    e.history = e.impl->history();
    extractors.push_back(std::move(e));
  }
  return extractors;
}

// How many threads and frame buffers a run uses.
struct Plan {
  unsigned threads = 1;
  std::size_t window = 3;          // frames in flight
  unsigned parallel_readers = 1;   // per input
  std::size_t pool_size = 0;       // frame buffers per input
};

Plan make_plan(const RunOptions& opts, Backend backend, std::size_t gpu_count, unsigned history) {
  Plan p;
  // cuda: each worker thread is one frame in flight; four per GPU keep the
  // H200 busy (measured: 8 and 16 are slower, docs/benchmarks.md).
  if (backend == Backend::cuda) {
    p.threads = (opts.threads ? opts.threads : 4u) * static_cast<unsigned>(gpu_count);
  } else {
    p.threads = opts.threads ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
  }
  // Frames in flight: one per worker plus two ready, so no worker waits for
  // the commit thread. Few buffers keep the working set in the cache.
  p.window = static_cast<std::size_t>(p.threads) + 2;
  // Inputs readable by frame index get several reader threads when there
  // are cores to spare (reading from the page cache scales with threads).
  // With cuda the workers mostly wait for the device, so reading gets the
  // cores: half of them per input, whatever --threads is.
  const unsigned reader_cores =
      backend == Backend::cuda ? std::max(1u, std::thread::hardware_concurrency()) : p.threads;
  p.parallel_readers = std::clamp(reader_cores / 2, 1u, 8u);
  const std::size_t read_ahead = std::max<std::size_t>(opts.read_ahead ? opts.read_ahead : 2, p.parallel_readers);
  p.pool_size = p.window + history + read_ahead + 1;
  return p;
}

std::uint64_t skip_frames(VideoReader& r, std::uint64_t n) {
  std::uint64_t s = 0;
  while (s < n && r.skip_frame()) ++s;
  return s;
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
    skipped_ref_ = skip_frames(ref_, opts_.frame_skip_ref);
    skipped_dist_ = skip_frames(dist_, opts_.frame_skip_dist);
    const VideoFormat& fmt = ref_.info().format;
    ref_pool_ = FramePool::create(fmt, needs.buffers, needs.memory);
    dist_pool_ = FramePool::create(fmt, needs.buffers, needs.memory);
    ref_in_.emplace(ref_, ref_pool_, skipped_ref_, opts_.frame_cnt, needs.parallel_readers);
    dist_in_.emplace(dist_, dist_pool_, skipped_dist_, opts_.frame_cnt, needs.parallel_readers);
    ref_in_->start();
    dist_in_->start();
    timing_.emplace(ref_, dist_, skipped_ref_, skipped_dist_);
    if (!timing_->rate_warning().empty() && opts_.on_warning) opts_.on_warning(timing_->rate_warning());
  }

  Pull next(std::shared_ptr<FrameBuffer>& r, std::shared_ptr<FrameBuffer>& d) override {
    r = ref_in_->pop();
    d = dist_in_->pop();
    if (r && d) {
      timing_->pair(pairs_, r->timestamp(), d->timestamp());
      ++pairs_;
      return Pull::pair;
    }
    if (r || d) {
      // One input ended first: libvmaf stops there and warns; we say both counts.
      InputStream& longer = r ? *ref_in_ : *dist_in_;
      const VideoReader& shorter = r ? dist_ : ref_;
      const std::uint64_t skipped = r ? skipped_ref_ : skipped_dist_;
      const VideoInfo& longer_info = longer.reader().info();
      std::string longer_frames;
      if (!longer_info.frame_count && longer_info.frame_count_estimate) {
        // A compressed input: what its container says, rather than decoding
        // the rest of a long clip just to count it.
        std::uint64_t n = *longer_info.frame_count_estimate > skipped ? *longer_info.frame_count_estimate - skipped : 0;
        if (opts_.frame_cnt) n = std::min(n, opts_.frame_cnt);
        longer_frames = fmt::format("about {} frames, as its container says", std::max(n, pairs_ + 1));
      } else {
        longer_frames = fmt::format("{} frames", pipeline::frames_in_input(longer, skipped, pairs_ + 1));
      }
      if (opts_.on_warning)
        opts_.on_warning(fmt::format("\"{}\" ended after {} frames, before \"{}\" ({}); scored the first {}",
                                     shorter.path(), pairs_, longer.reader().path(), longer_frames, pairs_));
    }
    if (opts_.on_warning && timing_) {
      const std::string w = timing_->summary_warning();
      if (!w.empty()) opts_.on_warning(w);
    }
    r.reset();
    d.reset();
    return Pull::end;
  }

  void stop() override {
    if (ref_in_) ref_in_->stop();
    if (dist_in_) dist_in_->stop();
  }

  bool host_frames_only() const override {
    // A reader that decodes on the GPU (--hwdec cuda) gives device frames.
    return !ref_.info().decoded_on_gpu() && !dist_.info().decoded_on_gpu();
  }

  void use_memory(const HostMemory& memory, std::size_t buffers) override {
    ref_pool_->use_memory(memory, buffers);
    dist_pool_->use_memory(memory, buffers);
  }

  std::uint64_t frames_total() const override {
    // For progress only: a compressed input's container count will do.
    const auto count = [](const VideoInfo& i) { return i.frame_count ? i.frame_count : i.frame_count_estimate; };
    const auto rc = count(ref_.info()), dc = count(dist_.info());
    if (!rc || !dc) return 0;
    std::uint64_t n = std::min(*rc - std::min(*rc, skipped_ref_), *dc - std::min(*dc, skipped_dist_));
    if (opts_.frame_cnt) n = std::min(n, opts_.frame_cnt);
    return n;
  }

 private:
  VideoReader& ref_;
  VideoReader& dist_;
  const RunOptions& opts_;
  std::uint64_t skipped_ref_ = 0, skipped_dist_ = 0, pairs_ = 0;
  std::shared_ptr<FramePool> ref_pool_, dist_pool_;
  std::optional<InputStream> ref_in_, dist_in_;
  std::optional<pipeline::PairTiming> timing_;
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

// Feeds the source's frames to the workers (with their history) and commits
// each frame's values in frame order into result.scores; returns the frames
// committed. `head`: CPU threads that score frames until the workers are
// ready; *head_frames: how many they scored.
std::uint64_t score_frames(pipeline::PairSource& source, std::uint64_t frames_total, unsigned history,
                           const Plan& plan, std::vector<Extractor>& extractors,
                           const pipeline::ProcessorFactory& make_processor, pipeline::HeadWorkers head,
                           const RunOptions& opts, const pipeline::Hooks& hooks, RunResult& result,
                           Clock::time_point t0, std::uint64_t* head_frames) {
  std::uint64_t committed = 0;
  WorkerPool workers(plan.threads, extractors, make_processor, plan.window, [&source] { source.wake(); },
                     std::move(head));
  std::deque<std::pair<std::shared_ptr<FrameBuffer>, std::shared_ptr<FrameBuffer>>> recent;
  auto commit_one = [&] {
    pipeline::FrameResult r = workers.take(committed);
    for (std::size_t e = 0; e < extractors.size(); ++e)
      for (const auto& entry : r.outputs[e].entries())
        result.scores.set(extractors[e].metric_ids.at(entry.slot), committed, entry.value);
    if (hooks.on_commit) hooks.on_commit(committed, result.scores);
    if (committed == 0) pipeline::startup_mark("first frame committed");
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
    const pipeline::PairSource::Pull pull = source.next(r, d);
    if (pull == pipeline::PairSource::Pull::end) break;
    if (pull == pipeline::PairSource::Pull::woken) continue;
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
    while (!workers.has_room()) {
      if (workers.ready(committed)) commit_one();
      else workers.wait_for_room_or(committed);
    }
    workers.submit(std::move(task));
    ++index;
  }
  if (index == 0) pipeline::startup_mark("no frame to score");
  recent.clear();
  while (committed < index) commit_one();
  pipeline::startup_mark(fmt::format("last frame committed ({} frames)", committed));
  *head_frames = workers.head_frames();
  return committed;
}

}  // namespace

RunResult pipeline::run_pairs(PairSource& source, const VideoFormat& fmt, std::vector<FeatureRequest> features,
                              const RunOptions& opts, const Hooks& hooks) {
  FpEnvGuard env;
  SourceStop stop_source(source);
  if (features.empty()) throw Error("no feature requested (use --feature NAME or a model)");
  if (opts.subsample == 0) throw Error("--subsample must be at least 1");

  RunResult result;
  result.format = fmt;
  const std::vector<FeatureRequest> requests = unique_requests(std::move(features));
  std::vector<Extractor> extractors = make_extractors(requests, fmt, result.scores);
  unsigned history = 0;
  bool luma_only = true;
  for (std::size_t e = 0; e < requests.size(); ++e) {
    history = std::max(history, extractors[e].history);
    const FeatureInfo& info = *requests[e].info;
    luma_only = luma_only && (info.luma_only || (!info.chroma_option.empty() &&
                                                 !requests[e].options.get_bool(info.chroma_option)));
  }

  pipeline::startup_mark("features initialised");
  pipeline::ProcessorFactory make_cpu = [&extractors](unsigned) { return pipeline::make_cpu_processor(extractors); };
  pipeline::CudaTotals cuda_totals;  // summed by the processors as they end
  const auto cuda_factory = [&extractors, &cuda_totals](const BackendStart& s, unsigned worker) {
    const std::size_t entry = worker % s.entries.size();
    return pipeline::make_cuda_processor(s.entries[entry], entry, extractors, &cuda_totals);
  };
  const bool head = cpu_head_wanted(opts, requests, source);
  BackendStart started;
  Plan plan;
  pipeline::ProcessorFactory make_processor = make_cpu;
  pipeline::HeadWorkers head_workers;
  Plan cpu_plan;  // head: the run's plan should the start fall back to the cpu
  unsigned cuda_threads = 0;
  std::size_t cuda_pool_size = 0;  // head: frame buffers per input once the device runs
  if (head) {
    // The workers are made for either backend; the head's frames in flight
    // get buffers of their own.
    plan = make_plan(opts, Backend::cuda, opts.gpus.size(), history);
    cuda_threads = plan.threads;
    cpu_plan = make_plan(opts, Backend::cpu, 1, history);
    plan.threads = std::max(cuda_threads, cpu_plan.threads);
    // One thread per core but one (for the driver's start), at most
    // --threads and kMaxHeadThreads.
    unsigned head_threads = std::min(std::max(2u, std::thread::hardware_concurrency()) - 1, kMaxHeadThreads);
    if (opts.threads) head_threads = std::min(head_threads, opts.threads);
    head_workers = {head_threads,
                    [&extractors](unsigned, const std::atomic<bool>* stop) {
                      return pipeline::make_cpu_processor(extractors, stop);
                    },
                    static_cast<std::size_t>(head_threads) + 2};
    cuda_pool_size = plan.pool_size + head_threads;  // and the head's frames in hand at the hand-over
    plan.pool_size = std::max(plan.pool_size, cpu_plan.pool_size) + head_workers.window;
    pipeline::startup_mark(fmt::format("cuda starting; {} cpu threads score frames meanwhile", head_threads));
  } else {
    started = start_backend(opts, requests, fmt);
    if (!started.warning.empty() && opts.on_warning) opts.on_warning(started.warning);
    if (started.backend == Backend::cuda) {
      cuda_totals.entry_frames.assign(started.gpus.size(), 0);
      make_processor = [&started, cuda_factory](unsigned worker) { return cuda_factory(started, worker); };
    }
    plan = make_plan(opts, started.backend, started.gpus.size(), history);
    attach_history_rings(started, opts, plan.window, history);
    pipeline::startup_mark(started.backend == Backend::cuda ? "backend chosen: cuda (driver, contexts, kernel check)"
                                                            : "backend chosen: cpu");
  }

  const auto t0 = Clock::now();
  SourceNeeds needs;
  needs.buffers = plan.pool_size;
  needs.parallel_readers = plan.parallel_readers;
  // With the head, buffers are pageable until the device is ready.
  if (!head && started.backend == Backend::cuda) needs.memory = {true, started.gpus.front()};
  needs.luma_only = luma_only;
  needs.backend = head ? Backend::cuda : started.backend;
  needs.threads = plan.threads;
  needs.cuda_fp32pair = started.fp32pair;
  source.start(needs);
  pipeline::startup_mark("inputs started (buffers allocated and pinned, readers running)");

  std::shared_future<BackendStart> starting;
  if (head) {
    // The driver and contexts start on their own thread; the workers wait for
    // them in their factory, while the head threads score frames.
    starting = std::async(std::launch::async, [&opts, &requests, &fmt, &source, &cuda_totals, cuda_pool_size,
                                               cuda_window = cuda_threads + std::size_t{2}, history] {
                 FpEnvGuard env;
                 BackendStart s = start_backend_behind_head(opts, requests, fmt);
                 attach_history_rings(s, opts, cuda_window, history);
                 if (s.backend == Backend::cuda) {
                   cuda_totals.entry_frames.assign(s.gpus.size(), 0);
                   // Registered portable: every device copies from it.
                   source.use_memory({true, s.gpus.front()}, cuda_pool_size);
                 }
                 pipeline::startup_mark(s.backend == Backend::cuda
                                            ? "backend chosen: cuda (driver, contexts, kernel check)"
                                            : "backend chosen: cpu (cpu workers take over from the head threads)");
                 return s;
               }).share();
    make_processor = [starting, cuda_factory, make_cpu, cuda_threads,
                      cpu_threads = cpu_plan.threads](unsigned worker) -> std::unique_ptr<pipeline::FrameProcessor> {
      const BackendStart& s = starting.get();  // rethrows the start's error
      if (s.backend == Backend::cuda) return worker < cuda_threads ? cuda_factory(s, worker) : nullptr;
      return worker < cpu_threads ? make_cpu(worker) : nullptr;
    };
  }
  std::uint64_t head_frames = 0;
  result.frames = score_frames(source, source.frames_total(), history, plan, extractors, make_processor,
                               head_workers, opts, hooks, result, t0, &head_frames);
  if (head) {
    started = starting.get();  // ready: the workers waited for it (rethrows a required device's error)
    if (!started.warning.empty() && opts.on_warning) opts.on_warning(started.warning);
    result.cpu_head_frames = head_frames;
  }
  result.backend = started.backend;
  result.threads = !head ? plan.threads : started.backend == Backend::cuda ? cuda_threads : cpu_plan.threads;
  result.cuda_fp32pair = started.fp32pair;
  if (started.backend == Backend::cuda) result.cuda_gpus = started.gpus;

  for (auto& e : extractors) e.impl->flush(result.scores);
  result.scores.order_metrics_by_first_write();
  const cuda::RunnerStats& cuda_times = cuda_totals.stats;
  result.cuda_upload_ms = cuda_times.upload_ms;
  result.cuda_kernel_ms = cuda_times.kernel_ms;
  result.cuda_host_frames = cuda_times.host_frames;
  result.cuda_host_downloads = cuda_times.host_downloads;
  result.cuda_history_on_device = cuda_times.history_on_device;
  result.cuda_history_uploaded = cuda_times.history_uploaded;
  result.cuda_pair_islands = cuda_times.arith.pair_islands;
  result.cuda_replays = cuda_times.arith.replays;
  result.cuda_exact_islands = cuda_times.arith.exact_islands;
  result.cuda_host_samples = cuda_times.arith.host_samples;
  result.cuda_gpu_frames = cuda_totals.entry_frames;
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  result.fps = result.seconds > 0 ? static_cast<double>(result.frames) / result.seconds : 0;
  return result;
}

namespace pipeline::testing {
void set_fake_cuda_start(std::optional<FakeCudaStart> fake) { g_fake_cuda_start = std::move(fake); }
}  // namespace pipeline::testing

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
