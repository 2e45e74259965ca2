// VmafContext: one libvmaf scoring session on exactvmaf's pipeline. Pictures
// pushed by vmaf_read_pictures feed a pipeline run on a thread of the
// context (frames extracted in parallel, as many in flight as the CLI has);
// scores of given pictures are read as they are committed, and the final
// table (the CLI's, plus model scores written when they are asked for, as
// libvmaf writes them) after the flush.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "exactvmaf/frame.hpp"
#include "exactvmaf/run.hpp"
#include "libvmaf/objects.hpp"

namespace exactvmaf::capi {
class PushSource;

// A CUDA device chosen through vmaf_cuda_state_init: its index and the
// caller's CUcontext (NULL: the device's primary context).
struct CudaDevice {
  int device = 0;
  void* cu_ctx = nullptr;
};

// vmaf_cuda_fetch_preallocated_picture's device and page-locked host
// pictures (cuda_api.cpp; ApiError ENOSYS without the CUDA backend).
std::shared_ptr<DeviceFrame> make_device_frame(const CudaDevice& device, const VideoFormat& format);
std::shared_ptr<FrameBuffer> make_pinned_frame(const CudaDevice& device, const VideoFormat& format);
}  // namespace exactvmaf::capi

struct VmafContext {
  explicit VmafContext(const VmafConfiguration& cfg);
  ~VmafContext();  // stops a running pipeline
  VmafContext(const VmafContext&) = delete;
  VmafContext& operator=(const VmafContext&) = delete;

  // Registration, before the first picture.
  void use_feature(exactvmaf::FeatureRequest request, bool wants_cuda);
  void use_model(const exactvmaf::Model& model);
  void import_score(std::string_view name, double value, unsigned index);
  void use_cuda(const exactvmaf::capi::CudaDevice& device);

  // Takes both pictures (unreferenced whatever happens).
  void read(VmafPicture& ref, VmafPicture& dist, unsigned index);
  void flush();

  double feature_score(std::string_view name, unsigned index);
  double model_score(const exactvmaf::Model& model, unsigned index);
  VmafModelCollectionScore collection_score(const exactvmaf::Model& collection, unsigned index);
  // method: a VmafPoolingMethod value (enum_value).
  double feature_pooled(std::string_view name, int method, unsigned lo, unsigned hi);
  double model_pooled(const exactvmaf::Model& model, int method, unsigned lo, unsigned hi);
  VmafModelCollectionScore collection_pooled(const exactvmaf::Model& collection, int method, unsigned lo,
                                             unsigned hi);

  void preallocate(const exactvmaf::VideoFormat& format, unsigned count);
  void fetch_preallocated(VmafPicture& pic);
  // method: a VmafCudaPicturePreallocationMethod value, checked by the caller.
  void cuda_preallocate(const exactvmaf::VideoFormat& format, int method);
  void cuda_fetch_preallocated(VmafPicture& pic);

  void write_output(const char* path, int format);  // a VmafOutputFormat value

 private:
  enum class Stage { setup, running, flushed, failed };
  using Lock = std::unique_lock<std::mutex>;

  void start(const exactvmaf::VideoFormat& format, Lock& lock);
  void commit(std::uint64_t frame, const exactvmaf::ScoreTable& table);  // pipeline thread
  [[noreturn]] void fail_stage(const char* action) const;
  // The table holding picture `index`'s per-frame values: the final one
  // after the flush, else the live one once the picture is committed.
  const exactvmaf::ScoreTable& table_for(unsigned index, Lock& lock);
  std::optional<double> lookup(const exactvmaf::ScoreTable& table, std::string_view name, unsigned index) const;
  // A one-frame table with the features `svr_models` need at `index`.
  exactvmaf::ScoreTable features_at(const std::vector<const exactvmaf::SvrModel*>& svr_models, unsigned index,
                                    Lock& lock);
  void check_pool_range(int method, unsigned lo, unsigned hi) const;
  exactvmaf::Backend backend() const;
  exactvmaf::DeviceFp64 device_fp64() const;  // $EXACTVMAF_DEVICE_FP64

  const VmafConfiguration cfg_;
  std::vector<exactvmaf::FeatureRequest> features_;
  bool wants_cuda_ = false;
  std::optional<exactvmaf::capi::CudaDevice> cuda_;

  std::shared_ptr<exactvmaf::FramePool> pool_;  // vmaf_preallocate_pictures
  std::unordered_set<const exactvmaf::FrameBuffer*> pool_zeroed_;  // handed out once, zeroed then
  std::optional<exactvmaf::VideoFormat> cuda_pool_format_;
  int cuda_pool_method_ = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE;
  std::shared_ptr<exactvmaf::FramePool> download_pool_;  // host copies of device pictures

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  Stage stage_ = Stage::setup;
  std::string error_;  // why the run failed
  exactvmaf::VideoFormat format_;
  std::uint64_t given_ = 0;      // pictures pairs read
  std::uint64_t committed_ = 0;  // pairs whose per-frame values are in live_
  exactvmaf::ScoreTable live_;   // per-frame values while running
  std::vector<std::size_t> live_ids_;  // pipeline table id -> live_ id
  exactvmaf::ScoreTable imported_;     // vmaf_import_feature_score before the flush
  exactvmaf::RunResult result_;        // after the flush: the final table
  bool run_done_ = false;
  std::unique_ptr<exactvmaf::capi::PushSource> source_;
  std::thread runner_;
};

namespace exactvmaf::capi {
extern Registry<VmafContext> g_contexts;
}
