// ciede (metric ciede2000) on the CPU. Per-pixel arithmetic: ciede_math.hpp.
// The frame value is the exact sum of the per-pixel floats rounded once
// (DESIGN.md §2 rule 3), then upstream's 45 - 20 log10(mean). Chroma is
// nearest-neighbour: 4:2:0 (x>>1, y>>1) and 4:4:4 (x, y) as upstream; 4:2:2
// (x>>1, y), where upstream's mapping is wrong (docs/features/ciede.md).
#include <fmt/format.h>
#include <mpfr.h>

#include "exactvmaf/error.hpp"
#include "features/ciede/ciede_math.hpp"
#include "features/registry.hpp"
#include "io/warnings.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/exact_sum.hpp"

namespace exactvmaf {

namespace {

struct CiedeConfig {
  unsigned w = 0, h = 0, bpc = 8;
  unsigned chroma_x_shift = 0, chroma_y_shift = 0;
  ciede::LabScale scale{};
};

// Exact sum of one frame's per-pixel floats.
template <class Sample>
double frame_sum(const PictureView& ref, const PictureView& dist, const CiedeConfig& c) {
  rmath::ExactSumF32 acc{};
  ciede::HostMath m;
  for (unsigned y = 0; y < c.h; ++y) {
    const unsigned cy = y >> c.chroma_y_shift;
    const Sample* ry = ref.row<Sample>(0, y);
    const Sample* ru = ref.row<Sample>(1, cy);
    const Sample* rv = ref.row<Sample>(2, cy);
    const Sample* dy = dist.row<Sample>(0, y);
    const Sample* du = dist.row<Sample>(1, cy);
    const Sample* dv = dist.row<Sample>(2, cy);
    for (unsigned x = 0; x < c.w; ++x) {
      const unsigned cx = x >> c.chroma_x_shift;
      const unsigned r0 = ry[x], r1 = ru[cx], r2 = rv[cx];
      const unsigned d0 = dy[x], d1 = du[cx], d2 = dv[cx];
      if (r0 == d0 && r1 == d1 && r2 == d2) continue;  // exactly +0 (ciede_math.hpp)
      const float de = ciede::ciede2000(ciede::lab_from_yuv(r0, r1, r2, c.scale, m), ciede::lab_from_yuv(d0, d1, d2, c.scale, m),
                            m);
      acc.add(de);
    }
  }
  return acc.round_to_double();
}

// R's host functions fall back to MPFR for undecided arguments; MPFR keeps
// per-thread constant caches (pi, log 2) that a pipeline thread would leak on
// exit. One of these per thread frees them when the thread ends.
struct MpfrThreadCacheRelease {
  ~MpfrThreadCacheRelease() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
};

class CiedeWorker final : public FeatureWorker {
 public:
  explicit CiedeWorker(const CiedeConfig& c) : c_(c) {}
  void extract(const FrameInput& in, FrameOutput& out) override {
    thread_local MpfrThreadCacheRelease release_mpfr_cache;
    (void)release_mpfr_cache;
    const double sum = c_.bpc == 8 ? frame_sum<std::uint8_t>(in.ref, in.dist, c_)
                                   : frame_sum<std::uint16_t>(in.ref, in.dist, c_);
    out.set(0, ciede::frame_score(sum, c_.w, c_.h));
  }

 private:
  CiedeConfig c_;
};

class CiedeExtractor final : public FeatureExtractor {
 public:
  std::vector<std::string> init(const VideoFormat& fmt) override {
    if (fmt.pix_fmt == PixelFormat::yuv400)
      throw Error("ciede: needs chroma planes (the input is 4:0:0)");
    if (fmt.bitdepth != 8 && fmt.bitdepth != 10 && fmt.bitdepth != 12 && fmt.bitdepth != 16)
      throw Error(fmt::format("ciede: unsupported bit depth {}", fmt.bitdepth));
    c_.w = fmt.width;
    c_.h = fmt.height;
    c_.bpc = fmt.bitdepth;
    c_.scale = ciede::lab_scale(fmt.bitdepth);
    c_.chroma_x_shift = fmt.pix_fmt == PixelFormat::yuv444 ? 0u : 1u;
    c_.chroma_y_shift = fmt.pix_fmt == PixelFormat::yuv420 ? 1u : 0u;
    if (fmt.pix_fmt == PixelFormat::yuv422)
      io::warn("ciede: 4:2:2 chroma is read at (x/2, y); upstream libvmaf reads it at (x, y/2) and past the "
               "row ends, so ciede2000 differs from upstream on 4:2:2 input");
    return {"ciede2000"};
  }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<CiedeWorker>(c_); }

 private:
  CiedeConfig c_;
};

}  // namespace

FeatureInfo ciede_feature_info() {
  FeatureInfo f;
  f.name = "ciede";
  f.help = "CIEDE2000 colour difference, 45 - 20 log10 of the mean deltaE00 over the frame (ciede2000)";
  f.provided = {"ciede2000"};
  f.create = [](const OptionValues&) { return std::make_unique<CiedeExtractor>(); };
  return f;
}

}  // namespace exactvmaf
