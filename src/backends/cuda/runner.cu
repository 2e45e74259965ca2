// One pipeline thread on the GPU: upload the planes the features need into
// fixed device buffers, replay the graph captured from the features'
// enqueue() calls, wait, run the host tails. N threads = N frames in flight
// on N streams; only the GPU's HistoryRing is shared between threads.
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include <string>

#include "backends/cuda/check.cuh"
#include "backends/cuda/cuda_feature.hpp"
#include "backends/cuda/device_memory.cuh"
#include "backends/cuda/history_ring.cuh"
#include "backends/cuda/runner.hpp"

namespace exactvmaf::cuda {

namespace {

class CudaFrameRunner final : public FrameRunner {
 public:
  CudaFrameRunner(const RunnerOptions& opts, const std::vector<RunnerFeature>& features)
      : opts_(opts), features_(features) {
    EXACTVMAF_CUDA_CHECK(cudaSetDevice(opts.gpu));
    EXACTVMAF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    try {
      if (opts.timing)
        for (auto& e : events_) EXACTVMAF_CUDA_CHECK(cudaEventCreate(&e));
      setup();
    } catch (...) {
      release();
      throw;
    }
  }
  ~CudaFrameRunner() override { release(); }

  RunnerStats stats() const override {
    RunnerStats s = times_;
    for (const auto& w : workers_) {
      s.host_frames += w->host_frames();
      s.arith += w->arith_counts();
    }
    return s;
  }

  void run(const FrameInput& in, const std::vector<bool>& active, std::vector<FrameOutput>& outputs) override {
    if (opts_.timing) EXACTVMAF_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
    upload(in);
    if (opts_.timing) EXACTVMAF_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
    std::uint64_t mask = 0;
    for (std::size_t e = 0; e < workers_.size(); ++e)
      if (active[e]) mask |= std::uint64_t{1} << e;
    if (opts_.graphs) {
      EXACTVMAF_CUDA_CHECK(cudaGraphLaunch(graph_for(mask), stream_));
    } else {
      enqueue_all(mask);
    }
    if (opts_.timing) EXACTVMAF_CUDA_CHECK(cudaEventRecord(events_[2], stream_));
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (opts_.timing) {
      float up = 0, k = 0;
      EXACTVMAF_CUDA_CHECK(cudaEventElapsedTime(&up, events_[0], events_[1]));
      EXACTVMAF_CUDA_CHECK(cudaEventElapsedTime(&k, events_[1], events_[2]));
      times_.upload_ms += up;
      times_.kernel_ms += k;
    }
    bool host_reads = false;
    for (std::size_t e = 0; e < workers_.size(); ++e) host_reads = host_reads || (active[e] && workers_[e]->reads_host_samples());
    if (host_reads) download(in);
    FrameInput fin = in;
    for (std::size_t e = 0; e < workers_.size(); ++e) {
      if (!active[e]) continue;
      const std::size_t h = std::min<std::size_t>(features_[e].history, in.prev_ref.size());
      fin.prev_ref = in.prev_ref.first(h);
      fin.prev_dist = in.prev_dist.first(h);
      workers_[e]->finish(fin, outputs[e]);
    }
  }

 private:
  void setup() {
    if (features_.size() > 64) throw InternalError("internal: more than 64 features in one CUDA run");
    PlaneNeeds needs;
    unsigned history = 0;
    for (const auto& f : features_) {
      auto w = f.extractor->make_cuda_worker();
      if (!w) throw InternalError("internal: a feature lost its CUDA worker");
      const PlaneNeeds n = w->planes();
      needs |= n;
      if (n.any_history()) history = std::max(history, f.history);
      workers_.push_back(std::move(w));
    }
    if (history > kMaxHistory)
      throw InternalError("internal: a CUDA feature asks for " + std::to_string(history) + " previous frames (at most " +
                  std::to_string(kMaxHistory) + ")");
    needs_ = needs;
    frame_.format = opts_.format;
    frame_.history = history;
    frame_.arith = opts_.arith;
    alloc_picture(needs.ref, frame_.ref);
    alloc_picture(needs.dist, frame_.dist);
    for (unsigned k = 0; k < history; ++k) {
      alloc_picture(needs.prev_ref, frame_.prev_ref[k]);
      alloc_picture(needs.prev_dist, frame_.prev_dist[k]);
    }
    // Defined samples in the history slots before the clip fills them.
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      EXACTVMAF_CUDA_CHECK(cudaMemset2DAsync(buffers_[i].get(), buffers_[i].pitch(), 0, buffers_[i].pitch(),
                                             buffer_rows_[i], stream_));
    for (auto& w : workers_) w->setup(frame_, stream_);
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    join_history_ring();
  }

  // The ring serves history planes that are also uploaded as the current
  // frame's (what a runner publishes); every feature asks for those.
  void join_history_ring() {
    SharedHistoryRing* shared = opts_.history_ring.get();
    if (!shared || frame_.history == 0) return;
    if ((needs_.prev_ref & ~needs_.ref) || (needs_.prev_dist & ~needs_.dist)) return;
    std::lock_guard lock(shared->mutex);
    if (!shared->ring && !shared->unavailable) {
      try {
        shared->ring = std::make_shared<HistoryRing>(opts_.format, needs_.prev_ref, needs_.prev_dist,
                                                     opts_.history_slots);
      } catch (const InternalError&) {
        (void)cudaGetLastError();  // out of device memory: history is uploaded
        shared->unavailable = true;
      }
    }
    if (!shared->ring || !shared->ring->serves(needs_.prev_ref, needs_.prev_dist)) return;
    ring_ = shared->ring;
    reader_ = ring_->add_reader();
  }

  void alloc_picture(std::uint8_t planes, DevicePicture& pic) {
    const VideoFormat& f = opts_.format;
    for (unsigned p = 0; p < f.planes(); ++p) {
      if (!(planes & (1u << p))) continue;
      const unsigned w = f.picture_width(p), h = f.picture_height(p);
      buffers_.push_back(DeviceBuffer<std::uint8_t>::pitched(static_cast<std::size_t>(w) * f.bytes_per_sample(), h));
      buffer_rows_.push_back(std::max(h, 1u));
      pic.plane[p] = {buffers_.back().get(), buffers_.back().pitch(), w, h};
    }
  }

  // A host frame is uploaded; a frame decoded on this GPU (--hwdec cuda) is
  // copied from its device planes.
  void upload_picture(const PictureView& src, std::uint8_t planes, const DevicePicture& dst) {
    const DevicePlanes* on_device = src.device;
    if (on_device && on_device->gpu != opts_.gpu)
      throw Error("a frame decoded on GPU " + std::to_string(on_device->gpu) + " cannot be scored on GPU " +
                  std::to_string(opts_.gpu) + " (--hwdec cuda decodes on the GPU that scores)");
    for (unsigned p = 0; p < src.format.planes(); ++p) {
      if (!(planes & (1u << p))) continue;
      const DevicePlane& d = dst.plane[p];
      if (d.width == 0 || d.height == 0) continue;
      const std::size_t row = static_cast<std::size_t>(d.width) * src.format.bytes_per_sample();
      if (on_device) {
        EXACTVMAF_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<std::uint8_t*>(d.data), d.pitch, on_device->data[p],
                                               on_device->pitch[p], row, d.height, cudaMemcpyDeviceToDevice, stream_));
      } else {
        EXACTVMAF_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<std::uint8_t*>(d.data), d.pitch, src.data[p],
                                               static_cast<std::size_t>(src.stride[p]), row, d.height,
                                               cudaMemcpyHostToDevice, stream_));
      }
    }
  }

  // Host steps read host samples: frames decoded on the GPU get them now
  // (the planes the device reads, which are those the host steps read). A
  // history frame may be copied by two threads at once; both write the same
  // bytes.
  void download_picture(const PictureView& pic, std::uint8_t planes) {
    const DevicePlanes* on_device = pic.device;
    if (!on_device) return;
    for (unsigned p = 0; p < pic.format.planes(); ++p) {
      if (!(planes & (1u << p))) continue;
      EXACTVMAF_CUDA_CHECK(cudaMemcpy2DAsync(on_device->host[p], static_cast<std::size_t>(pic.stride[p]),
                                             on_device->data[p], on_device->pitch[p],
                                             static_cast<std::size_t>(pic.format.plane_width(p)) *
                                                 pic.format.bytes_per_sample(),
                                             pic.format.plane_height(p), cudaMemcpyDeviceToHost, stream_));
    }
  }

  void download(const FrameInput& in) {
    const bool any = in.ref.device || in.dist.device;
    if (!any) return;
    download_picture(in.ref, needs_.ref);
    download_picture(in.dist, needs_.dist);
    const std::size_t h = std::min<std::size_t>(frame_.history, in.prev_ref.size());
    for (std::size_t k = 0; k < h; ++k) {
      download_picture(in.prev_ref[k], needs_.prev_ref);
      download_picture(in.prev_dist[k], needs_.prev_dist);
    }
    EXACTVMAF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ++times_.host_downloads;
  }

  // History frame k is frame in.index - 1 - k: from the ring when it holds
  // it, else from the host.
  void upload(const FrameInput& in) {
    upload_picture(in.ref, needs_.ref, frame_.ref);
    upload_picture(in.dist, needs_.dist, frame_.dist);
    if (ring_) ring_->publish(in.index, frame_.ref, frame_.dist, stream_);
    const std::size_t h = std::min<std::size_t>(frame_.history, in.prev_ref.size());
    for (std::size_t k = 0; k < h; ++k) {
      if (ring_ && in.index > k &&
          ring_->fetch(in.index - 1 - k, frame_.prev_ref[k], frame_.prev_dist[k], reader_, stream_)) {
        ++times_.history_on_device;
        continue;
      }
      upload_picture(in.prev_ref[k], needs_.prev_ref, frame_.prev_ref[k]);
      upload_picture(in.prev_dist[k], needs_.prev_dist, frame_.prev_dist[k]);
      ++times_.history_uploaded;
    }
  }

  void enqueue_all(std::uint64_t mask) {
    for (std::size_t e = 0; e < workers_.size(); ++e)
      if (mask & (std::uint64_t{1} << e)) workers_[e]->enqueue(frame_, stream_);
  }

  // The graph of the features in `mask`, captured on first use. Capture is
  // thread-local: other threads' streams and allocations are unaffected.
  cudaGraphExec_t graph_for(std::uint64_t mask) {
    auto it = graphs_.find(mask);
    if (it != graphs_.end()) return it->second;
    EXACTVMAF_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue_all(mask);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      (void)cudaStreamEndCapture(stream_, &broken);
      if (broken) (void)cudaGraphDestroy(broken);
      (void)cudaGetLastError();
      throw;
    }
    cudaGraph_t graph = nullptr;
    EXACTVMAF_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    if (e != cudaSuccess) throw InternalError("CUDA: cudaGraphInstantiate failed: " + error_text(e));
    graphs_.emplace(mask, exec);
    return exec;
  }

  void release() noexcept {
    if (stream_) (void)cudaStreamSynchronize(stream_);
    for (auto& [mask, exec] : graphs_) (void)cudaGraphExecDestroy(exec);
    graphs_.clear();
    ring_.reset();     // after the stream: its copies out of the ring are done
    workers_.clear();  // their destructors free their device memory
    buffers_.clear();
    if (stream_) (void)cudaStreamDestroy(stream_);
    stream_ = nullptr;
    for (auto& e : events_)
      if (e) (void)cudaEventDestroy(std::exchange(e, nullptr));
  }

  RunnerOptions opts_;
  std::vector<RunnerFeature> features_;
  cudaStream_t stream_ = nullptr;
  std::vector<std::unique_ptr<FeatureWorker>> workers_;
  PlaneNeeds needs_;
  std::vector<DeviceBuffer<std::uint8_t>> buffers_;
  std::vector<unsigned> buffer_rows_;
  DeviceFrame frame_;
  std::map<std::uint64_t, cudaGraphExec_t> graphs_;
  cudaEvent_t events_[3] = {nullptr, nullptr, nullptr};
  RunnerStats times_;  // the device times
  std::shared_ptr<HistoryRing> ring_;  // null: history is uploaded
  int reader_ = -1;                    // this runner's id in ring_
};

}  // namespace

std::unique_ptr<FrameRunner> make_frame_runner(const RunnerOptions& opts, const std::vector<RunnerFeature>& features) {
  return std::make_unique<CudaFrameRunner>(opts, features);
}

}  // namespace exactvmaf::cuda
