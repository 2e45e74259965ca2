// The worker pool's head threads (RunOptions::cpu_while_cuda_starts): frames
// go to them until the workers are made, then to the workers; results come
// back by frame index whoever scored them. The processors here only tag
// each frame with who scored it.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/worker_pool.hpp"
#include "exactvmaf/error.hpp"

namespace exactvmaf::pipeline {
namespace {

constexpr double kHead = 1, kWorker = 2;

VideoFormat tiny_format() {
  VideoFormat f;
  f.width = 16;
  f.height = 8;
  f.pix_fmt = PixelFormat::yuv420;
  f.bitdepth = 8;
  return f;
}

// Writes `tag` as the frame's one value; `before` runs first (to block);
// gives the frame up when *stop is set after it, as CPU processors do
// between extractors.
class TagProcessor final : public FrameProcessor {
 public:
  TagProcessor(double tag, std::function<void(std::uint64_t)> before, const std::atomic<bool>* stop = nullptr)
      : tag_(tag), before_(std::move(before)), stop_(stop) {}
  void process(const FrameInput& in, const std::vector<bool>&, FrameResult& result) override {
    if (before_) before_(in.index);
    if (stop_ && stop_->load()) throw FrameAbandoned{};
    result.outputs[0].set(0, tag_);
  }

 private:
  double tag_;
  std::function<void(std::uint64_t)> before_;
  const std::atomic<bool>* stop_;
};

struct Fixture {
  std::vector<Extractor> extractors = std::vector<Extractor>(1);
  std::shared_ptr<FrameBuffer> frame = std::make_shared<FrameBuffer>(tiny_format());
  std::promise<void> gate;  // opens the workers' factory
  std::shared_future<void> opened = gate.get_future().share();

  FrameTask task(std::uint64_t index) const {
    FrameTask t;
    t.index = index;
    t.refs = {frame};
    t.dists = {frame};
    return t;
  }
  HeadWorkers head(std::function<void(std::uint64_t)> before = {}) {
    return {3,
            [before](unsigned, const std::atomic<bool>* stop) {
              return std::make_unique<TagProcessor>(kHead, before, stop);
            },
            5};
  }
  ProcessorFactory gated_workers() {
    return [f = opened](unsigned) -> std::unique_ptr<FrameProcessor> {
      f.wait();
      return std::make_unique<TagProcessor>(kWorker, nullptr);
    };
  }
};

double tag_of(WorkerPool& pool, std::uint64_t index) {
  const FrameResult r = pool.take(index);
  return r.outputs.at(0).entries().at(0).value;
}

void submit_when_room(WorkerPool& pool, const Fixture& fx, std::uint64_t index) {
  while (!pool.has_room()) pool.wait_for_room_or(~std::uint64_t{0});
  pool.submit(fx.task(index));
}

void wait_for_hand_over(WorkerPool& pool) {
  while (!pool.handed_over()) std::this_thread::yield();
}

TEST(WorkerPoolHead, ScoresUntilTheWorkersAreReadyThenHandsOver) {
  Fixture fx;
  WorkerPool pool(2, fx.extractors, fx.gated_workers(), 4, {}, fx.head());
  for (std::uint64_t i = 0; i < 4; ++i) submit_when_room(pool, fx, i);
  for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(tag_of(pool, i), kHead) << "frame " << i;
  EXPECT_FALSE(pool.handed_over());
  fx.gate.set_value();
  wait_for_hand_over(pool);
  for (std::uint64_t i = 4; i < 12; ++i) submit_when_room(pool, fx, i);
  for (std::uint64_t i = 4; i < 12; ++i) EXPECT_EQ(tag_of(pool, i), kWorker) << "frame " << i;
  EXPECT_EQ(pool.head_frames(), 4u);
}

TEST(WorkerPoolHead, AFrameInHandAtTheHandOverGoesToTheWorkersFirst) {
  // A head thread holds frame 0 (a 4K frame takes a CPU thread longer than
  // the driver's start): at the hand-over a worker scores it too, and the
  // first result is kept; the head's run, when it ends, is dropped.
  Fixture fx;
  std::promise<void> release, taken;
  std::shared_future<void> released = release.get_future().share();
  std::future<void> head_has_it = taken.get_future();
  WorkerPool pool(2, fx.extractors, fx.gated_workers(), 4, {}, fx.head([released, &taken](std::uint64_t i) {
    if (i != 0) return;
    taken.set_value();
    released.wait();
  }));
  pool.submit(fx.task(0));
  head_has_it.wait();  // a head thread holds frame 0 before the workers exist
  fx.gate.set_value();
  wait_for_hand_over(pool);
  // Far more frames than the window (2 workers + 2) pass while the head holds frame 0.
  constexpr std::uint64_t kFrames = 40;
  for (std::uint64_t i = 1; i < kFrames; ++i) submit_when_room(pool, fx, i);
  for (std::uint64_t i = 0; i < kFrames; ++i)
    while (!pool.ready(i)) pool.wait_for_room_or(i);
  EXPECT_EQ(tag_of(pool, 0), kWorker);
  release.set_value();  // the head's run of frame 0 ends (given up: its stop flag is set)
  for (std::uint64_t i = 1; i < kFrames; ++i) EXPECT_EQ(tag_of(pool, i), kWorker) << "frame " << i;
  EXPECT_EQ(pool.head_frames(), 0u);
}

TEST(WorkerPoolHead, TheFirstResultOfAFrameScoredTwiceIsKept) {
  // The head's run of a given-back frame ends first (its processor does not
  // look at the stop flag): that result is kept and the worker's dropped.
  Fixture fx;
  std::promise<void> taken, worker_may_finish;
  std::future<void> head_has_it = taken.get_future();
  std::shared_future<void> worker_go = worker_may_finish.get_future().share();
  std::promise<void> head_go;
  std::shared_future<void> head_released = head_go.get_future().share();
  HeadWorkers head = {1,
                      [&taken, head_released](unsigned, const std::atomic<bool>*) {
                        return std::make_unique<TagProcessor>(kHead, [&taken, head_released](std::uint64_t) {
                          taken.set_value();
                          head_released.wait();
                        });
                      },
                      3};
  WorkerPool pool(
      1, fx.extractors,
      [f = fx.opened, worker_go](unsigned) -> std::unique_ptr<FrameProcessor> {
        f.wait();
        return std::make_unique<TagProcessor>(kWorker, [worker_go](std::uint64_t) { worker_go.wait(); });
      },
      3, {}, std::move(head));
  pool.submit(fx.task(0));
  head_has_it.wait();
  fx.gate.set_value();
  wait_for_hand_over(pool);
  head_go.set_value();  // the head's run ends first
  while (!pool.ready(0)) pool.wait_for_room_or(0);
  worker_may_finish.set_value();
  EXPECT_EQ(tag_of(pool, 0), kHead);
  pool.submit(fx.task(1));
  EXPECT_EQ(tag_of(pool, 1), kWorker);
  EXPECT_EQ(pool.head_frames(), 1u);
}

TEST(WorkerPoolHead, WithoutWorkersTheHeadThreadsScoreEveryFrame) {
  // --backend auto that falls back to the cpu when the run's cpu workers are
  // fewer than the threads planned: factories that return nothing.
  Fixture fx;
  WorkerPool pool(2, fx.extractors, [](unsigned) { return std::unique_ptr<FrameProcessor>(); }, 4, {}, fx.head());
  for (std::uint64_t i = 0; i < 30; ++i) {
    submit_when_room(pool, fx, i);
    if (i >= 3) {
      EXPECT_EQ(tag_of(pool, i - 3), kHead) << "frame " << i - 3;
    }
  }
  for (std::uint64_t i = 27; i < 30; ++i) EXPECT_EQ(tag_of(pool, i), kHead) << "frame " << i;
  EXPECT_FALSE(pool.handed_over());
  EXPECT_EQ(pool.head_frames(), 30u);
}

TEST(WorkerPoolHead, AWorkerFactoryErrorReachesTheCaller) {
  // --backend cuda whose device fails to start while the head scores.
  Fixture fx;
  WorkerPool pool(
      2, fx.extractors,
      [f = fx.opened](unsigned) -> std::unique_ptr<FrameProcessor> {
        f.wait();
        throw Error("--backend cuda: the device broke");
      },
      4, {}, fx.head());
  pool.submit(fx.task(0));
  EXPECT_EQ(tag_of(pool, 0), kHead);
  fx.gate.set_value();
  try {
    (void)pool.take(1000);  // never submitted: returns only by the error
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--backend cuda: the device broke");
  }
}

TEST(WorkerPoolNoHead, WorkersWithoutProcessorsAreAnError) {
  Fixture fx;
  WorkerPool pool(2, fx.extractors, [](unsigned) { return std::unique_ptr<FrameProcessor>(); }, 4);
  pool.submit(fx.task(0));
  EXPECT_THROW((void)pool.take(0), InternalError);
}

TEST(FramePoolMemory, UseMemoryKeepsTheBuffersAndShrinksToTheNewCapacity) {
  const auto pool = FramePool::create(tiny_format(), 4);
  std::vector<std::shared_ptr<FrameBuffer>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(pool->acquire());
    held.back()->set_timestamp(i);  // which buffer it is
    held.back()->plane(0)[0] = static_cast<std::uint8_t>(100 + i);
  }
  held.erase(held.begin());  // buffer 0 free when the memory changes: freed
  pool->use_memory({}, 2);
  held.erase(held.begin());  // buffer 1 comes back beyond the capacity: freed
  held.erase(held.begin());  // buffer 2 comes back within it: kept
  held.push_back(pool->acquire());
  EXPECT_EQ(held.back()->timestamp(), 2.0);
  EXPECT_EQ(held.back()->plane(0)[0], 102) << "the samples are kept";
  EXPECT_EQ(pool->capacity(), 2u);
}

}  // namespace
}  // namespace exactvmaf::pipeline
