// The libav reader and the scaler (src/av/, docs/input.md): lossless
// encodes decode to the raw fixtures and score the raw goldens bit for bit;
// lossy clips decode to what the ffmpeg CLI decodes; pixel formats are copied
// or converted as FFmpeg converts them; --scale equals FFmpeg's scale filter
// with the same flags; ab-av1's auto rule; which reader reads what; bad input.
#include <gtest/gtest.h>

#include <set>

#include "av/av_input.hpp"
#include "av/av_test_util.hpp"
#include "exactvmaf/error.hpp"
#include "exactvmaf/model.hpp"
#include "io/warnings.hpp"
#include "support/golden.hpp"

namespace exactvmaf::test {
namespace {

using av::open_av;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Collects reader warnings while alive.
struct Warnings {
  Warnings() {
    previous = io::set_warning_handler([this](const std::string& m) { messages.push_back(m); });
  }
  ~Warnings() { io::set_warning_handler(previous); }
  bool any_contains(const std::string& s) const {
    for (const auto& m : messages)
      if (m.find(s) != std::string::npos) return true;
    return false;
  }
  std::vector<std::string> messages;
  io::WarningHandler previous;
};

std::unique_ptr<VideoReader> open_fixture_av(const std::string& name, unsigned threads = 0) {
  av::ReaderOptions o;
  o.threads = threads;
  return open_av(av_fixture(name).string(), o);
}

// --- lossless encodes ----------------------------------------------------------

struct Lossless {
  const char* file;
  const char* pair;  // the raw fixture pair it encodes
  bool ref;
};
const Lossless kLossless[] = {
    {"c01_176x144_8b_420_ref.ffv1.mkv", "c01_176x144_8b_420", true},
    {"c01_176x144_8b_420_ref.aom.webm", "c01_176x144_8b_420", true},
    {"c01_176x144_8b_420_dist.x264.mp4", "c01_176x144_8b_420", false},
    {"c03_176x144_10b_420_ref.ffv1.mkv", "c03_176x144_10b_420", true},
    {"c03_176x144_10b_420_dist.x264.mp4", "c03_176x144_10b_420", false},
    {"c03_176x144_10b_420_dist.aom.ivf", "c03_176x144_10b_420", false},
};

TEST(AvLossless, DecodesToTheRawFixtureFrameForFrame) {
  for (const auto& l : kLossless) {
    const auto pair = fixture_pair(l.pair);
    ASSERT_TRUE(pair);
    auto raw = open_fixture(*pair, l.ref);
    auto av = open_fixture_av(l.file);
    EXPECT_EQ(av->info().format, raw->info().format) << l.file;
    const auto want = reader_md5s(*raw), got = reader_md5s(*av);
    EXPECT_EQ(got, want) << l.file;
    EXPECT_EQ(got.size(), pair->frames) << l.file;
    EXPECT_TRUE(av->info().conversion.empty()) << l.file << ": " << av->info().conversion;
  }
}

struct GoldenPair {
  const char* ref;
  const char* dist;
  const char* pair;
  const char* run;  // tests/golden/r/<pair>/<run>.json
  bool model;       // the default model (version=vmaf_v0.6.1) besides the features
  std::vector<std::string> features;
};

class AvGolden : public ::testing::TestWithParam<GoldenPair> {};

TEST_P(AvGolden, ScoresEqualTheRawInputGoldensBitForBit) {
  const GoldenPair& g = GetParam();
  auto ref = open_fixture_av(g.ref);
  auto dist = open_fixture_av(g.dist);
  std::vector<Model> models;
  if (g.model) models = load_models({parse_model_spec("version=vmaf_v0.6.1")}, {});
  std::vector<FeatureRequest> user;
  for (const auto& f : g.features) user.push_back(parse_feature_request(f));
  RunResult ours = run(*ref, *dist, model_feature_requests(models, std::move(user)), {});
  if (g.model) predict(models, ours.scores, ours.frames, 1);
  const auto golden = golden_dir() / "r" / g.pair / (std::string(g.run) + ".json");
  const GoldenComparison c = compare_with_golden(read_json(golden), ours, 1);
  EXPECT_GT(c.values, 0u);
  EXPECT_EQ(c.differing, 0u) << c.differing << " of " << c.values << " values differ from " << golden
                             << "; first: " << c.first_difference;
  std::printf("[ golden ] %s + %s vs %s/%s: %zu values, %zu differ\n", g.ref, g.dist, g.pair, g.run, c.values,
              c.differing);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, AvGolden,
    ::testing::Values(
        GoldenPair{"c01_176x144_8b_420_ref.ffv1.mkv", "c01_176x144_8b_420_dist.x264.mp4", "c01_176x144_8b_420",
                   "vmaf_v0.6.1_psnr", true, {"psnr"}},
        GoldenPair{"c01_176x144_8b_420_ref.aom.webm", "c01_176x144_8b_420_dist.x264.mp4", "c01_176x144_8b_420",
                   "vmaf_v0.6.1_psnr", true, {"psnr"}},
        GoldenPair{"c03_176x144_10b_420_ref.ffv1.mkv", "c03_176x144_10b_420_dist.x264.mp4", "c03_176x144_10b_420",
                   "vmaf_v0.6.1", true, {}},
        GoldenPair{"c03_176x144_10b_420_ref.ffv1.mkv", "c03_176x144_10b_420_dist.aom.ivf", "c03_176x144_10b_420",
                   "psnr", false, {"psnr"}}),
    [](const auto& i) {
      std::string n = std::string(i.param.ref).substr(0, 3) + "_" + std::string(i.param.ref).substr(19) + "_" +
                      std::string(i.param.dist).substr(19) + "_" + i.param.run;
      for (auto& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

// Frame and slice threads change nothing: the decoders are bit-exact.
TEST(AvLossless, DecoderThreadsGiveTheSameFrames) {
  for (const char* f : {"c01_176x144_8b_420_dist.x264.mp4", "lossy_176x144_8b.hevc.mkv", "lossy_176x144_8b.vp9.webm"}) {
    auto one = open_fixture_av(f, 1), many = open_fixture_av(f, 4);
    EXPECT_EQ(reader_md5s(*many), reader_md5s(*one)) << f;
  }
}

// --- lossy clips -----------------------------------------------------------------

const char* const kLossy[] = {"lossy_176x144_8b.h264.mp4", "lossy_176x144_8b.hevc.mkv", "lossy_176x144_8b.vp9.webm",
                              "lossy_176x144_8b.av1.ivf", "lossy_176x144_10b.hevc.mp4"};

TEST(AvLossy, FramesEqualTheFfmpegCliDecode) {
  for (const char* f : kLossy) {
    auto r = open_fixture_av(f);
    const auto got = reader_md5s(*r);
    const auto want = expected_md5s(f, f, "");
    EXPECT_EQ(got, want) << f << (have_ffmpeg_cli() ? " (ffmpeg CLI now)" : " (committed framemd5)");
    EXPECT_EQ(got.size(), std::string(f).find("10b") != std::string::npos ? 4u : 10u) << f;
  }
  if (!have_ffmpeg_cli()) std::printf("[ note ] no ffmpeg CLI: frames compared with the committed framemd5 files\n");
}

TEST(AvLossy, ReportsCodecContainerRateAndTimeBase) {
  auto r = open_fixture_av("lossy_176x144_8b.av1.ivf");
  EXPECT_EQ(r->info().container, "ivf");
  EXPECT_EQ(r->info().codec.rfind("av1", 0), 0u) << r->info().codec;  // "av1 (libdav1d)"
  EXPECT_EQ(r->info().fps_num, 25u);
  EXPECT_EQ(r->info().fps_den, 1u);
  auto m = open_fixture_av("lossy_176x144_8b.h264.mp4");
  EXPECT_EQ(m->info().codec, "h264");
  EXPECT_EQ(m->info().source_format, "yuv420p");
  EXPECT_EQ(m->info().time_base_den, 12800u);
  ASSERT_TRUE(m->info().frame_count_estimate);
  EXPECT_EQ(*m->info().frame_count_estimate, 10u);
  EXPECT_FALSE(m->info().frame_count);  // never claimed exact
  auto ten = open_fixture_av("lossy_176x144_10b.hevc.mp4");
  EXPECT_EQ(ten->info().format, (VideoFormat{176, 144, PixelFormat::yuv420, 10}));
}

// --- pixel formats -----------------------------------------------------------------

struct PixFmtCase {
  const char* file;
  const char* cli_args;  // the conversion the ffmpeg CLI makes for the expectation
  VideoFormat format;
  bool converted;        // through libswscale, with a warning
  ColorRange range;
};

TEST(AvPixelFormats, CopiedOrConvertedAsFfmpegConverts) {
  const PixFmtCase cases[] = {
      {"pf_64x48.nv12.nut", "-pix_fmt yuv420p", {64, 48, PixelFormat::yuv420, 8}, true, ColorRange::unknown},
      {"pf_64x48.yuv411p.nut", "-pix_fmt yuv422p", {64, 48, PixelFormat::yuv422, 8}, true, ColorRange::unknown},
      {"pf_64x48.bgr0.mkv", "-pix_fmt yuv444p", {64, 48, PixelFormat::yuv444, 8}, true, ColorRange::limited},
      {"pf_64x48.yuva420p.mkv", "-pix_fmt yuv420p", {64, 48, PixelFormat::yuv420, 8}, false, ColorRange::limited},
      {"pf_64x48.mjpeg.mkv", "", {64, 48, PixelFormat::yuv420, 8}, false, ColorRange::full},
  };
  for (const auto& c : cases) {
    Warnings w;
    auto r = open_fixture_av(c.file);
    EXPECT_EQ(r->info().format, c.format) << c.file;
    EXPECT_EQ(r->info().range, c.range) << c.file << ": " << color_range_name(r->info().range);
    std::string skip;
    const auto want = expected_md5s(c.file, c.file, c.cli_args, &skip);
    const auto got = reader_md5s(*r);
    if (skip.empty()) EXPECT_EQ(got, want) << c.file;
    else std::printf("[ note ] %s\n", skip.c_str());
    EXPECT_EQ(got.size(), 2u);
    if (c.converted) {
      ASSERT_EQ(w.messages.size(), 1u) << c.file;
      EXPECT_NE(w.messages[0].find(std::string(c.file) + ": " + r->info().source_format + " converted to"),
                std::string::npos)
          << w.messages[0];
      EXPECT_NE(w.messages[0].find("libswscale"), std::string::npos) << w.messages[0];
    }
  }
}

// yuvj*: the samples as decoded (what `ffmpeg -f yuv4mpegpipe` writes too,
// C420jpeg XCOLORRANGE=FULL), reported full range with a warning; libswscale
// is not involved (it would compress the range).
TEST(AvPixelFormats, YuvjIsCopiedAndReportedFullRange) {
  Warnings w;
  auto r = open_fixture_av("pf_64x48.mjpeg.mkv");
  EXPECT_EQ(r->info().source_format, "yuvj420p");
  EXPECT_EQ(r->info().range, ColorRange::full);
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_EQ(w.messages[0], av_fixture("pf_64x48.mjpeg.mkv").string() +
                               ": yuvj420p: full-range samples scored as decoded (no range conversion)");
  EXPECT_EQ(r->info().conversion.find("libswscale"), std::string::npos) << r->info().conversion;
}

TEST(AvPixelFormats, GrayKeepsLumaAndSetsNeutralChroma) {
  Warnings w;
  auto r = open_fixture_av("pf_64x48.gray10.mkv");
  EXPECT_EQ(r->info().format, (VideoFormat{64, 48, PixelFormat::yuv420, 10}));
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_NE(w.messages[0].find("chroma set to 512"), std::string::npos) << w.messages[0];
  FrameBuffer fb(r->info().format);
  std::vector<std::string> luma;
  while (r->read_frame(fb)) {
    luma.push_back(frame_md5(fb, 1));
    for (unsigned p = 1; p < 3; ++p)
      for (unsigned y = 0; y < fb.format().plane_height(p); ++y)
        for (unsigned x = 0; x < fb.format().plane_width(p); ++x)
          ASSERT_EQ(reinterpret_cast<const std::uint16_t*>(fb.plane(p) + y * fb.stride(p))[x], 512);
  }
  EXPECT_EQ(luma, expected_md5s("pf_64x48.gray10.mkv", "pf_64x48.gray10.mkv", ""));
}

TEST(AvPixelFormats, UnsupportedFormatIsOneLineNamingIt) {
  const std::string path = av_fixture("pf_64x48.bgr4.nut").string();
  EXPECT_EQ(error_of([&] { open_av(path, {}); }),
            path + ": pixel format bgr4 is not supported (libswscale " + this_libswscale() + " cannot convert it)");
}

// --- scaling -------------------------------------------------------------------------

struct ScaleCase {
  const char* name;  // the .framemd5 expectation
  const char* input;
  const char* vf;    // FFmpeg's filter for the expectation
  av::ScaleStep step;
};

TEST(AvScale, EqualsFfmpegsScaleFilterWithTheSameFlags) {
  using av::ScaleAlgorithm;
  const std::pair<PixelFormat, unsigned> p10{PixelFormat::yuv420, 10};
  const ScaleCase cases[] = {
      {"scale_c01_352x288_bicubic", "c01_176x144_8b_420_dist.x264.mp4",
       "scale=352:288:flags=bicubic+bitexact+accurate_rnd", {std::nullopt, 352, 288, ScaleAlgorithm::bicubic}},
      {"scale_c01_320x-1_lanczos", "c01_176x144_8b_420_dist.x264.mp4",
       "scale=320:-1:flags=lanczos+bitexact+accurate_rnd", {std::nullopt, 320, -1, ScaleAlgorithm::lanczos}},
      {"scale_c01_100x80_bilinear", "c01_176x144_8b_420_dist.x264.mp4",
       "scale=100:80:flags=bilinear+bitexact+accurate_rnd", {std::nullopt, 100, 80, ScaleAlgorithm::bilinear}},
      {"scale_c03_352x-1_bicubic", "c03_176x144_10b_420_dist.x264.mp4",
       "scale=352:-1:flags=bicubic+bitexact+accurate_rnd", {std::nullopt, 352, -1, ScaleAlgorithm::bicubic}},
      // ab-av1's auto for a 176x144 yuv420p10le encode, on the 8-bit reference.
      {"scale_c01_auto_10b", "c01_176x144_8b_420_ref.ffv1.mkv",
       "format=yuv420p10le,scale=-1:1080:flags=bicubic+bitexact+accurate_rnd", {p10, -1, 1080, ScaleAlgorithm::bicubic}},
  };
  for (const auto& c : cases) {
    auto r = av::scale_reader(open_fixture_av(c.input), c.step);
    std::string skip;
    const auto want = expected_md5s(c.name, c.input, fmt::format("-vf {}", c.vf), &skip);
    if (!skip.empty()) {
      std::printf("[ note ] %s\n", skip.c_str());
      continue;
    }
    const auto got = reader_md5s(*r);
    EXPECT_EQ(got, want) << c.name << ": " << r->info().scaling;
    EXPECT_FALSE(r->info().scaling.empty());
  }
}

TEST(AvScale, SizesFollowFfmpegsMinusOneRule) {
  auto step = [](int w, int h) {
    av::ScaleStep s;
    s.width = w;
    s.height = h;
    return s;
  };
  EXPECT_EQ(av::scaled_size(176, 144, step(320, -1)), std::pair(320u, 262u));  // 261.8 rounds up
  EXPECT_EQ(av::scaled_size(176, 144, step(-1, 1080)), std::pair(1320u, 1080u));
  EXPECT_EQ(av::scaled_size(1280, 720, step(1920, -1)), std::pair(1920u, 1080u));
  EXPECT_EQ(av::scaled_size(175, 97, step(-2, 100)), std::pair(180u, 100u));  // 180.4 -> 90 * 2
  EXPECT_EQ(av::scaled_size(640, 360, step(-1, -1)), std::pair(640u, 360u));
  // -1 that works out beyond the largest dimension (65536).
  EXPECT_NE(error_of([&] { av::scaled_size(65536, 1, step(-1, 2)); }), "no error");
  EXPECT_EQ(av::scaled_size(1, 65536, step(-1, 65536)), std::pair(1u, 65536u));
}

TEST(AvScale, ParsesAndRefusesValues) {
  const auto a = av::parse_scale("1920x1080");
  EXPECT_EQ(a.width, 1920);
  EXPECT_EQ(a.height, 1080);
  EXPECT_EQ(a.algorithm, av::ScaleAlgorithm::bicubic);
  const auto b = av::parse_scale("1280x-1:lanczos");
  EXPECT_EQ(b.height, -1);
  EXPECT_EQ(b.algorithm, av::ScaleAlgorithm::lanczos);
  EXPECT_TRUE(av::parse_scale("auto").automatic);
  for (const char* bad : {"", "1920", "1920x", "x1080", "0x1080", "1920x1080:nearest", "auto:lanczos", "axb",
                          "1920x1080x3", "99999x10"})
    EXPECT_EQ(error_of([&] { av::parse_scale(bad); }).rfind(std::string("--scale ") + bad + ": expected WxH", 0), 0u)
        << bad;
}

// ab-av1's own tests (src/command/args/vmaf.rs: vmaf_lavfi_small_width_upscale_to_1k,
// vmaf_lavfi_4k, vmaf_lavfi_3k_upscale_to_4k, the v1.0.16 cases) and its
// thresholds, decided by the distorted size.
TEST(AvScale, AutoIsAbAv1sRule) {
  using P = std::pair<int, int>;
  const auto check = [](unsigned w, unsigned h, std::vector<std::string> models, std::optional<P> size,
                        const std::string& model) {
    const av::AutoScale a = av::ab_av1_auto_scale(w, h, models);
    EXPECT_EQ(a.size, size) << w << "x" << h;
    EXPECT_EQ(a.default_model, model) << w << "x" << h;
  };
  check(1280, 720, {}, P{1920, -1}, "");
  check(3840, 2160, {}, std::nullopt, "vmaf_4k_v0.6.1");
  check(3008, 1692, {}, P{3840, -1}, "vmaf_4k_v0.6.1");
  check(1920, 1080, {}, std::nullopt, "");
  check(1727, 971, {}, P{1920, -1}, "");
  check(1728, 700, {}, std::nullopt, "");      // not below 1728 wide
  check(176, 144, {}, P{-1, 1080}, "");         // taller than 16:9: scale the height
  check(2560, 1440, {}, std::nullopt, "");     // 4K model only above 2560x1440
  check(2561, 1440, {}, std::nullopt, "");
  check(3456, 1944, {}, std::nullopt, "vmaf_4k_v0.6.1");
  for (const char* m : {"version=vmaf_v1.0.16_3d0h", "version=vmaf_v1.0.16_hfr_5d0h", "version=vmaf_v0.6.1"})
    check(1280, 720, {m}, P{1920, -1}, "");
  for (const char* m : {"version=vmaf_v1.0.16_1d5h_2160", "version=vmaf_v1.0.16_hfr_3d0h_2160",
                        "version=vmaf_4k_v0.6.1"})
    check(3008, 1692, {m}, P{3840, -1}, "");
  check(1280, 720, {"version=vmaf_4k_v0.6.1"}, P{3840, -1}, "");  // the 4K model scales to 2160p
  check(1280, 720, {"path=my_model.json"}, std::nullopt, "");      // a custom model: no scaling
  check(1280, 720, {"version=vmaf_v0.6.1", "version=vmaf_v0.6.1neg"}, std::nullopt, "");  // two: custom
  check(1280, 720, {"version=vmaf_v0.6.1:name=x"}, std::nullopt, "");  // ab-av1 matches the end of the argument
}

// --- which reader ---------------------------------------------------------------------

TEST(AvOpenInput, TodaysReadersKeepTheirInputs) {
  const auto y4m = fixtures_dir() / "c01_176x144_8b_420_ref.y4m";
  const auto yuv = fixtures_dir() / "c01_176x144_8b_420_ref.yuv";
  io::RawOptions raw;
  raw.width = 176;
  raw.height = 144;
  raw.pix_fmt = PixelFormat::yuv420;
  raw.bitdepth = 8;
  EXPECT_EQ(av::open_input(y4m.string(), {}, {})->info().container, "y4m");
  EXPECT_EQ(av::open_input(yuv.string(), raw, {})->info().container, "yuv");
  // A .yuv name never goes to FFmpeg, whatever it holds.
  const auto mkv_named_yuv = write_temp("really_mkv.yuv", slurp_file(av_fixture("lossy_176x144_8b.hevc.mkv")));
  EXPECT_NE(error_of([&] { av::open_input(mkv_named_yuv.string(), {}, {}); }).find("raw YUV input needs"),
            std::string::npos);
  // Content decides for other names.
  const auto mkv_named_bin = write_temp("clip.bin", slurp_file(av_fixture("lossy_176x144_8b.hevc.mkv")));
  EXPECT_EQ(av::open_input(mkv_named_bin.string(), {}, {})->info().codec, "hevc");
  const auto y4m_named_mp4 = write_temp("clip_y4m.mp4", slurp_file(y4m));
  EXPECT_EQ(av::open_input(y4m_named_mp4.string(), {}, {})->info().container, "y4m");
  // Raw YUV under another name, with the raw options: raw, as today.
  const auto raw_bin = write_temp("frames.raw", slurp_file(yuv));
  EXPECT_EQ(av::open_input(raw_bin.string(), raw, {})->info().container, "yuv");
  // A compressed file with raw options (given for the other input): FFmpeg, with a warning.
  Warnings w;
  EXPECT_EQ(av::open_input(av_fixture("lossy_176x144_8b.vp9.webm").string(), raw, {})->info().codec, "vp9");
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_NE(w.messages[0].find("ignoring -w/-h/-p/-b"), std::string::npos);
}

TEST(AvOpenInput, StreamSelection) {
  const std::string mkv = av_fixture("lossy_176x144_8b.hevc.mkv").string();
  av::ReaderOptions o;
  o.stream = 0;
  EXPECT_EQ(open_av(mkv, o)->info().codec, "hevc");
  o.stream = 3;
  EXPECT_EQ(error_of([&] { open_av(mkv, o); }), mkv + ": --stream 3: no such stream (streams: 0 video hevc)");
  EXPECT_EQ(error_of([&] { av::open_input(fixtures_dir().string() + "/c01_176x144_8b_420_ref.y4m", {}, {}, true); }),
            fixtures_dir().string() + "/c01_176x144_8b_420_ref.y4m: --stream applies to inputs read through FFmpeg, "
                                      "not to y4m or raw YUV");
}

// The first video stream, also when it is not stream 0; --stream N picks N.
TEST(AvOpenInput, FirstVideoStreamIsChosen) {
  const std::string mkv = av_fixture("audio_video.mkv").string();  // 0: audio, 1: the h264 clip
  const auto want = expected_md5s("lossy_176x144_8b.h264.mp4", "lossy_176x144_8b.h264.mp4", "");
  auto first = open_av(mkv, {});
  EXPECT_EQ(reader_md5s(*first), want);
  av::ReaderOptions o;
  o.stream = 1;
  auto one = open_av(mkv, o);
  EXPECT_EQ(reader_md5s(*one), want);
  o.stream = 0;
  EXPECT_EQ(error_of([&] { open_av(mkv, o); }),
            mkv + ": --stream 0 is audio, not video (streams: 0 audio pcm_s16le, 1 video h264)");
}

// --- bad input --------------------------------------------------------------------------

std::string wav_file() {
  // A valid PCM WAV: 16-bit mono, 8 kHz, 800 samples of silence.
  std::string w = "RIFF";
  auto le32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) w += static_cast<char>((v >> (8 * i)) & 0xff); };
  auto le16 = [&](std::uint16_t v) { w += static_cast<char>(v & 0xff); w += static_cast<char>(v >> 8); };
  le32(36 + 1600);
  w += "WAVEfmt ";
  le32(16);
  le16(1);
  le16(1);
  le32(8000);
  le32(16000);
  le16(2);
  le16(16);
  w += "data";
  le32(1600);
  w += std::string(1600, '\0');
  return w;
}

TEST(AvBadInput, EachIsOneLineNamingTheFile) {
  const auto text = write_temp("notes.mp4", "these are not video frames\n");
  EXPECT_EQ(error_of([&] { av::open_input(text.string(), {}, {}); }).rfind(text.string() + ": not a video file FFmpeg can read (", 0), 0u);
  const auto wav = write_temp("sound.wav", wav_file());
  EXPECT_EQ(error_of([&] { av::open_input(wav.string(), {}, {}); }), wav.string() + ": no video stream (streams: 0 audio pcm_s16le)");
  // Cut inside the video: refused when the end is reached, with the count decoded.
  const auto cut = truncated_copy("c01_176x144_8b_420_ref.ffv1.mkv", 0.5);
  auto r = av::open_input(cut.string(), {}, {});
  const std::string e = error_of([&] { reader_md5s(*r); });
  EXPECT_EQ(e.rfind(cut.string() + ": the file ends inside the video after ", 0), 0u) << e;
  EXPECT_NE(e.find("--frame_cnt"), std::string::npos) << e;
  // Damaged packets (a cut ivf: its last packet is short) are refused too.
  const auto ivf = truncated_copy("lossy_176x144_8b.av1.ivf", 0.9);
  const std::string e2 = error_of([&] { auto r2 = av::open_input(ivf.string(), {}, {}); reader_md5s(*r2); });
  EXPECT_EQ(e2.rfind(ivf.string() + ": packet ", 0), 0u) << e2;
  EXPECT_NE(e2.find("is damaged"), std::string::npos) << e2;
  // A file cut before any frame.
  const auto head = truncated_copy("lossy_176x144_8b.vp9.webm", 0.3);
  const std::string e3 = error_of([&] { av::open_input(head.string(), {}, {}); });
  EXPECT_EQ(e3.rfind(head.string() + ": ", 0), 0u) << e3;
  EXPECT_NE(e3.find("truncated"), std::string::npos) << e3;
  for (const auto* m : {&e, &e2, &e3}) EXPECT_EQ(m->find('\n'), std::string::npos);
}

// A cut mp4 (its index is at the end, as x264's mp4 writer puts it): FFmpeg's own message.
TEST(AvBadInput, CutMp4DataIsRefused) {
  const std::string all = slurp_file(av_fixture("c01_176x144_8b_420_dist.x264.mp4"));
  const auto cut = write_temp("cut.mp4", all.substr(0, all.size() / 2));
  EXPECT_EQ(error_of([&] { av::open_input(cut.string(), {}, {}); }),
            cut.string() + ": not a video file FFmpeg can read (Invalid data found when processing input: moov atom not found)");
}

// --- timing ---------------------------------------------------------------------------

TEST(AvTiming, TimestampsAndVariableFrameRate) {
  Warnings w;
  auto r = open_fixture_av("vfr.mkv");
  FrameBuffer fb(r->info().format);
  std::vector<double> t;
  while (r->read_frame(fb)) t.push_back(*fb.timestamp());
  ASSERT_EQ(t.size(), 10u);
  EXPECT_DOUBLE_EQ(t[4], 0.16);
  EXPECT_DOUBLE_EQ(t[5], 0.24);  // one frame late
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_NE(w.messages[0].find("variable frame rate: frame 5 is shown 80.000 ms after frame 4, not 40.000 ms"),
            std::string::npos)
      << w.messages[0];
}

}  // namespace
}  // namespace exactvmaf::test
