// The golden runs of tools/fixtures/run_goldens.py per feature: run name ->
// --feature arguments and run options. Shared by the feature tests and the
// CUDA tests.
#pragma once
#include <map>
#include <string>

#include "support/golden.hpp"

namespace exactvmaf::test {

inline const std::map<std::string, GoldenRun>& adm_golden_runs() {
  static const std::map<std::string, GoldenRun> runs = {
      {"adm", {{"adm"}}},
      {"adm_debug", {{"adm=debug=true"}}},
      {"adm_egl_1", {{"adm=adm_enhn_gain_limit=1.0"}}},
      {"adm_egl_1.2", {{"adm=adm_enhn_gain_limit=1.2:debug=true"}}},
      {"adm_v1016_1d5h_2160",
       {{"adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=1.5:"
         "adm_ref_display_height=2160:adm_min_val=0.5:adm_csf_mode=2"}}},
      {"adm_v1016_3d0h",
       {{"adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=3.0:"
         "adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2"}}},
      {"adm_skip", {{"adm=adm_skip_scale0=true:adm_skip_aim=true:debug=true"}}},
      {"adm_csf_modes", {{"adm=adm_csf_mode=1", "adm=adm_csf_mode=3:adm_csf_scale=1.5:adm_csf_diag_scale=0.8"}}},
  };
  return runs;
}

inline const std::map<std::string, GoldenRun>& vif_golden_runs() {
  static const std::map<std::string, GoldenRun> runs = {
      {"vif", {{"vif"}}},
      {"vif_debug", {{"vif=debug=true"}}},
      {"vif_egl_1", {{"vif=vif_enhn_gain_limit=1.0"}}},
      {"vif_egl_1.5_skip0", {{"vif=vif_enhn_gain_limit=1.5:vif_skip_scale0=true:debug=true"}}},
  };
  return runs;
}

inline const std::map<std::string, GoldenRun>& motion_golden_runs() {
  static const std::map<std::string, GoldenRun> runs = {
      {"motion", {{"motion"}}},
      {"motion_debug", {{"motion=debug=true"}}},
      {"motion_blend", {{"motion=motion_blend_factor=0.5:motion_blend_offset=1.5"}}},
      {"motion_moving_average", {{"motion=motion_moving_average=true"}}},
      {"motion_fps_weight_max_val", {{"motion=motion_fps_weight=2.5:motion_max_val=3"}}},
      {"motion_five_frame_window", {{"motion=motion_five_frame_window=true:debug=true"}}},
      {"motion_five_frame_window_mma_blend",
       {{"motion=motion_five_frame_window=true:motion_moving_average=true:motion_blend_factor=0.25:"
         "motion_blend_offset=2"}}},
      {"motion_force_zero", {{"motion=motion_force_zero=true"}}},
      {"motion_subsample2", {{"motion"}, 2}},
      {"motion_five_frame_window_subsample3", {{"motion=motion_five_frame_window=true"}, 3}},
      {"motion_frame_cnt3", {{"motion"}, 1, 3}},
      {"motion_threads2", {{"motion"}, 1, 0, 2}},
      {"motion_psnr", {{"psnr", "motion=debug=true"}}},
  };
  return runs;
}

}  // namespace exactvmaf::test
