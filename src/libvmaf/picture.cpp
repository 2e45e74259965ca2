// VmafPicture: exactvmaf FrameBuffers (or CUDA device planes) behind
// libvmaf's picture struct, reference counted.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "libvmaf/objects.hpp"

namespace exactvmaf::capi {

Registry<VmafRef> g_refs;

VideoFormat picture_format(int pix_fmt, unsigned bpc, unsigned w, unsigned h) {
  VideoFormat f;
  switch (pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: f.pix_fmt = PixelFormat::yuv420; break;
    case VMAF_PIX_FMT_YUV422P: f.pix_fmt = PixelFormat::yuv422; break;
    case VMAF_PIX_FMT_YUV444P: f.pix_fmt = PixelFormat::yuv444; break;
    case VMAF_PIX_FMT_YUV400P: f.pix_fmt = PixelFormat::yuv400; break;
    default: fail(fmt::format("pixel format {} is not one of VMAF_PIX_FMT_YUV420P/422P/444P/400P", pix_fmt));
  }
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    fail(fmt::format("bpc {}: exactvmaf scores 8, 10, 12 and 16-bit pictures", bpc));
  // Far beyond any video; keeps every plane's byte count well inside size_t.
  constexpr unsigned kMaxSide = 1u << 16;
  if (w == 0 || h == 0 || w > kMaxSide || h > kMaxSide)
    fail(fmt::format("picture size {}x{}: width and height must be 1..{}", w, h, kMaxSide));
  f.width = w;
  f.height = h;
  f.bitdepth = bpc;
  return f;
}

enum VmafPixelFormat vmaf_pixel_format(PixelFormat f) {
  switch (f) {
    case PixelFormat::yuv420: return VMAF_PIX_FMT_YUV420P;
    case PixelFormat::yuv422: return VMAF_PIX_FMT_YUV422P;
    case PixelFormat::yuv444: return VMAF_PIX_FMT_YUV444P;
    case PixelFormat::yuv400: return VMAF_PIX_FMT_YUV400P;
  }
  return VMAF_PIX_FMT_UNKNOWN;
}

namespace {

// The fields libvmaf's picture has for `f`: chroma w >> 1 (4:2:0, 4:2:2) and
// h >> 1 (4:2:0), none for 4:0:0.
void describe(VmafPicture& pic, const VideoFormat& f) {
  std::memset(&pic, 0, sizeof pic);
  pic.pix_fmt = vmaf_pixel_format(f.pix_fmt);
  pic.bpc = f.bitdepth;
  for (unsigned p = 0; p < f.planes(); ++p) {
    pic.w[p] = f.picture_width(p);
    pic.h[p] = f.picture_height(p);
  }
}

// Buffers of the picture format last allocated, kept when their pictures go
// and handed out again: a client allocating two pictures per frame (FFmpeg's
// filter) then writes warm memory instead of faulting in fresh pages each
// frame. Some are kept (see kKept); vmaf_close of the last context empties it.
class FrameCache {
 public:
  std::shared_ptr<FrameBuffer> take(const VideoFormat& f) {
    std::unique_ptr<FrameBuffer> b;
    {
      std::lock_guard lock(mutex_);
      if (!(f == format_)) {
        free_.clear();
        format_ = f;
      }
      if (!free_.empty()) {
        b = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!b) b = std::make_unique<FrameBuffer>(f);
    return std::shared_ptr<FrameBuffer>(b.release(), [this](FrameBuffer* p) { give_back(p); });
  }
  void clear() {
    std::vector<std::unique_ptr<FrameBuffer>> dropped;
    std::lock_guard lock(mutex_);
    dropped.swap(free_);
  }

 private:
  void give_back(FrameBuffer* p) {
    std::unique_ptr<FrameBuffer> b(p);
    std::lock_guard lock(mutex_);
    const std::size_t bytes = b->format().packed_frame_bytes();
    if (b->format() == format_ && free_.size() < kKept && (free_.size() + 1) * bytes <= kKeptBytes)
      free_.push_back(std::move(b));
  }
  // Enough for the pictures a pipeline holds in flight at 1080p; a bound on
  // the memory kept at 4K and above.
  static constexpr std::size_t kKept = 32, kKeptBytes = std::size_t{256} << 20;
  std::mutex mutex_;
  VideoFormat format_;
  std::vector<std::unique_ptr<FrameBuffer>> free_;
};

// Never destroyed: pictures may outlive every static object.
FrameCache& frame_cache() {
  static FrameCache* cache = new FrameCache();
  return *cache;
}

VmafRef* new_ref() {
  auto* ref = new VmafRef();
  g_refs.add(ref);
  return ref;
}

}  // namespace

void zero_samples(FrameBuffer& frame) {
  const VideoFormat& f = frame.format();
  for (unsigned p = 0; p < f.planes(); ++p)
    std::memset(frame.plane(p), 0, static_cast<std::size_t>(frame.stride(p)) * f.plane_height(p));
}

void wrap_picture(VmafPicture& pic, std::shared_ptr<FrameBuffer> frame) {
  describe(pic, frame->format());
  for (unsigned p = 0; p < frame->format().planes(); ++p) {
    pic.data[p] = frame->plane(p);
    pic.stride[p] = frame->stride(p);
  }
  VmafRef* ref = new_ref();
  ref->host = std::move(frame);
  pic.ref = ref;
}

void wrap_picture(VmafPicture& pic, std::shared_ptr<DeviceFrame> device) {
  describe(pic, device->format());
  for (unsigned p = 0; p < device->format().planes(); ++p) {
    pic.data[p] = device->data[p];
    pic.stride[p] = device->pitch[p];
  }
  VmafRef* ref = new_ref();
  ref->device = std::move(device);
  pic.ref = ref;
}

VmafRef& picture_ref(const VmafPicture& pic, const char* which) {
  if (pic.ref == nullptr || !g_refs.contains(pic.ref))
    fail(fmt::format("{} is not a picture from vmaf_picture_alloc or a preallocated pool (or was already given "
                     "away or unreferenced)", which));
  VmafRef& ref = *pic.ref;
  const VideoFormat& f = ref.host ? ref.host->format() : ref.device->format();
  VmafPicture expected;
  describe(expected, f);
  bool same = enum_value(pic.pix_fmt) == enum_value(expected.pix_fmt) && pic.bpc == expected.bpc;
  for (unsigned p = 0; p < 3; ++p) {
    same = same && pic.w[p] == expected.w[p] && pic.h[p] == expected.h[p];
    const void* data = p >= f.planes() ? nullptr : ref.host ? static_cast<void*>(ref.host->plane(p)) : ref.device->data[p];
    same = same && pic.data[p] == data;
  }
  if (!same)
    fail(fmt::format("{}: its fields (format, size, bpc or plane pointers) no longer match its allocation as {}",
                     which, f.describe()));
  return ref;
}

void release_cached_pictures() { frame_cache().clear(); }

bool release_picture(VmafPicture& pic) {
  VmafRef* ref = pic.ref;
  if (ref == nullptr || !g_refs.contains(ref)) return false;
  if (ref->count.fetch_sub(1) == 1) {
    g_refs.remove(ref);
    delete ref;
  }
  std::memset(&pic, 0, sizeof pic);
  return true;
}

}  // namespace exactvmaf::capi

using namespace exactvmaf;
using namespace exactvmaf::capi;

extern "C" int vmaf_picture_alloc(VmafPicture* pic, enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w,
                                  unsigned h) {
  return guarded(__func__, [&] {
    not_null(pic, "pic");
    const VideoFormat f = picture_format(enum_value(pix_fmt), bpc, w, h);
    std::shared_ptr<FrameBuffer> frame = frame_cache().take(f);
    // Zeroed as libvmaf's are: a caller that writes fewer samples than the
    // planes hold (FFmpeg 5.1 with >8-bit input) sees the same picture.
    zero_samples(*frame);
    wrap_picture(*pic, std::move(frame));
    return 0;
  });
}

extern "C" int vmaf_picture_unref(VmafPicture* pic) {
  return guarded(__func__, [&] {
    not_null(pic, "pic");
    if (!release_picture(*pic))
      fail("pic holds no reference (never allocated, already unreferenced, or given to vmaf_read_pictures)");
    return 0;
  });
}
