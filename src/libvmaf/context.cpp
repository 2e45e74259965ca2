// VmafContext (context.hpp): the push adapter in front of the pipeline.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/pipeline.hpp"
#include "libvmaf/context.hpp"  // after the system headers (numeric/no_libm.hpp poisons libm names)
#include "exactvmaf/exactvmaf.hpp"
#include "exactvmaf/model.hpp"
#include "exactvmaf/output.hpp"
#include "exactvmaf/simd.hpp"
#include "output/report_detail.hpp"

namespace exactvmaf::capi {

Registry<VmafContext> g_contexts;

// Picture pairs handed from the caller's thread to the pipeline's: a short
// bounded queue (the caller waits while it is full, so frames in flight stay
// bounded), the end of input (the flush), and a stop from either side.
class PushSource final : public pipeline::PairSource {
 public:
  using Frame = std::shared_ptr<FrameBuffer>;

  void start(const pipeline::SourceNeeds& needs) override {
    std::lock_guard lock(mutex_);
    needs_ = needs;
    started_ = true;
    cv_.notify_all();
  }
  Pull next(Frame& ref, Frame& dist) override {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !queue_.empty() || ended_ || stopped_ || woken_; });
    woken_ = false;
    if (stopped_) return Pull::end;
    if (queue_.empty()) return ended_ ? Pull::end : Pull::woken;
    ref = std::move(queue_.front().first);
    dist = std::move(queue_.front().second);
    queue_.pop_front();
    cv_.notify_all();
    return Pull::pair;
  }
  void wake() override {
    std::lock_guard lock(mutex_);
    woken_ = true;
    cv_.notify_all();
  }
  void stop() override {
    std::deque<std::pair<Frame, Frame>> dropped;
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
      dropped.swap(queue_);
    }
    cv_.notify_all();
  }

  // The caller's side. False when the pipeline stopped before it started
  // (its setup failed).
  bool wait_started() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return started_ || stopped_; });
    return started_;
  }
  const pipeline::SourceNeeds& needs() const { return needs_; }  // after wait_started()
  // False when the pipeline has stopped (it failed).
  bool push(Frame ref, Frame dist) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return queue_.size() < kCapacity || stopped_; });
    if (stopped_) return false;
    queue_.emplace_back(std::move(ref), std::move(dist));
    cv_.notify_all();
    return true;
  }
  void end() {
    std::lock_guard lock(mutex_);
    ended_ = true;
    cv_.notify_all();
  }

 private:
  static constexpr std::size_t kCapacity = 2;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<Frame, Frame>> queue_;
  pipeline::SourceNeeds needs_;
  bool started_ = false, ended_ = false, stopped_ = false, woken_ = false;
};

namespace {

// Unreferences a picture when the scope ends (vmaf_read_pictures owns both).
class PictureOwner {
 public:
  explicit PictureOwner(VmafPicture* pic) : pic_(pic) {}
  ~PictureOwner() {
    if (pic_ != nullptr) (void)release_picture(*pic_);
  }
  PictureOwner(const PictureOwner&) = delete;
  PictureOwner& operator=(const PictureOwner&) = delete;

 private:
  VmafPicture* pic_;
};

PoolMethod pool_method(int m) {
  switch (m) {
    case VMAF_POOL_METHOD_MIN: return PoolMethod::min;
    case VMAF_POOL_METHOD_MAX: return PoolMethod::max;
    case VMAF_POOL_METHOD_MEAN: return PoolMethod::mean;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: return PoolMethod::harmonic_mean;
    default: fail(fmt::format("pool_method {} is not VMAF_POOL_METHOD_MIN, _MAX, _MEAN or _HARMONIC_MEAN", m));
  }
}

// The names a bootstrap collection's statistics are written under.
struct CollectionNames {
  std::string bagging, stddev, lo, hi;
  explicit CollectionNames(const std::string& name)
      : bagging(name + "_bagging"), stddev(name + "_stddev"), lo(name + "_ci_p95_lo"), hi(name + "_ci_p95_hi") {}
};

void copy_metric(const ScoreTable& from, std::string_view name, std::uint64_t from_frame, ScoreTable& to,
                 std::uint64_t to_frame) {
  const auto id = from.find_metric(name);
  if (!id) fail(fmt::format("internal: no metric {}", name));
  to.set(to.add_metric(name), to_frame, *from.get(*id, from_frame));
}

}  // namespace

}  // namespace exactvmaf::capi

using namespace exactvmaf;
using namespace exactvmaf::capi;

VmafContext::VmafContext(const VmafConfiguration& cfg) : cfg_(cfg), source_(std::make_unique<PushSource>()) {}

VmafContext::~VmafContext() {
  if (runner_.joinable()) {
    source_->stop();  // the pipeline scores what it holds and ends
    runner_.join();
  }
}

void VmafContext::fail_stage(const char* action) const {
  switch (stage_) {
    case Stage::setup: fail(fmt::format("{}: no picture was given yet", action));
    case Stage::running: fail(fmt::format("{}: only before the first picture", action));
    case Stage::flushed: fail(fmt::format("{}: the context was already flushed", action));
    case Stage::failed: fail(fmt::format("{}: the context's run failed earlier: {}", action, error_));
  }
  fail(action);
}

Backend VmafContext::backend() const {
  if (const char* env = std::getenv("EXACTVMAF_BACKEND"); env != nullptr && *env != '\0') {
    const std::string_view b = env;
    if (b == "cpu") return Backend::cpu;
    if (b == "cuda") return Backend::cuda;
    if (b == "auto") return Backend::automatic;
    fail(fmt::format("EXACTVMAF_BACKEND={}: expected cpu, cuda or auto", b));
  }
  if (cfg_.gpumask != 0) return Backend::cpu;
  // A CUDA state (or a *_cuda feature) asks for the GPU; exactvmaf runs every
  // feature on one backend, so a feature without a CUDA version moves the
  // whole run to the CPU (same bits, one warning).
  return cuda_ || wants_cuda_ ? Backend::automatic : Backend::cpu;
}

DeviceFp64 VmafContext::device_fp64() const {
  const char* env = std::getenv("EXACTVMAF_DEVICE_FP64");
  if (env == nullptr || *env == '\0') return DeviceFp64::automatic;
  try {
    return parse_device_fp64(env, "EXACTVMAF_DEVICE_FP64={}");
  } catch (const Error& e) {
    fail(e.what());
  }
}

void VmafContext::use_feature(FeatureRequest request, bool wants_cuda) {
  Lock lock(mutex_);
  if (stage_ != Stage::setup) fail_stage("registering a feature");
  features_.push_back(std::move(request));
  wants_cuda_ = wants_cuda_ || wants_cuda;
}

void VmafContext::use_model(const Model& model) {
  std::vector<FeatureRequest> requests = model_feature_requests({model});
  Lock lock(mutex_);
  if (stage_ != Stage::setup) fail_stage("registering a model's features");
  for (auto& r : requests) features_.push_back(std::move(r));
}

void VmafContext::use_cuda(const CudaDevice& device) {
  Lock lock(mutex_);
  if (stage_ != Stage::setup) fail_stage("importing a CUDA state");
  cuda_ = device;
}

void VmafContext::import_score(std::string_view name, double value, unsigned index) {
  Lock lock(mutex_);
  if (stage_ == Stage::failed) fail_stage("importing a score");
  // Stored under the name reports print, as libvmaf's alias table maps it.
  const std::string metric(detail::metric_print_name(name));
  ScoreTable& table = stage_ == Stage::flushed ? result_.scores : imported_;
  const std::size_t id = table.add_metric(metric);
  if (table.written(id, index) || (stage_ == Stage::running && lookup(live_, metric, index)))
    fail(fmt::format("{} already has a score at index {}", metric, index));
  table.set(id, index, value);
}

void VmafContext::start(const VideoFormat& format, Lock& lock) {
  if (features_.empty())
    fail("no feature to compute: register features or a model (vmaf_use_feature, vmaf_use_features_from_model) "
         "before the first picture");
  RunOptions opts;
  opts.threads = cfg_.n_threads;
  opts.subsample = std::max(1u, cfg_.n_subsample);
  opts.backend = backend();
  const char* env = std::getenv("EXACTVMAF_BACKEND");
  opts.backend_option = env != nullptr && *env != '\0' ? "EXACTVMAF_BACKEND={}" : "the CUDA request (backend {})";
  opts.gpus = {cuda_ ? cuda_->device : 0};
  opts.device_fp64 = device_fp64();
  // As the CLI: off on the CPU runs the fp64-free arithmetic there (process-wide).
  if (opts.device_fp64 == DeviceFp64::off && opts.backend == Backend::cpu) set_fp64_emulation(true);
  opts.on_warning = [](const std::string& w) { log_line(VMAF_LOG_LEVEL_WARNING, "vmaf_read_pictures", w); };
  pipeline::Hooks hooks;
  hooks.on_commit = [this](std::uint64_t frame, const ScoreTable& table) { commit(frame, table); };
  format_ = format;
  stage_ = Stage::running;
  runner_ = std::thread([this, format, opts, hooks, features = features_]() mutable {
    std::string error;
    RunResult result;
    try {
      result = pipeline::run_pairs(*source_, format, std::move(features), opts, hooks);
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unknown error";
    } catch (...) {
      error = "unexpected internal error";
    }
    {
      std::lock_guard l(mutex_);
      if (error.empty()) result_ = std::move(result);
      else error_ = std::move(error);
      run_done_ = true;
    }
    cv_.notify_all();
  });
  lock.unlock();
  const bool started = source_->wait_started();
  if (started) {
    const pipeline::SourceNeeds& needs = source_->needs();
    // Host copies of device pictures: as many as the pipeline may hold of
    // both inputs, so that copying never waits for more than the workers.
    if (cuda_) download_pool_ = FramePool::create(format, 2 * needs.buffers + 2, needs.memory);
    log_line(VMAF_LOG_LEVEL_INFO, "vmaf_read_pictures",
             fmt::format("scoring {} on {} ({} {}{})", format.describe(), backend_name(needs.backend), needs.threads,
                         needs.backend == Backend::cuda ? "frames in flight" : "threads",
                         (needs.backend == Backend::cuda ? needs.cuda_fp32pair : fp64_emulation())
                             ? ", fp64-free arithmetic"
                             : ""));
  }
  lock.lock();
  if (!started) {
    lock.unlock();
    runner_.join();
    lock.lock();
    stage_ = Stage::failed;
    fail(error_);
  }
}

void VmafContext::commit(std::uint64_t frame, const ScoreTable& table) {
  std::lock_guard lock(mutex_);
  for (std::size_t id = live_ids_.size(); id < table.metric_count(); ++id)
    live_ids_.push_back(live_.add_metric(table.metric_name(id)));
  for (std::size_t id = 0; id < table.metric_count(); ++id)
    if (const auto v = table.get(id, frame)) live_.set(live_ids_[id], frame, *v);
  committed_ = frame + 1;
  cv_.notify_all();
}

void VmafContext::read(VmafPicture& ref_pic, VmafPicture& dist_pic, unsigned index) {
  PictureOwner own_ref(&ref_pic);
  PictureOwner own_dist(&dist_pic == &ref_pic ? nullptr : &dist_pic);
  if (&ref_pic == &dist_pic) fail("ref and dist are the same picture");
  const VmafRef& ref = picture_ref(ref_pic, "ref");
  const VmafRef& dist = picture_ref(dist_pic, "dist");
  const VideoFormat& rf = ref.host ? ref.host->format() : ref.device->format();
  const VideoFormat& df = dist.host ? dist.host->format() : dist.device->format();
  if (!(rf == df)) fail(fmt::format("ref is {} but dist is {}", rf.describe(), df.describe()));
  if (bool(ref.host) != bool(dist.host)) fail("ref and dist must both be host pictures or both device pictures");
  std::shared_ptr<FrameBuffer> r = ref.host, d = dist.host;

  Lock lock(mutex_);
  if (stage_ == Stage::flushed) fail("a picture after the flush (vmaf_read_pictures with NULL, NULL ended the input)");
  if (stage_ == Stage::failed) fail_stage("reading pictures");
  if (index != given_)
    fail(fmt::format("index {}: pictures must be given in order, this one is number {} (counting from 0)", index,
                     given_));
  if (stage_ == Stage::setup) {
    if (ref.device && !cuda_) fail("device pictures need a CUDA state (vmaf_cuda_import_state)");
    start(rf, lock);
  } else if (!(rf == format_)) {
    fail(fmt::format("the pictures are {}; this context scores {} (the size and format of its first pictures)",
                     rf.describe(), format_.describe()));
  }
  ++given_;
  lock.unlock();
  bool pushed = false;
  try {
    if (ref.device) {
      r = ref.device->download(*download_pool_);
      d = dist.device->download(*download_pool_);
    }
    pushed = source_->push(std::move(r), std::move(d));
  } catch (const std::exception& e) {
    // The picture counted as given never reaches the pipeline: stop it.
    source_->stop();
    runner_.join();
    lock.lock();
    stage_ = Stage::failed;
    if (error_.empty()) error_ = e.what();
    throw;
  }
  if (!pushed) {
    runner_.join();
    lock.lock();
    stage_ = Stage::failed;
    fail(error_);
  }
}

void VmafContext::flush() {
  Lock lock(mutex_);
  if (stage_ == Stage::flushed) fail("the context was already flushed");
  if (stage_ == Stage::failed) fail_stage("flushing");
  if (stage_ == Stage::setup) {
    // No picture: nothing to score (libvmaf flushes an empty context too).
    result_.scores = std::move(imported_);
    stage_ = Stage::flushed;
    return;
  }
  lock.unlock();
  source_->end();
  runner_.join();
  lock.lock();
  if (!error_.empty()) {
    stage_ = Stage::failed;
    fail(error_);
  }
  // Scores imported before the flush join the table after the computed ones.
  ScoreTable& table = result_.scores;
  for (std::size_t m = 0; m < imported_.metric_count(); ++m) {
    const std::string& name = imported_.metric_name(m);
    const std::size_t id = table.add_metric(name);
    for (std::uint64_t f = 0; f < imported_.frame_capacity(); ++f) {
      const auto v = imported_.get(m, f);
      if (!v) continue;
      if (table.written(id, f))
        log_line(VMAF_LOG_LEVEL_WARNING, "vmaf_read_pictures",
                 fmt::format("imported {} at index {} ignored: the feature computed it", name, f));
      else
        table.set(id, f, *v);
    }
  }
  stage_ = Stage::flushed;
  cv_.notify_all();
}

const ScoreTable& VmafContext::table_for(unsigned index, Lock& lock) {
  switch (stage_) {
    case Stage::flushed: return result_.scores;
    case Stage::setup: return imported_;
    case Stage::failed: fail_stage("reading a score");
    case Stage::running: break;
  }
  if (index >= given_)
    fail(fmt::format("picture {} was not given yet ({} given)", index, given_));
  cv_.wait(lock, [&] { return committed_ > index || run_done_; });
  if (committed_ <= index) fail(fmt::format("the run failed before picture {} was scored: {}", index, error_));
  return live_;
}

std::optional<double> VmafContext::lookup(const ScoreTable& table, std::string_view name, unsigned index) const {
  auto id = table.find_metric(name);
  if (!id) id = table.find_metric(detail::metric_print_name(name));  // libvmaf's full name
  if (id) {
    if (const auto v = table.get(*id, index)) return v;
  }
  if (&table == &live_) return lookup(imported_, name, index);
  return std::nullopt;
}

double VmafContext::feature_score(std::string_view name, unsigned index) {
  Lock lock(mutex_);
  const ScoreTable& table = table_for(index, lock);
  if (const auto v = lookup(table, name, index)) return *v;
  fail(fmt::format("no score of {} at index {}{}", name, index,
                   stage_ == Stage::running ? " (scores derived from the whole clip come with the flush)" : ""));
}

ScoreTable VmafContext::features_at(const std::vector<const SvrModel*>& svr_models, unsigned index, Lock& lock) {
  const ScoreTable& table = table_for(index, lock);
  ScoreTable one;
  for (const SvrModel* m : svr_models) {
    for (const auto& f : m->features) {
      const std::string metric = model_feature_metric(f);
      const auto v = lookup(table, metric, index);
      if (!v)
        fail(fmt::format("model {}: no {} at index {}{}", m->name, metric, index,
                         stage_ == Stage::running ? " yet (values derived from the whole clip, such as "
                                                    "integer_motion2, come with the flush: vmaf_read_pictures(vmaf, "
                                                    "NULL, NULL, 0))"
                                                  : ""));
      one.set(one.add_metric(metric), 0, *v);
    }
  }
  return one;
}

double VmafContext::model_score(const Model& model, unsigned index) {
  Lock lock(mutex_);
  const std::string& name = model.main.name;
  if (stage_ == Stage::flushed) {
    if (const auto v = lookup(result_.scores, name, index)) return *v;
  }
  ScoreTable one = features_at({&model.main}, index, lock);
  predict_model(model.main, one, 1);
  const double score = *one.get(*one.find_metric(name), 0);
  // As libvmaf: a score asked for after the flush joins the report.
  if (stage_ == Stage::flushed) result_.scores.set(result_.scores.add_metric(name), index, score);
  return score;
}

VmafModelCollectionScore VmafContext::collection_score(const Model& collection, unsigned index) {
  Lock lock(mutex_);
  const CollectionNames names(collection.collection_name);
  VmafModelCollectionScore s{};
  s.type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
  if (stage_ == Stage::flushed) {
    const auto bagging = lookup(result_.scores, names.bagging, index);
    if (bagging) {
      s.bootstrap.bagging_score = *bagging;
      s.bootstrap.stddev = *lookup(result_.scores, names.stddev, index);
      s.bootstrap.ci.p95.lo = *lookup(result_.scores, names.lo, index);
      s.bootstrap.ci.p95.hi = *lookup(result_.scores, names.hi, index);
      return s;
    }
  }
  std::vector<const SvrModel*> members;
  for (const auto& b : collection.bootstrap) members.push_back(&b);
  ScoreTable one = features_at(members, index, lock);
  predict_bootstrap(collection, one, 1);
  auto at0 = [&](const std::string& n) { return *one.get(*one.find_metric(n), 0); };
  s.bootstrap.bagging_score = at0(names.bagging);
  s.bootstrap.stddev = at0(names.stddev);
  s.bootstrap.ci.p95.lo = at0(names.lo);
  s.bootstrap.ci.p95.hi = at0(names.hi);
  if (stage_ == Stage::flushed) {
    for (const auto& b : collection.bootstrap) copy_metric(one, b.name, 0, result_.scores, index);
    for (const std::string* n : {&names.bagging, &names.stddev, &names.lo, &names.hi})
      copy_metric(one, *n, 0, result_.scores, index);
  }
  return s;
}

void VmafContext::check_pool_range(int method, unsigned lo, unsigned hi) const {
  (void)pool_method(method);
  if (lo > hi) fail(fmt::format("index_low {} is above index_high {}", lo, hi));
}

double VmafContext::feature_pooled(std::string_view name, int method, unsigned lo, unsigned hi) {
  check_pool_range(method, lo, hi);
  Lock lock(mutex_);
  const ScoreTable& table = table_for(hi, lock);
  const ScoreTable* source = &table;
  auto id = table.find_metric(name);
  if (!id) id = table.find_metric(detail::metric_print_name(name));
  if (!id && stage_ == Stage::running) {
    source = &imported_;
    id = imported_.find_metric(detail::metric_print_name(name));
  }
  if (!id) fail(fmt::format("no feature {}", name));
  const auto v = source->pooled(*id, pool_method(method), lo, hi, std::max(1u, cfg_.n_subsample));
  if (!v) fail(fmt::format("{} has no score at some index in {}..{}", name, lo, hi));
  return *v;
}

double VmafContext::model_pooled(const Model& model, int method, unsigned lo, unsigned hi) {
  check_pool_range(method, lo, hi);
  const unsigned step = std::max(1u, cfg_.n_subsample);
  ScoreTable scores;
  const std::size_t id = scores.add_metric(model.main.name);
  for (std::uint64_t i = lo; i <= hi; ++i)
    if (step == 1 || i % step == 0) scores.set(id, i, model_score(model, static_cast<unsigned>(i)));
  return *scores.pooled(id, pool_method(method), lo, hi, step);
}

VmafModelCollectionScore VmafContext::collection_pooled(const Model& collection, int method, unsigned lo,
                                                        unsigned hi) {
  check_pool_range(method, lo, hi);
  const unsigned step = std::max(1u, cfg_.n_subsample);
  ScoreTable scores;
  const std::size_t ids[4] = {scores.add_metric("bagging"), scores.add_metric("stddev"), scores.add_metric("lo"),
                              scores.add_metric("hi")};
  for (std::uint64_t i = lo; i <= hi; ++i) {
    if (step != 1 && i % step != 0) continue;
    const VmafModelCollectionScore s = collection_score(collection, static_cast<unsigned>(i));
    scores.set(ids[0], i, s.bootstrap.bagging_score);
    scores.set(ids[1], i, s.bootstrap.stddev);
    scores.set(ids[2], i, s.bootstrap.ci.p95.lo);
    scores.set(ids[3], i, s.bootstrap.ci.p95.hi);
  }
  const PoolMethod m = pool_method(method);
  VmafModelCollectionScore s{};
  s.type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
  s.bootstrap.bagging_score = *scores.pooled(ids[0], m, lo, hi, step);
  s.bootstrap.stddev = *scores.pooled(ids[1], m, lo, hi, step);
  s.bootstrap.ci.p95.lo = *scores.pooled(ids[2], m, lo, hi, step);
  s.bootstrap.ci.p95.hi = *scores.pooled(ids[3], m, lo, hi, step);
  return s;
}

void VmafContext::preallocate(const VideoFormat& format, unsigned count) {
  if (count == 0) fail("pic_cnt is 0");
  Lock lock(mutex_);
  if (pool_) fail("pictures were already preallocated for this context");
  pool_ = FramePool::create(format, count);
}

void VmafContext::fetch_preallocated(VmafPicture& pic) {
  std::shared_ptr<FramePool> pool;
  {
    Lock lock(mutex_);
    if (!pool_) fail("no preallocated pictures (call vmaf_preallocate_pictures first)");
    pool = pool_;
  }
  std::shared_ptr<FrameBuffer> frame = pool->acquire();  // waits while every picture is in use
  {
    // Zeroed when first handed out, then reused as the caller left it (libvmaf's pool).
    Lock lock(mutex_);
    if (pool_zeroed_.insert(frame.get()).second) zero_samples(*frame);
  }
  wrap_picture(pic, std::move(frame));
}

void VmafContext::cuda_preallocate(const VideoFormat& format, int method) {
  Lock lock(mutex_);
  cuda_pool_method_ = method;
  cuda_pool_format_.reset();
  if (method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE) return;
  if (method != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST && !cuda_)
    fail("device and page-locked pictures need a CUDA state (vmaf_cuda_import_state first)");
  cuda_pool_format_ = format;
}

void VmafContext::cuda_fetch_preallocated(VmafPicture& pic) {
  Lock lock(mutex_);
  if (!cuda_pool_format_)
    fail("no CUDA picture preallocation (vmaf_cuda_preallocate_pictures with a method other than NONE first)");
  const VideoFormat format = *cuda_pool_format_;
  switch (cuda_pool_method_) {
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE:
      wrap_picture(pic, make_device_frame(*cuda_, format));
      return;
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST:
    case VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED: {
      // A new picture each time, zeroed (libvmaf allocates these per fetch too).
      auto frame = cuda_pool_method_ == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST
                       ? std::make_shared<FrameBuffer>(format)
                       : make_pinned_frame(*cuda_, format);
      zero_samples(*frame);
      wrap_picture(pic, std::move(frame));
      return;
    }
    default: break;
  }
  fail("the CUDA preallocation method is NONE: no pictures to fetch");
}

void VmafContext::write_output(const char* path, int format) {
  OutputFormat out;
  switch (format) {
    case VMAF_OUTPUT_FORMAT_XML: out = OutputFormat::xml; break;
    case VMAF_OUTPUT_FORMAT_JSON: out = OutputFormat::json; break;
    case VMAF_OUTPUT_FORMAT_CSV: out = OutputFormat::csv; break;
    case VMAF_OUTPUT_FORMAT_SUB: out = OutputFormat::sub; break;
    default: fail(fmt::format("output format {} is not XML, JSON, CSV or SUB", format));
  }
  NumberFormat numbers;
  if (const char* p = std::getenv("EXACTVMAF_PRECISION"); p != nullptr && *p != '\0') {
    try {
      numbers = NumberFormat::parse(p);
    } catch (const Error& e) {
      fail(fmt::format("EXACTVMAF_PRECISION: {}", e.what()));
    }
  }
  Lock lock(mutex_);
  if (stage_ != Stage::flushed)
    fail("the report is written after the flush (vmaf_read_pictures(vmaf, NULL, NULL, 0))");
  OutputMeta meta;
  meta.version = exactvmaf::version();
  meta.subsample = std::max(1u, cfg_.n_subsample);
  meta.width = format_.width;
  meta.height = format_.height;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path, "w"), &std::fclose);
  if (!file) fail(fmt::format("{}: cannot write the report: {}", path, std::strerror(errno)));
  if (!write_report(file.get(), out, result_, meta, numbers) || std::fclose(file.release()) != 0)
    fail(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
}
