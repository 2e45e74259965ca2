// ciede on the host (docs/design.md, "The feature template"): the run's
// Config and the parts the CPU worker and the CUDA worker's finish() share
// (ciede_cpu.cpp defines them). Everything here returns R's values
// bit for bit; the table and the cache only skip recomputation.
//   - LabTable8: R's Lab of every 8-bit colour, filled lazily (an entry is
//     computed the first time a pixel needs it: by HostMath, or by the SIMD
//     level's lab kernel for a batch's new colours, the same bits) and
//     shared by all threads of the process. 2^24 entries of 16 bytes (L, a, b as the
//     floats the formula reads, and a state word) in zero pages that are only
//     backed once touched: a clip touches the pages of its colours.
//   - PairCache: a small direct-mapped cache, per worker, of the deltaE of
//     recent (reference, distorted) colour pairs; video repeats pairs a lot
//     (flat areas, 4:2:0 chroma shared by 2x2 pixels).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "exactvmaf/format.hpp"
#include "features/ciede/ciede_math.hpp"
#include "numeric/exact_sum.hpp"

namespace exactvmaf::ciede {

struct Config {
  unsigned w = 0, h = 0, bpc = 8;
  unsigned chroma_x_shift = 0, chroma_y_shift = 0;
  LabScale scale{};
  bool lab_table = true;   // feature option lab_table (8-bit only)
  bool pair_cache = true;  // feature option pair_cache
  // Test switch (feature option cuda_replay_every): the CUDA kernel leaves
  // every Nth pixel to the host's replay as if undecided (same values).
  std::uint64_t cuda_replay_every = 0;
};

// The options of --feature ciede (ciede_cpu.cpp).
Config config_from_options(const OptionValues& o);

// Checks the format (Error naming ciede), fills the format-dependent fields
// and returns the output names (ciede_cpu.cpp).
std::vector<std::string> init(Config& c, const VideoFormat& fmt);

// LabTable8 is indexed by colour_index8 (ciede_math.hpp), as the device table.
class LabTable8 {
 public:
  // The process's table (allocated on the first call; never freed before exit).
  static LabTable8& instance();
  // R's Lab of the 8-bit colour (y, u, v): lab_from_yuv with HostMath.
  Lab get(unsigned y, unsigned u, unsigned v);
  // The entry's values written to *l, *a, *b if it is filled (as bits: a Lab
  // returned in registers went through the stack, and the 8-byte reload of
  // two 4-byte stores stalled every lookup); false if it is empty.
  bool find_into(unsigned y, unsigned u, unsigned v, float* l, float* a, float* b) const;
  // Starts loading the colour's entry (a batch looks it up later).
  // always_inline: gcc 12 dropped the prefetch of this function when it was
  // inlined late (no prefetch instruction was left in the pixel loop).
  [[gnu::always_inline]] void prefetch(unsigned y, unsigned u, unsigned v) const {
    __builtin_prefetch(entry(y, u, v));
  }
  // Fills the entry with `lab`, which must be R's Lab of the colour.
  void put(unsigned y, unsigned u, unsigned v, const Lab& lab);
  // Entries computed so far (a test hook; counts with a scan).
  std::uint64_t filled_entries() const;

 private:
  LabTable8();
  ~LabTable8();
  LabTable8(const LabTable8&) = delete;
  LabTable8& operator=(const LabTable8&) = delete;
  [[gnu::always_inline]] std::uint32_t* entry(unsigned y, unsigned u, unsigned v) const {
    return words_ + std::size_t{4} * colour_index8(y, u, v);
  }
  std::uint32_t* words_ = nullptr;  // 4 per colour: bits of L, a, b; state (0 empty, 1 set)
  LabScale scale_{};
};

class PairCache {
 public:
  static constexpr unsigned kBits = 16;
  PairCache() : entries_(std::size_t{1} << kBits) {}
  // Keys: (y << 32) | (u << 16) | v, below 2^48 for every bit depth.
  static std::uint64_t key(unsigned y, unsigned u, unsigned v) {
    return (static_cast<std::uint64_t>(y) << 32) | (static_cast<std::uint64_t>(u) << 16) | v;
  }
  bool find(std::uint64_t ref, std::uint64_t dist, float* value) const {
    const Entry& e = entries_[slot(ref, dist)];
    if (e.ref != ref || e.dist != dist) return false;
    *value = e.value;
    return true;
  }
  void put(std::uint64_t ref, std::uint64_t dist, float value) { entries_[slot(ref, dist)] = {ref, dist, value}; }
  // Hit-rate governor (no value depends on it): where pairs rarely repeat
  // (noise-like content) a lookup costs a miss in a 1.5 MiB table and saves
  // nothing. After a window of kWindow lookups with fewer than kMinHits hits,
  // the next kPause pixels bypass the cache; then it is tried again. Each
  // further poor window in a row doubles the pause, up to kPause << kMaxDoublings
  // (about half a 1080p frame): on grain (0.2 % hits) the trial windows of
  // a fixed pause were 6 % of the pixels, each lookup a cache miss.
  // Measured on 1080p noise pairs (3.6 % hits): 4 % faster; real content
  // (54-67 % hits) keeps the cache.
  static constexpr unsigned kWindow = 4096, kMinHits = kWindow / 16, kPause = 15 * kWindow, kMaxDoublings = 4;
  bool use() {
    if (pause_ == 0) return true;
    --pause_;
    return false;
  }
  void record(bool hit) {
    hits_ += hit ? 1u : 0u;
    if (++probes_ == kWindow) {
      if (hits_ < kMinHits) {
        pause_ = kPause << poor_windows_;
        if (poor_windows_ < kMaxDoublings) ++poor_windows_;
      } else {
        poor_windows_ = 0;
      }
      probes_ = hits_ = 0;
    }
  }

 private:
  struct Entry {
    std::uint64_t ref = ~std::uint64_t{0}, dist = ~std::uint64_t{0};  // never a key
    float value = 0.0f;
  };
  static std::size_t slot(std::uint64_t ref, std::uint64_t dist) {
    const std::uint64_t h = (ref * 0x9e3779b97f4a7c15ull) ^ (dist * 0xc2b2ae3d27d4eb4full);
    return static_cast<std::size_t>(h >> (64 - kBits));
  }
  std::vector<Entry> entries_;
  unsigned probes_ = 0, hits_ = 0, pause_ = 0;
  unsigned poor_windows_ = 0;  // poor windows in a row before the current pause
};

// Adds R's deltaE of the pixels [x0, x1) x [y0, y1) to acc (identical pairs
// add nothing). cache may be null.
void add_region(rmath::ExactSumF32& acc, const PictureView& ref, const PictureView& dist, unsigned x0, unsigned x1,
                unsigned y0, unsigned y1, const Config& c, PairCache* cache);

// R's Lab of one colour (lab_from_yuv with HostMath; for .cu files, where
// instantiating the host+device templates with HostMath draws warnings).
Lab lab_host(unsigned y, unsigned u, unsigned v, const LabScale& s);

// R's deltaE of one pixel (HostMath).
float pixel_value(const PictureView& ref, const PictureView& dist, unsigned x, unsigned y, const Config& c);

}  // namespace exactvmaf::ciede
