// The golden runs of tools/fixtures/run_goldens.py per feature: run name ->
// --feature arguments and run options. Shared by the feature tests and the
// CUDA tests.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

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

// The speed* runs of tools/fixtures/run_goldens.py.
inline const std::map<std::string, GoldenRun>& speed_golden_runs() {
  static const std::map<std::string, GoldenRun> runs = {
      {"speed_chroma", {{"speed_chroma"}}},
      {"speed_temporal", {{"speed_temporal"}}},
      {"speed_chroma_v1016",
       {{"speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45.0"}}},
      {"speed_chroma_v1016_3d0h_2160",
       {{"speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_prescale=0.5:"
         "speed_prescale_method=bilinear:speed_max_val=45.0"}}},
      {"speed_chroma_v1016_5d0h",
       {{"speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_prescale=0.6:"
         "speed_prescale_method=bilinear:speed_max_val=45.0"}}},
      {"speed_chroma_wvm",
       {{"speed_chroma=speed_weight_var_mode=1", "speed_chroma=speed_weight_var_mode=2",
         "speed_chroma=speed_weight_var_mode=3", "speed_chroma=speed_weight_var_mode=4",
         "speed_chroma=speed_weight_var_mode=6"}}},
      {"speed_chroma_ks", {{"speed_chroma=speed_kernelscale=0.5", "speed_chroma=speed_kernelscale=3.0"}}},
      {"speed_chroma_snn_nnf_mxv", {{"speed_chroma=speed_sigma_nn=0.5:speed_nn_floor=0.3:speed_max_val=5"}}},
      {"speed_chroma_prescale",
       {{"speed_chroma=speed_prescale=0.75", "speed_chroma=speed_prescale=0.8:speed_prescale_method=bicubic",
         "speed_chroma=speed_prescale=1.25:speed_prescale_method=lanczos4"}}},
      {"speed_temporal_urd", {{"speed_temporal=speed_use_ref_diff=true"}}},
      {"speed_temporal_opts",
       {{"speed_temporal=speed_kernelscale=1.5:speed_prescale=0.5:speed_prescale_method=bilinear:speed_sigma_nn=0.19:"
         "speed_nn_floor=0.1:speed_max_val=5"}}},
  };
  return runs;
}

// tools/fixtures/run_goldens.py's float_adm runs.
inline const std::map<std::string, GoldenRun>& float_adm_golden_runs() {
  static const std::map<std::string, GoldenRun> runs = {
      {"float_adm", {{"float_adm"}}},
      {"float_adm_debug", {{"float_adm=debug=true"}}},
      {"float_adm_egl_1.2", {{"float_adm=adm_enhn_gain_limit=1.2:debug=true"}}},
      {"float_adm_nvd_1.5_2160", {{"float_adm=adm_norm_view_dist=1.5:adm_ref_display_height=2160"}}},
      {"float_adm_p_norm", {{"float_adm=adm_p_norm=2", "float_adm=adm_p_norm=4.5:debug=true"}}},
      {"float_adm_nw_0", {{"float_adm=adm_noise_weight=0:debug=true"}}},
      {"float_adm_csf_modes",
       {{"float_adm=adm_csf_mode=1:adm_csf_scale=1.5:adm_csf_diag_scale=0.8", "float_adm=adm_csf_mode=2"}}},
      {"float_adm_bypass_cm", {{"float_adm=adm_bypass_cm=1"}}},
      {"float_adm_dlm_hm", {{"float_adm=adm_dlm_weight=0.7:adm_min_val=0.5", "float_adm=adm_adm3_apply_hm=true"}}},
      {"float_adm_factors", {{"float_adm=adm_f1s1=2.25:adm_f2s0=0.3:adm_f1s3=0"}}},
      {"float_adm_skip", {{"float_adm=adm_skip_scale0=true:adm_skip_aim_scale=2:debug=true"}}},
  };
  return runs;
}

// tools/fixtures/run_goldens.py's cambi runs (HEATMAPS: a directory the test
// chooses; the golden keeps the files' sizes and checksums).
inline const std::map<std::string, GoldenRun>& cambi_golden_runs() {
  static const std::map<std::string, GoldenRun> runs = {
      {"cambi", {{"cambi"}}},
      {"cambi_v1016", {{"cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"}}},
      {"cambi_full_ref", {{"cambi=full_ref=true"}}},
      {"cambi_window_size", {{"cambi=window_size=15", "cambi=window_size=127"}}},
      {"cambi_topk", {{"cambi=topk=0.1", "cambi=cambi_topk=1", "cambi=topk=0.0001"}}},
      {"cambi_tvi_threshold", {{"cambi=tvi_threshold=0.001", "cambi=tvi_threshold=0.2"}}},
      {"cambi_vis_lum_threshold", {{"cambi=cambi_vis_lum_threshold=0.06", "cambi=cambi_vis_lum_threshold=20"}}},
      {"cambi_max_log_contrast", {{"cambi=max_log_contrast=0", "cambi=max_log_contrast=3", "cambi=max_log_contrast=5"}}},
      {"cambi_eotf", {{"cambi=eotf=pq", "cambi=cambi_eotf=pq:cambi_vis_lum_threshold=1.5"}}},
      {"cambi_high_res_speedup", {{"cambi=cambi_high_res_speedup=1080", "cambi=cambi_high_res_speedup=1440"}}},
      {"cambi_enc_size", {{"cambi=enc_width=300:enc_height=225"}}},
      {"cambi_enc_bitdepth", {{"cambi=enc_bitdepth=10", "cambi=enc_bitdepth=8"}}},
      {"cambi_full_ref_src_size", {{"cambi=full_ref=true:src_width=320:src_height=240:enc_width=300:enc_height=225"}}},
      {"cambi_max_val", {{"cambi=cambi_max_val=1.5:full_ref=true"}}},
      {"cambi_heatmaps", {{"cambi=heatmaps_path=HEATMAPS"}}},
      {"cambi_heatmaps_mlc0", {{"cambi=heatmaps_path=HEATMAPS:max_log_contrast=0:window_size=127"}}},
      {"cambi_threads2", {{"cambi=full_ref=true"}, 1, 0, 2}},
      {"cambi_subsample2", {{"cambi"}, 2}},
      {"cambi_heatmaps_subsample2", {{"cambi=heatmaps_path=HEATMAPS"}, 2}},
  };
  return runs;
}

// The fixture pairs with a ciede golden (run "ciede", no options).
inline std::vector<std::string> ciede_golden_pairs() {
  std::vector<std::string> out;
  for (const auto& p : fixture_pairs())
    if (std::filesystem::exists(golden_dir() / "r" / p.name / "ciede.json")) out.push_back(p.name);
  return out;
}

// Pairs where R's ciede golden (upstream + correctly rounded libm) is not R's
// definition: c02 (upstream reads uninitialised chroma past its w>>1 x h>>1
// planes; its numbers change between runs) and 4:2:2 (upstream's mapping is
// wrong).
inline bool ciede_golden_is_not_r(const std::string& pair) {
  return pair == "c02_175x97_8b_420" || pair == "c05_176x144_8b_422" || pair == "c08_176x144_10b_422";
}

}  // namespace exactvmaf::test
