// The C API's opaque objects (declared by the C headers, defined here) and
// their registries.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exactvmaf/frame.hpp"
#include "exactvmaf/model.hpp"
#include "libvmaf/api.hpp"

// Feature options as the caller gave them, in order.
struct VmafFeatureDictionary {
  std::vector<std::pair<std::string, std::string>> entries;
};

// A model as loaded (options overloaded in place); `model.bootstrap` stays
// empty: a bootstrap file's members live in its VmafModelCollection.
struct VmafModel {
  exactvmaf::Model model;
};

// A bootstrap model's members 1, 2, ... (with member 0 as `model.main`, for
// the statistics' transform and clip).
struct VmafModelCollection {
  exactvmaf::Model model;
};

namespace exactvmaf::capi {

// Planes in CUDA device memory (vmaf_cuda_fetch_preallocated_picture),
// copied to the host when the picture is read.
class DeviceFrame {
 public:
  virtual ~DeviceFrame() = default;
  // A host copy in a buffer from `pool`.
  virtual std::shared_ptr<FrameBuffer> download(FramePool& pool) const = 0;
  const VideoFormat& format() const { return format_; }
  void* data[3] = {nullptr, nullptr, nullptr};
  std::ptrdiff_t pitch[3] = {0, 0, 0};

 protected:
  VideoFormat format_;
};

extern Registry<VmafFeatureDictionary> g_dictionaries;
extern Registry<VmafModel> g_models;
extern Registry<VmafModelCollection> g_collections;

}  // namespace exactvmaf::capi

// The reference count behind a VmafPicture: the frame's memory (host or
// device) goes when the count reaches zero.
struct VmafRef {
  std::atomic<long> count{1};
  std::shared_ptr<exactvmaf::FrameBuffer> host;
  std::shared_ptr<exactvmaf::capi::DeviceFrame> device;
};

namespace exactvmaf::capi {

extern Registry<VmafRef> g_refs;

// The VideoFormat of libvmaf picture parameters (pix_fmt: a VmafPixelFormat
// value as enum_value reads it); throws ApiError for an
// unknown pixel format, a bit depth other than 8/10/12/16 or a zero size.
VideoFormat picture_format(int pix_fmt, unsigned bpc, unsigned w, unsigned h);
enum VmafPixelFormat vmaf_pixel_format(PixelFormat f);
// Zeroes every sample of `frame`, as libvmaf's allocation does.
void zero_samples(FrameBuffer& frame);
// Fills `pic` to describe `frame` (host) or `device`, with one reference.
void wrap_picture(VmafPicture& pic, std::shared_ptr<FrameBuffer> frame);
void wrap_picture(VmafPicture& pic, std::shared_ptr<DeviceFrame> device);
// The reference of a picture from vmaf_picture_alloc or a fetch, checked
// against the picture's fields; throws ApiError naming `which` otherwise.
VmafRef& picture_ref(const VmafPicture& pic, const char* which);
// vmaf_picture_unref without the guard; false for a NULL, cleared or
// unknown picture.
bool release_picture(VmafPicture& pic);
// Frees the buffers vmaf_picture_alloc keeps for reuse.
void release_cached_pictures();

}  // namespace exactvmaf::capi
