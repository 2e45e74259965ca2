// SpEED on the host (docs/design.md, "The feature template"): the run's
// Config and the CPU's per-plane chain, shared by the CPU workers
// (speed_cpu.cpp), the CUDA worker (its host fallback for frames with an
// undecided log2) and the tests.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exactvmaf/feature.hpp"
#include "features/speed/speed_math.hpp"

namespace exactvmaf::speed {

struct Config {
  bool chroma = false;  // speed_chroma (U, V planes) or speed_temporal (luma differences)
  unsigned bpc = 8;
  Dims dims;
  bool scale = false;  // resample to dims.scaled_* first
  ScaleMethod method = ScaleMethod::nearest;
  float kernelscale = 1.0f;
  Filter antialias, local_mean;
  float sigma_nn = 0.29f, nn_floor = 0.0f;
  double max_val = 1000.0;
  int weight_var_mode = 0;
  bool use_ref_diff = false;
  // The prescaling's axes, computed once with R (the device gets copies):
  // bilinear and bicubic: each output column's / row's source position;
  // lanczos4: each output column's / row's first index and weights.
  std::vector<float> coord_cols, coord_rows;
  std::vector<Lanczos4Axis> lanczos_cols, lanczos_rows;
  double log2_2pie = 0.0;    // log2(2 pi e), R's
  float base_entropy = 0.0f;  // get_speed_score's threshold
};

// Validates the options against the plane (throws Error naming `feature`).
Config make_config(const std::string& feature, const OptionValues& o, unsigned plane_w, unsigned plane_h,
                   unsigned bpc, bool chroma);

struct PlaneParams {
  std::vector<float> entropy, variance;  // per block
};

struct Scratch {
  std::vector<float> dec, resid, cov, means, eig, y, x, qy;
  std::unique_ptr<SolveShared> solve;  // solve_plane's workspace
  PlaneParams ref, dis;
  void resize(const Dims& d);
};

// speed_extract_score's value from s.ref and s.dis.
float pair_score(const Config& c, const Scratch& s, bool err_ref, bool err_dis);

// One frame's scores before the outputs: speed_chroma's U and V (score[0],
// score[1]) with their error flags; speed_temporal's score in score[0].
struct FrameResult {
  float score[2] = {0.0f, 0.0f};
  bool err[2] = {false, false};
  bool singular = false;        // some covariance matrix was singular (upstream warns)
  bool no_convergence = false;  // the eigenvalue iteration hit its limit (upstream warns)
};

// The whole frame on the host (the CPU worker; the CUDA worker's fallback),
// with R's doubles; with `emulate_fp64` as the fp64-free CUDA kernels
// compute it (docs/fp64-free.md: Sf64), falling back to R's host functions
// where those leave a call undecided, and counted in fp64_emulation_counts().
void compute_frame(const Config& c, Scratch& s, const FrameInput& in, FrameResult& r, bool emulate_fp64 = false);

// The prescaled plane's axes for the sample functions (Config's tables).
inline ScaleAxis scale_axis_x(const Config& c) { return {c.coord_cols.data(), c.lanczos_cols.data()}; }
inline ScaleAxis scale_axis_y(const Config& c) { return {c.coord_rows.data(), c.lanczos_rows.data()}; }

// The outputs as upstream appends them (chroma: clipped u, v, uv; temporal:
// the raw score, 0 at frame 0).
void write_outputs(const Config& c, const FrameResult& r, FrameOutput& out);

// Upstream's two warnings, shown once per extractor (frames run on several threads).
class Warnings {
 public:
  explicit Warnings(std::string feature) : feature_(std::move(feature)) {}
  void report(const FrameResult& r, std::uint64_t frame);

 private:
  std::string feature_;
  std::atomic<bool> singular_{false}, no_convergence_{false};
};

}  // namespace exactvmaf::speed
