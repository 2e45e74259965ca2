// The CLI with compressed input end to end: the same report as for the raw
// files, alignment warnings, --scale and its report field, and bad input as
// one line naming the file with a non-zero exit.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "av/av_test_util.hpp"

namespace exactvmaf::test {
namespace {

const std::string kRawC01 = "-r " + quoted(fixtures_dir() / "c01_176x144_8b_420_ref.yuv") + " -d " +
                            quoted(fixtures_dir() / "c01_176x144_8b_420_dist.yuv") + " -w 176 -h 144 -p 420 -b 8";
const std::string kAvC01 = "-r " + quoted(av_fixture("c01_176x144_8b_420_ref.ffv1.mkv")) + " -d " +
                           quoted(av_fixture("c01_176x144_8b_420_dist.x264.mp4"));
const std::string kY4mRef = quoted(fixtures_dir() / "c01_176x144_8b_420_ref.y4m");

void expect_clean_error(const CliResult& r, const std::string& fragment) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -1) << "killed by a signal";
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
  EXPECT_EQ(r.err.rfind("exactvmaf: error: ", 0), 0u) << r.err;
}

TEST(AvCli, LosslessInputGivesTheRawInputsReport) {
  for (const char* fmt : {"--json", "--xml", "--csv"}) {
    const auto raw = run_cli(kRawC01 + " --feature psnr -q --precision max " + fmt);
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    for (const char* threads : {"1", "3"}) {
      const auto av = run_cli(kAvC01 + " --feature psnr -q --precision max --threads " + std::string(threads) + " " + fmt);
      ASSERT_EQ(av.exit_code, 0) << av.err;
      EXPECT_EQ(mask_fps(av.out), mask_fps(raw.out)) << fmt << " threads " << threads;
      EXPECT_TRUE(av.err.empty()) << av.err;
    }
  }
}

TEST(AvCli, SummaryReportsTheInputs) {
  const auto r = run_cli(kAvC01 + " -n --feature psnr -o /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("reference " + av_fixture("c01_176x144_8b_420_ref.ffv1.mkv").string() +
                       ": matroska,webm, ffv1 yuv420p"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("h264 yuv420p, unknown range, 25/1 fps, time base 1/12800"), std::string::npos) << r.err;
}

// The lossy clips score as the same clips decoded to y4m by the ffmpeg CLI.
TEST(AvCli, LossyClipsScoreAsTheirY4mDecode) {
  if (!have_ffmpeg_cli()) {
    std::printf("[ note ] no ffmpeg CLI: the decoded frames are checked against the committed framemd5 files "
                "(AvLossy.FramesEqualTheFfmpegCliDecode), which implies the same scores\n");
    return;
  }
  for (const char* f : {"lossy_176x144_8b.h264.mp4", "lossy_176x144_8b.hevc.mkv", "lossy_176x144_8b.vp9.webm",
                        "lossy_176x144_8b.av1.ivf", "lossy_176x144_10b.hevc.mp4"}) {
    const bool ten = std::string(f).find("10b") != std::string::npos;
    const auto y4m = av_temp_dir() / (std::string(f) + ".y4m");
    const std::string cmd = fmt::format("ffmpeg -hide_banner -nostdin -loglevel error -y -i {} -fps_mode passthrough "
                                        "-strict -1 -f yuv4mpegpipe {}",
                                        quoted(av_fixture(f)), quoted(y4m));
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string ref = ten ? quoted(fixtures_dir() / "c03_176x144_10b_420_ref.y4m") : kY4mRef;
    const std::string run = " --feature psnr --feature float_psnr -q --json --precision max";
    const auto direct = run_cli("-r " + ref + " -d " + quoted(av_fixture(f)) + run);
    const auto piped = run_cli("-r " + ref + " -d " + quoted(y4m) + run);
    ASSERT_EQ(direct.exit_code, 0) << direct.err;
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(mask_fps(direct.out), mask_fps(piped.out)) << f;
    EXPECT_EQ(nlohmann::json::parse(direct.out).at("frames").size(), ten ? 4u : 10u);
  }
}

// --hwdec: a bad value, and cuda where it cannot work, are one-line errors
// (the GPU runs: tests/av/hwdec_cuda_test.sh); auto never fails a run.
TEST(AvCli, HwdecRefusesWhatCannotWork) {
  const std::string f = " -n --feature psnr -q -o /dev/null";
  expect_clean_error(run_cli(kAvC01 + f + " --hwdec nvidia"), "--hwdec nvidia: expected none, cuda or auto");
  expect_clean_error(run_cli(kAvC01 + f + " --hwdec cuda"), "--hwdec cuda: it needs --backend cuda");
  expect_clean_error(run_cli(kAvC01 + f + " --hwdec cuda --backend auto"), "--hwdec cuda: it needs --backend cuda");
  expect_clean_error(run_cli(kAvC01 + f + " --hwdec cuda --backend cuda --gpu 0,0"),
                     "--hwdec cuda: it needs one GPU (--gpu N)");
  expect_clean_error(run_cli(kAvC01 + f + " --hwdec cuda --backend cuda --scale auto"),
                     "--hwdec cuda: --scale auto converts pixel formats on the host");
  // Where it works on the GPU is tests/av/hwdec_cuda_test.sh; here the
  // default (auto) and none leave a cpu run as it was.
  const auto cpu = run_cli(kAvC01 + " -n --feature psnr -q --json --precision max");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  for (const char* mode : {"auto", "none"}) {
    const auto r = run_cli(kAvC01 + " -n --feature psnr -q --json --precision max --hwdec " + mode);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(mask_fps(r.out), mask_fps(cpu.out)) << mode;
  }
}

TEST(AvCli, DifferentFrameRatesAreReported) {
  const auto r = run_cli("-r " + kY4mRef + " -d " + quoted(av_fixture("rate24.mkv")) + " -n --feature psnr -q -o /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is 25 fps but \"" + av_fixture("rate24.mkv").string() +
                       "\" is 24 fps: frames are paired by index, not by time"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(AvCli, VariableFrameRateAndPairsApartAreReported) {
  const auto r = run_cli("-r " + kY4mRef + " -d " + quoted(av_fixture("vfr.mkv")) + " -n --feature psnr -q -o /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("vfr.mkv: variable frame rate: frame 5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("more than half a frame apart in time in 5 of 10 pairs (first: pair 5"), std::string::npos)
      << r.err;
}

TEST(AvCli, FrameCountsAreCheckedWithSkipAndCount) {
  // The distorted (y4m) ends first after skipping 2 frames; the reference's
  // count is what its container says (nothing is decoded to count it).
  const auto r = run_cli("-r " + quoted(av_fixture("lossy_176x144_8b.h264.mp4")) + " -d " + kY4mRef +
                         " --frame_skip_dist 2 -n --feature psnr -q --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ended after 8 frames, before \"" + av_fixture("lossy_176x144_8b.h264.mp4").string() +
                       "\" (about 10 frames, as its container says); scored the first 8"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("frames").size(), 8u);
  // --frame_skip_ref and --frame_cnt as for y4m: frame 3 of the reference against frame 0.
  const auto a = run_cli("-r " + quoted(av_fixture("c01_176x144_8b_420_ref.ffv1.mkv")) + " -d " +
                         quoted(fixtures_dir() / "c01_176x144_8b_420_dist.y4m") +
                         " --frame_skip_ref 3 --frame_cnt 4 -n --feature psnr -q --json --precision max");
  const auto b = run_cli("-r " + kY4mRef + " -d " + quoted(fixtures_dir() / "c01_176x144_8b_420_dist.y4m") +
                         " --frame_skip_ref 3 --frame_cnt 4 -n --feature psnr -q --json --precision max");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(mask_fps(a.out), mask_fps(b.out));
  EXPECT_EQ(nlohmann::json::parse(a.out).at("frames").size(), 4u);
}

TEST(AvCli, ScaleIsRecordedInTheReport) {
  const auto j = run_cli(kAvC01 + " --scale 352x288 --scale_both -n --feature psnr -q --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto json = nlohmann::json::parse(j.out);
  const std::string s = json.at("scaling");
  // Resizing is the R scaler's (libswscale's bytes, defined without it): no libswscale version to record.
  EXPECT_EQ(s, "352x288:bicubic both; reference: 176x144 -> 352x288 bicubic (R scaler); distorted: 176x144 -> "
               "352x288 bicubic (R scaler)");
  const auto x = run_cli(kAvC01 + " --scale 352x288 --scale_both -n --feature psnr -q --xml");
  EXPECT_NE(x.out.find("numerics=\"R1\" scaling=\"352x288:bicubic both;"), std::string::npos) << x.out.substr(0, 300);
  const auto plain = run_cli(kAvC01 + " -n --feature psnr -q --json");
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("scaling"));
  // Scaling the reference to its own size changes nothing (FFmpeg passes such frames through).
  const auto same = run_cli(kAvC01 + " --scale 176x144 --scale_both -n --feature psnr -q --json --precision max");
  const auto none = run_cli(kAvC01 + " -n --feature psnr -q --json --precision max");
  EXPECT_EQ(nlohmann::json::parse(same.out).at("frames"), nlohmann::json::parse(none.out).at("frames"));
}

TEST(AvCli, ScaleAutoDoesWhatAbAv1Does) {
  // 176x144 distorted: both to 1320x1080 (scale=-1:1080), bicubic, 4:2:0 8-bit (the encode's format).
  const auto r = run_cli("-r " + kY4mRef + " -d " + quoted(av_fixture("lossy_176x144_8b.h264.mp4")) +
                         " --scale auto --frame_cnt 2 -q --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("scaling").get<std::string>().rfind("auto (ab-av1, scale=-1:1080:flags=bicubic); reference: "
                                                     "176x144 -> 1320x1080 bicubic (R scaler); distorted: 176x144 -> 1320x1080 "
                                                     "bicubic (R scaler)",
                                                     0),
            0u)
      << j.at("scaling");
  EXPECT_TRUE(j.at("frames")[0].at("metrics").contains("vmaf"));
  // An 8-bit reference against a 10-bit encode: converted to 10 bits first.
  const auto t = run_cli("-r " + quoted(av_fixture("c01_176x144_8b_420_ref.ffv1.mkv")) + " -d " +
                         quoted(av_fixture("c03_176x144_10b_420_dist.aom.ivf")) +
                         " --scale auto --frame_cnt 1 -n --feature psnr -q --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(nlohmann::json::parse(t.out).at("scaling").get<std::string>().find(
                "reference: 420 8-bit -> 420 10-bit, then 176x144 -> 1320x1080 bicubic (R scaler)"),
            std::string::npos)
      << t.out;
}

TEST(AvCliErrors, BadInputIsOneLineNamingTheFile) {
  const auto text = write_temp("cli_notes.mkv", "not a video\n");
  expect_clean_error(run_cli("-r " + quoted(text) + " -d " + kY4mRef + " -n --feature psnr"),
                     text.string() + ": not a video file FFmpeg can read");
  const auto cut = truncated_copy("c01_176x144_8b_420_dist.x264.mp4", 0.6);
  expect_clean_error(run_cli("-r " + kY4mRef + " -d " + quoted(cut) + " -n --feature psnr"), cut.string());
  const auto cut_mkv = truncated_copy("c03_176x144_10b_420_ref.ffv1.mkv", 0.6);
  expect_clean_error(run_cli("-r " + quoted(cut_mkv) + " -d " + quoted(fixtures_dir() / "c03_176x144_10b_420_dist.y4m") +
                             " -n --feature psnr"),
                     cut_mkv.string() + ": the file ends inside the video after");
  expect_clean_error(run_cli("-r " + kY4mRef + " -d " + quoted(av_fixture("pf_64x48.bgr4.nut")) + " -n --feature psnr"),
                     "pf_64x48.bgr4.nut: pixel format bgr4 is not supported");
  // Different sizes (here the distorted scaled alone): the sizes and the way out.
  expect_clean_error(run_cli(kAvC01 + " -n --feature psnr --scale 100x80"),
                     "is 100x80 420 8-bit: reference and distorted must have the same size, pixel format and bit depth "
                     "(--scale WxH scales the distorted video; --scale auto converts and scales both, as ab-av1 does)");
  expect_clean_error(run_cli(kAvC01 + " -n --feature psnr --stream 2"), "--stream 2: no such stream (streams: 0 video ffv1)");
  expect_clean_error(run_cli(kAvC01 + " -n --feature psnr --scale 12"), "--scale 12: expected WxH");
  expect_clean_error(run_cli(kAvC01 + " -n --feature psnr --scale_both"), "--scale_both needs --scale WxH");
  expect_clean_error(run_cli("-r " + kY4mRef + " -d " + kY4mRef + " -n --feature psnr --stream 1"),
                     "--stream 1: neither input is read through FFmpeg");
}

}  // namespace
}  // namespace exactvmaf::test
