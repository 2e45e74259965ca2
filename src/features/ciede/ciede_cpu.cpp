// ciede (metric ciede2000) on the CPU. Per-pixel arithmetic: ciede_math.hpp.
// The frame value is the exact sum of the per-pixel floats rounded once
// (docs/design.md §2 rule 3), then upstream's 45 - 20 log10(mean). Chroma is
// nearest-neighbour: 4:2:0 (x>>1, y>>1) and 4:4:4 (x, y) as upstream; 4:2:2
// (x>>1, y), where upstream's mapping is wrong (docs/features/ciede.md).
// Speed without changing a bit (ciede_host.hpp): identical pixel pairs are
// +0 and skipped, 8-bit colours take their Lab from the lazily filled
// process-wide table, recent colour pairs come from a small cache, and x^7
// is a dd product (ciede_math.hpp). With a SIMD level (ciede_simd.hpp), the
// pixels that need the formula are gathered into batches for the vector
// kernel (same bits; the exact sum does not depend on the order of adds).
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <bit>
#include <memory>
#include <new>
#include <optional>

#include <sys/mman.h>

#include "exactvmaf/error.hpp"
#include "exactvmaf/simd.hpp"
#include "features/ciede/ciede_host.hpp"
#include "features/ciede/ciede_math.hpp"
#include "features/ciede/ciede_simd.hpp"
#include "features/registry.hpp"
#include "io/warnings.hpp"
#include "numeric/cr_log.hpp"
#include "numeric/exact_sum.hpp"
#include "numeric/fp32pair_counts.hpp"
#include "features/ciede/ciede_cuda.hpp"

namespace exactvmaf {

namespace ciede {

namespace {
constexpr std::size_t kTableBytes = std::size_t{kColours8} * 4 * sizeof(std::uint32_t);
}  // namespace

LabTable8& LabTable8::instance() {
  static LabTable8 table;
  return table;
}

LabTable8::LabTable8() : scale_(lab_scale(8)) {
  // Anonymous zero pages: only the pages a clip's colours touch get backed
  // (4 KiB pages: huge pages measured no faster and back far more memory).
  void* p = mmap(nullptr, kTableBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw Error(fmt::format("ciede: cannot reserve the 256 MiB 8-bit Lab table ({}); use --feature ciede=lab_table=false",
                            std::strerror(errno)));
  words_ = static_cast<std::uint32_t*>(p);
}

LabTable8::~LabTable8() { (void)munmap(words_, kTableBytes); }

Lab LabTable8::get(unsigned y, unsigned u, unsigned v) {
  Lab lab;
  if (find_into(y, u, v, &lab.l, &lab.a, &lab.b)) return lab;
  HostMath m;
  lab = lab_from_yuv(y, u, v, scale_, m);
  put(y, u, v, lab);
  return lab;
}

bool LabTable8::find_into(unsigned y, unsigned u, unsigned v, float* l, float* a, float* b) const {
  std::uint32_t* e = entry(y, u, v);
  // The state word is set (release) after the three values: a reader that
  // sees it set (acquire) sees them. Two threads may fill one entry at the
  // same time; they store the same bits.
  if (std::atomic_ref<std::uint32_t>(e[3]).load(std::memory_order_acquire) == 0) return false;
  const std::uint32_t bits[3] = {std::atomic_ref<std::uint32_t>(e[0]).load(std::memory_order_relaxed),
                                 std::atomic_ref<std::uint32_t>(e[1]).load(std::memory_order_relaxed),
                                 std::atomic_ref<std::uint32_t>(e[2]).load(std::memory_order_relaxed)};
  std::memcpy(l, &bits[0], sizeof(float));
  std::memcpy(a, &bits[1], sizeof(float));
  std::memcpy(b, &bits[2], sizeof(float));
  return true;
}

void LabTable8::put(unsigned y, unsigned u, unsigned v, const Lab& lab) {
  std::uint32_t* e = entry(y, u, v);
  std::atomic_ref<std::uint32_t>(e[0]).store(std::bit_cast<std::uint32_t>(lab.l), std::memory_order_relaxed);
  std::atomic_ref<std::uint32_t>(e[1]).store(std::bit_cast<std::uint32_t>(lab.a), std::memory_order_relaxed);
  std::atomic_ref<std::uint32_t>(e[2]).store(std::bit_cast<std::uint32_t>(lab.b), std::memory_order_relaxed);
  std::atomic_ref<std::uint32_t>(e[3]).store(1u, std::memory_order_release);
}

std::uint64_t LabTable8::filled_entries() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kColours8; ++i)
    n += std::atomic_ref<std::uint32_t>(words_[4 * i + 3]).load(std::memory_order_acquire) != 0;
  return n;
}

namespace {

// The CPU's emulation of the fp32pair device variant (set_fp64_emulation),
// as the device computes: Lab with Sf64Math, ΔE00 on fp32 pairs first and
// in Sf64 where they cannot decide (delta_e_fp64_free); R's functions only
// for a pixel that Sf64 leaves undecided (counted). With the 8-bit table, as
// on the device, a colour whose Sf64 Lab is undecided takes R's Lab (the
// device's table entries the host fixes) and its pixels stay on the device path.
template <class LabOfR>
struct Fp64FreePixels {
  LabScaleOf<rmath::PairF64> scale;
  unsigned bpc = 8;
  bool table8 = false;
  LabOfR lab_of_r;
  rmath::Fp32PairArith counts;  // islands: Labs and pixels on pairs; replays: on Sf64
  std::uint64_t host = 0;       // pixels recomputed with R's functions
  // false: R's Lab is needed (per pixel; the table's entries the host fixes)
  bool lab(unsigned y, unsigned u, unsigned v, Lab* out) {
    rmath::Fp32PairArith entry;
    if (lab_fp64_free(y, u, v, scale, bpc, table8 ? entry : counts, out)) return true;
    if (!table8) return false;
    *out = lab_of_r(y, u, v);
    return true;
  }
  bool delta_e(unsigned r0, unsigned r1, unsigned r2, unsigned d0, unsigned d1, unsigned d2, float* de) {
    Lab l1, l2;
    const bool labs = lab(r0, r1, r2, &l1) && lab(d0, d1, d2, &l2);
    const bool decided = labs && delta_e_fp64_free(l1, l2, counts, de);
    if (!decided) ++host;
    return decided;
  }
  ~Fp64FreePixels() { rmath::count_fp64_emulation(counts, host); }
};

// Pixels waiting for the batch kernel: their Lab pairs and, for cache misses,
// their keys (the value is put into the cache once computed).
struct PendingPixels {
  LabPairs pairs;
  // The samples: their Lab comes from the 8-bit table, or the batch computes
  // it (the table's empty entries too, then filled).
  std::uint32_t ref_y[kBatch], ref_u[kBatch], ref_v[kBatch], dist_y[kBatch], dist_u[kBatch], dist_v[kBatch];
  // The colours of the batch whose table entry is empty, and where each
  // one's Lab goes (2 i for pixel i's reference, 2 i + 1 for its distorted).
  alignas(64) std::uint32_t new_y[2 * kBatch], new_u[2 * kBatch], new_v[2 * kBatch];
  alignas(64) float new_l[2 * kBatch], new_a[2 * kBatch], new_b[2 * kBatch];
  std::uint32_t new_at[2 * kBatch];
  std::uint64_t ref_key[kBatch], dist_key[kBatch];
  bool to_cache[kBatch];
  float values[kBatch];
  std::size_t n = 0;
};

// The batch's Lab pairs from the 8-bit table; the colours whose entry is
// empty get their Lab from the SIMD level's lab kernel (R's lab_from_yuv, the
// same bits as get()), all at once, and fill their entries.
void fill_from_table(LabTable8& table, PendingPixels& p, const LabScale& scale, const Kernels& kernels) {
  LabPairs& q = p.pairs;
  std::size_t fresh = 0;
  auto find = [&](std::size_t i, unsigned side, unsigned y, unsigned u, unsigned v, float* l, float* a, float* b) {
    if (table.find_into(y, u, v, l, a, b)) return;
    p.new_y[fresh] = y, p.new_u[fresh] = u, p.new_v[fresh] = v;
    p.new_at[fresh++] = static_cast<std::uint32_t>(2 * i + side);
  };
  for (std::size_t i = 0; i < p.n; ++i) {
    find(i, 0, p.ref_y[i], p.ref_u[i], p.ref_v[i], &q.l1[i], &q.a1[i], &q.b1[i]);
    find(i, 1, p.dist_y[i], p.dist_u[i], p.dist_v[i], &q.l2[i], &q.a2[i], &q.b2[i]);
  }
  if (fresh == 0) return;
  kernels.lab(p.new_y, p.new_u, p.new_v, fresh, scale, p.new_l, p.new_a, p.new_b);
  for (std::size_t k = 0; k < fresh; ++k) {
    const Lab lab{p.new_l[k], p.new_a[k], p.new_b[k]};
    table.put(p.new_y[k], p.new_u[k], p.new_v[k], lab);
    const std::size_t i = p.new_at[k] / 2;
    if (p.new_at[k] % 2 == 0) {
      q.l1[i] = lab.l, q.a1[i] = lab.a, q.b1[i] = lab.b;
    } else {
      q.l2[i] = lab.l, q.a2[i] = lab.a, q.b2[i] = lab.b;
    }
  }
}

template <class Sample>
void add_region_t(rmath::ExactSumF32& acc, const PictureView& ref, const PictureView& dist, unsigned x0, unsigned x1,
                  unsigned y0, unsigned y1, const Config& c, PairCache* cache) {
  HostMath m;
  LabTable8* table = (c.lab_table && c.bpc == 8) ? &LabTable8::instance() : nullptr;
  auto lab = [&](unsigned y, unsigned u, unsigned v) {
    return table ? table->get(y, u, v) : lab_from_yuv(y, u, v, c.scale, m);
  };
  std::optional<Fp64FreePixels<decltype(lab)>> sf64;
  if (fp64_emulation()) sf64.emplace(Fp64FreePixels<decltype(lab)>{lab_scale_pairs(c.bpc), c.bpc, table != nullptr, lab, {}, 0});
  auto delta_e = [&](unsigned r0, unsigned r1, unsigned r2, unsigned d0, unsigned d1, unsigned d2) {
    float de = 0.0f;
    if (sf64 && sf64->delta_e(r0, r1, r2, d0, d1, d2, &de)) return de;
    return ciede2000(lab(r0, r1, r2), lab(d0, d1, d2), m);
  };
  // The batch kernel where a SIMD level has one (not with the fp64-free
  // emulation, which computes its own way).
  const Kernels& kernels = kernels_for(simd_level());
  std::unique_ptr<PendingPixels> pending;
  if (!sf64 && &kernels != &scalar_kernels()) pending = std::make_unique<PendingPixels>();
  auto flush = [&] {
    PendingPixels& p = *pending;
    if (table) {
      fill_from_table(*table, p, c.scale, kernels);
    } else {
      kernels.lab(p.ref_y, p.ref_u, p.ref_v, p.n, c.scale, p.pairs.l1, p.pairs.a1, p.pairs.b1);
      kernels.lab(p.dist_y, p.dist_u, p.dist_v, p.n, c.scale, p.pairs.l2, p.pairs.a2, p.pairs.b2);
    }
    kernels.delta_e(p.pairs, p.n, p.values);
    for (std::size_t i = 0; i < p.n; ++i) {
      if (p.to_cache[i]) cache->put(p.ref_key[i], p.dist_key[i], p.values[i]);
      acc.add(p.values[i]);
    }
    p.n = 0;
  };
  auto enqueue = [&](unsigned r0, unsigned r1, unsigned r2, unsigned d0, unsigned d1, unsigned d2, bool to_cache,
                     std::uint64_t kr, std::uint64_t kd) {
    PendingPixels& p = *pending;
    const std::size_t i = p.n;
    if (table) {
      table->prefetch(r0, r1, r2);
      table->prefetch(d0, d1, d2);
    }
    p.ref_y[i] = r0, p.ref_u[i] = r1, p.ref_v[i] = r2;
    p.dist_y[i] = d0, p.dist_u[i] = d1, p.dist_v[i] = d2;
    p.to_cache[i] = to_cache;
    p.ref_key[i] = kr;
    p.dist_key[i] = kd;
    if (++p.n == kBatch) flush();
  };
  for (unsigned y = y0; y < y1; ++y) {
    const unsigned cy = y >> c.chroma_y_shift;
    const Sample* ry = ref.row<Sample>(0, y);
    const Sample* ru = ref.row<Sample>(1, cy);
    const Sample* rv = ref.row<Sample>(2, cy);
    const Sample* dy = dist.row<Sample>(0, y);
    const Sample* du = dist.row<Sample>(1, cy);
    const Sample* dv = dist.row<Sample>(2, cy);
    for (unsigned x = x0; x < x1; ++x) {
      const unsigned cx = x >> c.chroma_x_shift;
      const unsigned r0 = ry[x], r1 = ru[cx], r2 = rv[cx];
      const unsigned d0 = dy[x], d1 = du[cx], d2 = dv[cx];
      if (r0 == d0 && r1 == d1 && r2 == d2) continue;  // exactly +0 (ciede_math.hpp)
      float de = 0.0f;
      if (cache && cache->use()) {
        const std::uint64_t kr = PairCache::key(r0, r1, r2), kd = PairCache::key(d0, d1, d2);
        const bool hit = cache->find(kr, kd, &de);
        cache->record(hit);
        if (!hit) {
          if (pending) {
            enqueue(r0, r1, r2, d0, d1, d2, true, kr, kd);
            continue;
          }
          de = delta_e(r0, r1, r2, d0, d1, d2);
          cache->put(kr, kd, de);
        }
      } else if (pending) {
        enqueue(r0, r1, r2, d0, d1, d2, false, 0, 0);
        continue;
      } else {
        de = delta_e(r0, r1, r2, d0, d1, d2);
      }
      acc.add(de);
    }
  }
  if (pending && pending->n != 0) flush();
}

std::size_t scalar_delta_e(const LabPairs& p, std::size_t n, float* out) {
  HostMath m;
  for (std::size_t i = 0; i < n; ++i)
    out[i] = ciede2000(Lab{p.l1[i], p.a1[i], p.b1[i]}, Lab{p.l2[i], p.a2[i], p.b2[i]}, m);
  return n;
}

std::size_t scalar_lab(const std::uint32_t* y, const std::uint32_t* u, const std::uint32_t* v, std::size_t n,
                       const LabScale& s, float* l, float* a, float* b) {
  HostMath m;
  for (std::size_t i = 0; i < n; ++i) {
    const Lab c = lab_from_yuv(y[i], u[i], v[i], s, m);
    l[i] = c.l, a[i] = c.a, b[i] = c.b;
  }
  return n;
}

}  // namespace

// The scalar kernel table (ciede_simd.hpp): the formula pair by pair. The
// CPU worker does not batch at this level (it calls the formula per pixel).
const Kernels& scalar_kernels() {
  static const Kernels k = {"scalar", &scalar_delta_e, &scalar_lab};
  return k;
}

void add_region(rmath::ExactSumF32& acc, const PictureView& ref, const PictureView& dist, unsigned x0, unsigned x1,
                unsigned y0, unsigned y1, const Config& c, PairCache* cache) {
  if (c.bpc == 8)
    add_region_t<std::uint8_t>(acc, ref, dist, x0, x1, y0, y1, c, cache);
  else
    add_region_t<std::uint16_t>(acc, ref, dist, x0, x1, y0, y1, c, cache);
}

Lab lab_host(unsigned y, unsigned u, unsigned v, const LabScale& s) {
  HostMath m;
  return lab_from_yuv(y, u, v, s, m);
}

float pixel_value(const PictureView& ref, const PictureView& dist, unsigned x, unsigned y, const Config& c) {
  rmath::ExactSumF32 acc{};
  add_region(acc, ref, dist, x, x + 1, y, y + 1, c, nullptr);
  return static_cast<float>(acc.round_to_double());  // one float term: exact
}

Config config_from_options(const OptionValues& o) {
  Config c;
  c.lab_table = o.get_bool("lab_table");
  c.pair_cache = o.get_bool("pair_cache");
  c.cuda_replay_every = static_cast<std::uint64_t>(o.get_int("cuda_replay_every"));
  return c;
}

std::vector<std::string> init(Config& c, const VideoFormat& fmt) {
  if (fmt.pix_fmt == PixelFormat::yuv400) throw Error("ciede: needs chroma planes (the input is 4:0:0)");
  if (fmt.bitdepth != 8 && fmt.bitdepth != 10 && fmt.bitdepth != 12 && fmt.bitdepth != 16)
    throw Error(fmt::format("ciede: unsupported bit depth {}", fmt.bitdepth));
  c.w = fmt.width;
  c.h = fmt.height;
  c.bpc = fmt.bitdepth;
  c.scale = lab_scale(fmt.bitdepth);
  c.chroma_x_shift = fmt.pix_fmt == PixelFormat::yuv444 ? 0u : 1u;
  c.chroma_y_shift = fmt.pix_fmt == PixelFormat::yuv420 ? 1u : 0u;
  if (fmt.pix_fmt == PixelFormat::yuv422)
    io::warn("ciede: 4:2:2 chroma is read at (x/2, y); upstream libvmaf reads it at (x, y/2) and past the "
             "row ends, so ciede2000 differs from upstream on 4:2:2 input");
  return {"ciede2000"};
}

#if !EXACTVMAF_FEATURE_CUDA
// The device test hooks in builds without CUDA (the tests skip before
// calling them).
DeviceCheckCounts device_pair_values(unsigned, bool, const std::uint16_t*, std::size_t, float*, std::uint8_t*, bool) {
  throw Error("ciede: this build has no CUDA");
}
DeviceCheckCounts device_lab_values(unsigned, std::uint64_t, std::size_t, float*, std::uint8_t*, bool) {
  throw Error("ciede: this build has no CUDA");
}
std::uint64_t device_lab_table8(float*, bool) { throw Error("ciede: this build has no CUDA"); }
#endif

}  // namespace ciede

namespace {

class CiedeWorker final : public FeatureWorker {
 public:
  explicit CiedeWorker(const ciede::Config& c) : c_(c) {
    if (c_.pair_cache) cache_ = std::make_unique<ciede::PairCache>();
  }
  void extract(const FrameInput& in, FrameOutput& out) override {
    rmath::ExactSumF32 acc{};
    ciede::add_region(acc, in.ref, in.dist, 0, c_.w, 0, c_.h, c_, cache_.get());
    out.set(0, ciede::frame_score(acc.round_to_double(), c_.w, c_.h));
  }

 private:
  ciede::Config c_;
  std::unique_ptr<ciede::PairCache> cache_;
};

class CiedeExtractor final : public FeatureExtractor {
 public:
  explicit CiedeExtractor(const OptionValues& o) : c_(ciede::config_from_options(o)) {}
  std::vector<std::string> init(const VideoFormat& fmt) override { return ciede::init(c_, fmt); }
  std::unique_ptr<FeatureWorker> make_worker() override { return std::make_unique<CiedeWorker>(c_); }
#if EXACTVMAF_FEATURE_CUDA
  std::unique_ptr<cuda::FeatureWorker> make_cuda_worker() override { return ciede::make_cuda_worker(c_); }
#endif

 private:
  ciede::Config c_;
};

}  // namespace

FeatureInfo ciede_feature_info() {
  FeatureInfo f;
  f.name = "ciede";
  f.help = "CIEDE2000 colour difference, 45 - 20 log10 of the mean deltaE00 over the frame (ciede2000)";
  f.options = {
      {"lab_table", OptionType::boolean, true, 0, 0,
       "8-bit input: take each colour's Lab from a table filled once per process (same values; false: compute "
       "it for every pixel)"},
      {"pair_cache", OptionType::boolean, true, 0, 0,
       "reuse the value of recently seen colour pairs (same values; false: compute every pixel)"},
      {"cuda_replay_every", OptionType::integer, std::int64_t{0}, 0, 4294967295.0,
       "test switch: the CUDA kernel leaves every Nth pixel to the host's replay, as if undecided (same values; "
       "0: off)"},
  };
  f.provided = {"ciede2000"};
  f.has_cuda = EXACTVMAF_FEATURE_CUDA;
  f.create = [](const OptionValues& o) { return std::make_unique<CiedeExtractor>(o); };
  return f;
}

}  // namespace exactvmaf
