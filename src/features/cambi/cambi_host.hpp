// cambi on the host: the parts every backend shares (cambi_cpu.cpp defines
// them). The Config from the options (sizes, windows, the luminance tables:
// the EOTF and tvi computations are fp64 islands run once, with R's pow),
// the output names and values, and the heat-map files.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "exactvmaf/format.hpp"
#include "features/cambi/cambi_math.hpp"

namespace exactvmaf::cambi {

// ---- luminance (fp64 islands, host, once per run) ------------------------------

enum class Eotf { bt1886, pq };

// vmaf_luminance_bt1886_eotf / _pq_eotf of a normalised value v in [0, 1],
// upstream's double expressions with R's pow.
double bt1886_eotf(double v);
double pq_eotf(double v);
// The luminance of a 10-bit limited-range sample (clipped to [64, 940]).
double luminance(int sample, Eotf eotf);
// get_tvi_for_diff at 10 bits: the largest sample whose step by `diff` is
// still below the visibility threshold (upstream's bisection, probe by probe).
int tvi_for_diff(int diff, double tvi_threshold, Eotf eotf);
// get_vlt_luma: the smallest sample whose luminance reaches the threshold, 0
// when the foot does. -1 when no sample does (upstream then loops forever).
int vlt_luma(double threshold, Eotf eotf);

// ---- configuration -------------------------------------------------------------

// One of the two pictures cambi scores: the distorted one at the encode size
// and, with full_ref, the reference at the source size.
struct PictureSetup {
  unsigned w = 0, h = 0;  // the size cambi computes at
  int window = 0;         // the adjusted window (odd)
  // Nearest-neighbour source row and column of each output row and column
  // (nearest_indices); empty when the size is the input's.
  std::vector<u32> row_map, col_map;
};

class HeatmapFiles;

struct Config {
  unsigned in_w = 0, in_h = 0, bpc = 8;  // the input's luma
  unsigned enc_bitdepth = 8;
  PictureSetup enc, src;  // src only with full_ref
  bool full_ref = false;
  bool high_res_speedup = false;  // effective (the encode is large enough)
  double topk = 0.6, max_val = 1000.0;
  Params params;
  unsigned alloc_w = 0, alloc_h = 0;  // the larger picture
  std::shared_ptr<HeatmapFiles> heatmaps;  // null: no heatmaps_path
};

// Validates the options against the input (throws Error naming the option).
Config make_config(const OptionValues& o, const VideoFormat& fmt);

// The output names in libvmaf's order: cambi (with option suffixes), then
// with full_ref cambi_source and cambi_full_reference.
std::vector<std::string> output_names(const Config& c, const OptionValues& o);

// The outputs of one frame from the unclipped scores (src: full_ref only).
void write_outputs(const Config& c, double dist_score, double src_score, FrameOutput& out);

// The sample-range check upstream makes before scoring a picture: throws
// Error when a luma sample exceeds the bit depth (`which`: "distorted" or
// "reference").
void check_sample_range(const PictureView& pic, unsigned bpc, std::uint64_t frame, const char* which);

// ---- heat maps -------------------------------------------------------------------

// The five files upstream writes into heatmaps_path:
// cambi_heatmap_scale_<s>_<w>x<h>_16b.gray, one per scale, each frame's
// uint16 values (little-endian) at offset frame * w_s * h_s * 2, where w_s x
// h_s is the size the scale computed at. The names use the encode size
// halved per scale even with the high-resolution speed-up (whose scale s
// computes at the next scale's size), as upstream's do. Shared by the
// workers (positioned writes).
class HeatmapFiles {
 public:
  HeatmapFiles(const std::string& dir, unsigned enc_w, unsigned enc_h);
  ~HeatmapFiles();
  HeatmapFiles(const HeatmapFiles&) = delete;
  HeatmapFiles& operator=(const HeatmapFiles&) = delete;
  // Writes the w x h c-values of `scale` for `frame` (throws Error on failure).
  void write(int scale, std::uint64_t frame, unsigned w, unsigned h, const float* c_values, double heat_scale);
  const std::string& path(int scale) const { return paths_[scale]; }

 private:
  int fd_[num_scales];
  std::string paths_[num_scales];
};

}  // namespace exactvmaf::cambi
