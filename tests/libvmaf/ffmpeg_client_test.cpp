// A real libvmaf client: FFmpeg (Debian's 5.1 source, built by
// scripts/ffmpeg-client.sh against libvmaf.pc) runs its libvmaf filter on the
// fixtures with our libvmaf.so.3. Its log must be byte-identical (apart from
// fps) to the exactvmaf CLI's report of the same pair, and its numbers (with
// EXACTVMAF_PRECISION=max) equal the R goldens: both paths share the report
// writer, so the goldens are the independent check.
//
// FFmpeg's filter takes the distorted video first, the reference second.
// EXACTVMAF_FFMPEG names another ffmpeg binary, EXACTVMAF_CLI another CLI,
// EXACTVMAF_LIBVMAF_DIR another folder with libvmaf.so.3 (put first on
// LD_LIBRARY_PATH), EXACTVMAF_TEST_SCRATCH another folder for the runs' logs
// (a GPU machine runs the bundled binary); EXACTVMAF_FFMPEG_TEST_BACKEND
// (cuda or auto) runs FFmpeg's side with that backend (the CLI stays on the
// CPU, so the byte comparison is then CUDA against CPU).
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Output {
  int status = -1;
  std::string text;  // stdout and stderr
};

Output sh(const std::string& command, const fs::path& capture) {
  Output out;
  const int rc = std::system((command + " > " + quote(capture.string()) + " 2>&1").c_str());
  out.status = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  out.text = read_text(capture);
  return out;
}

fs::path ffmpeg_binary() {
  if (const char* e = std::getenv("EXACTVMAF_FFMPEG"); e && *e) return e;
  return EXACTVMAF_FFMPEG_DEFAULT;
}

// The backend FFmpeg's runs ask for ("" = the library's default, the CPU).
std::string test_backend() {
  const char* e = std::getenv("EXACTVMAF_FFMPEG_TEST_BACKEND");
  return e ? e : "";
}

// Where the runs' logs go ($EXACTVMAF_TEST_SCRATCH or the build's folder).
fs::path scratch_root() {
  const char* e = std::getenv("EXACTVMAF_TEST_SCRATCH");
  return e && *e ? fs::path(e) : fs::path(EXACTVMAF_TEST_SCRATCH);
}

fs::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = scratch_root() / (std::string(info->test_suite_name()) + "." + info->name());
  fs::create_directories(d);
  return d;
}

std::string raw_pix_fmt(const FixturePair& p) {
  const char* base = p.raw.pix_fmt == PixelFormat::yuv444 ? "yuv444p" : p.raw.pix_fmt == PixelFormat::yuv422 ? "yuv422p" : "yuv420p";
  return p.raw.bitdepth == 8 ? base : fmt::format("{}{}le", base, p.raw.bitdepth);
}

std::string ffmpeg_input(const FixturePair& p, const fs::path& file) {
  if (p.container == "y4m") return "-i " + quote(file.string());
  return fmt::format("-f rawvideo -pix_fmt {} -s {}x{} -i {}", raw_pix_fmt(p), p.raw.width, p.raw.height,
                     quote(file.string()));
}

std::string cli_inputs(const FixturePair& p, const fs::path& ref, const fs::path& dist) {
  std::string s = "-r " + quote(ref.string()) + " -d " + quote(dist.string());
  if (p.container != "y4m")
    s += fmt::format(" -w {} -h {} -p {} -b {}", p.raw.width, p.raw.height, pixel_format_name(p.raw.pix_fmt),
                     p.raw.bitdepth);
  return s;
}

FixturePair pair(const std::string& name) {
  auto p = fixture_pair(name);
  if (!p) ADD_FAILURE() << "no fixture pair " << name;
  return p.value_or(FixturePair{});
}

// One run of FFmpeg's libvmaf filter.
struct FilterRun {
  std::string log;     // the log file
  std::string stderr_text;
  int status = -1;
};

struct FilterCase {
  FixturePair pair;
  std::string options;      // after log_fmt and log_path, e.g. "model=version=vmaf_v0.6.1neg"
  std::string log_fmt = "json";
  std::string precision;    // EXACTVMAF_PRECISION
  bool cuda_capable = true; // every feature has a CUDA version
  fs::path ref, dist;       // default: the pair's files
  std::string graph;        // the whole -lavfi value, LOG replaced by the log options (default: the plain filter)
  std::string stdin_file;   // fed to ffmpeg's standard input
};

FilterCase filter_case(const std::string& pair_name, std::string options = "") {
  FilterCase c;
  c.pair = pair(pair_name);
  c.options = std::move(options);
  return c;
}

FilterRun run_filter(const FilterCase& c, const std::string& tag) {
  const fs::path dir = scratch();
  const fs::path log = dir / (tag + "." + c.log_fmt);
  fs::remove(log);
  const fs::path ref = c.ref.empty() ? c.pair.ref : c.ref, dist = c.dist.empty() ? c.pair.dist : c.dist;
  std::string libvmaf = "libvmaf=log_fmt=" + c.log_fmt + ":log_path=" + log.string();
  if (!c.options.empty()) libvmaf += ":" + c.options;
  std::string graph = "[0:v][1:v]" + libvmaf;
  if (!c.graph.empty()) graph = std::regex_replace(c.graph, std::regex("LIBVMAF"), libvmaf);
  const char* lib_dir = std::getenv("EXACTVMAF_LIBVMAF_DIR");
  std::string env = "LD_LIBRARY_PATH=" + quote(lib_dir && *lib_dir ? lib_dir : EXACTVMAF_LIBVMAF_DIR) + ":\"$LD_LIBRARY_PATH\"";
  if (!c.precision.empty()) env += " EXACTVMAF_PRECISION=" + c.precision;
  const std::string backend = test_backend();
  if (!backend.empty()) env += " EXACTVMAF_BACKEND=" + (c.cuda_capable ? backend : std::string("auto"));
  const std::string ref_input = c.stdin_file.empty() ? ffmpeg_input(c.pair, ref) : "-f yuv4mpegpipe -i -";
  std::string cmd = fmt::format("env {} {} -nostdin -hide_banner -nostats {} {} -lavfi {} -f null -", env,
                                quote(ffmpeg_binary().string()), ffmpeg_input(c.pair, dist), ref_input, quote(graph));
  if (!c.stdin_file.empty()) cmd = fmt::format("{} < {}", cmd, quote(c.stdin_file));
  // -nostdin keeps ffmpeg off the terminal; with a file on stdin it must read it.
  if (!c.stdin_file.empty()) cmd = std::regex_replace(cmd, std::regex(" -nostdin"), "");
  const Output o = sh(cmd, dir / (tag + ".stderr"));
  FilterRun r;
  r.status = o.status;
  r.stderr_text = o.text;
  if (fs::exists(log)) r.log = read_text(log);
  return r;
}

// The CLI's report of the same pair (on the CPU).
std::string run_cli(const FilterCase& c, const std::string& cli_args, const std::string& tag) {
  const fs::path dir = scratch();
  const fs::path out = dir / (tag + ".cli." + c.log_fmt);
  const fs::path ref = c.ref.empty() ? c.pair.ref : c.ref, dist = c.dist.empty() ? c.pair.dist : c.dist;
  std::string args = cli_args;
  if (!c.precision.empty()) args += " --precision " + c.precision;
  const char* cli_env = std::getenv("EXACTVMAF_CLI");
  const std::string cli = cli_env && *cli_env ? cli_env : EXACTVMAF_CLI;
  const Output o = sh(fmt::format("{} -q {} {} --{} -o {}", quote(cli), cli_inputs(c.pair, ref, dist), args,
                                  c.log_fmt, quote(out.string())),
                      dir / (tag + ".cli.stderr"));
  EXPECT_EQ(o.status, 0) << o.text;
  return read_text(out);
}

// The report with its fps value (run-time noise) replaced.
std::string without_fps(const std::string& report) {
  static const std::regex json_fps(R"(\n  "fps": [0-9.]+,\n)"), xml_fps(R"(<fyi fps="[0-9.]+" />)");
  return std::regex_replace(std::regex_replace(report, json_fps, "\n  \"fps\": FPS,\n"), xml_fps, "<fyi fps=\"FPS\" />");
}

// The first line where two reports differ, or "".
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string la, lb;
  for (unsigned n = 1;; ++n) {
    const bool ga = static_cast<bool>(std::getline(x, la)), gb = static_cast<bool>(std::getline(y, lb));
    if (!ga && !gb) return "";
    if (!ga || !gb || la != lb)
      return fmt::format("line {}: ffmpeg '{}' / cli '{}'", n, ga ? la : "<end>", gb ? lb : "<end>");
  }
}

// FFmpeg's log equals the CLI's report byte for byte (fps aside), at
// libvmaf's number format and at full precision.
void expect_same_as_cli(FilterCase c, const std::string& cli_args) {
  for (const std::string precision : {"", "max"}) {
    c.precision = precision;
    const std::string tag = precision.empty() ? "legacy" : precision;
    const FilterRun f = run_filter(c, tag);
    ASSERT_EQ(f.status, 0) << f.stderr_text;
    ASSERT_FALSE(f.log.empty()) << "no log written\n" << f.stderr_text;
    const std::string cli = run_cli(c, cli_args, tag);
    const std::string diff = first_difference(without_fps(f.log), without_fps(cli));
    EXPECT_TRUE(diff.empty()) << c.pair.name << " " << c.options << " (" << c.log_fmt << ", " << tag << "): " << diff;
  }
}

// Every value of every golden (frames, pooled, aggregate) is in FFmpeg's
// full-precision JSON log with the same bits; frames as the golden's.
void expect_goldens(FilterCase c, const std::vector<std::string>& goldens, std::uint64_t frames) {
  c.precision = "max";
  c.log_fmt = "json";
  const FilterRun f = run_filter(c, "golden");
  ASSERT_EQ(f.status, 0) << f.stderr_text;
  const json ours = json::parse(f.log);
  EXPECT_EQ(ours.at("frames").size(), frames) << "frames scored";
  std::size_t compared = 0;
  for (const auto& g : goldens) {
    const fs::path file = golden_dir() / "r" / c.pair.name / (g + ".json");
    ASSERT_TRUE(fs::exists(file)) << file;
    const json golden = read_json(file);
    for (const auto& gf : golden.at("frames")) {
      const auto& of = ours.at("frames");
      const auto it = std::find_if(of.begin(), of.end(), [&](const json& x) { return x.at("frameNum") == gf.at("frameNum"); });
      ASSERT_NE(it, of.end()) << g << ": no frame " << gf.at("frameNum");
      for (const auto& [name, v] : gf.at("metrics").items()) {
        ASSERT_TRUE(it->at("metrics").contains(name)) << g << ": frame " << gf.at("frameNum") << " lacks " << name;
        const auto gv = json_number(v), ov = json_number(it->at("metrics").at(name));
        EXPECT_TRUE(gv && ov && same_bits(*gv, *ov))
            << g << " frame " << gf.at("frameNum") << " " << name << ": golden " << v << " ffmpeg " << it->at("metrics").at(name);
        ++compared;
      }
    }
    for (const auto& [name, pools] : golden.at("pooled_metrics").items()) {
      ASSERT_TRUE(ours.at("pooled_metrics").contains(name)) << g << ": no pooled " << name;
      for (const auto& [m, v] : pools.items()) {
        const auto gv = json_number(v), ov = json_number(ours.at("pooled_metrics").at(name).at(m));
        EXPECT_TRUE(gv && ov && same_bits(*gv, *ov)) << g << " pooled " << name << " " << m;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0u);
}

// FFmpeg's "VMAF score: %f" lines (what ab-av1 and others parse).
std::vector<std::string> score_lines(const std::string& stderr_text) {
  std::vector<std::string> out;
  static const std::regex line(R"(VMAF score: ([0-9.]+))");
  for (auto it = std::sregex_iterator(stderr_text.begin(), stderr_text.end(), line); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

std::string printf_f(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

double golden_pooled_mean(const std::string& pair_name, const std::string& run, const std::string& metric) {
  return read_json(golden_dir() / "r" / pair_name / (run + ".json")).at("pooled_metrics").at(metric).at("mean");
}

int ffmpeg_major() {
  const fs::path dir = scratch_root();
  fs::create_directories(dir);
  const Output o = sh(quote(ffmpeg_binary().string()) + " -version", dir / "version.txt");
  std::smatch m;
  if (std::regex_search(o.text, m, std::regex(R"(ffmpeg version n?([0-9]+)\.)"))) return std::stoi(m[1]);
  return 0;
}

class FfmpegClient : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(ffmpeg_binary())) << ffmpeg_binary() << " not found (scripts/ffmpeg-client.sh builds it)";
  }
};

TEST_F(FfmpegClient, DefaultModelMatchesTheCliAndTheGoldens) {
  FilterCase c = filter_case("c01_176x144_8b_420_y4m");
  expect_same_as_cli(c, "");
  expect_goldens(c, {"vmaf_v0.6.1"}, 10);
  const FilterRun f = run_filter(c, "score");
  EXPECT_EQ(score_lines(f.stderr_text),
            std::vector<std::string>{printf_f(golden_pooled_mean(c.pair.name, "vmaf_v0.6.1", "vmaf"))});
}

TEST_F(FfmpegClient, NegModel) {
  FilterCase c = filter_case("c01_176x144_8b_420_y4m", "model=version=vmaf_v0.6.1neg");
  expect_same_as_cli(c, "-m version=vmaf_v0.6.1neg");
  expect_goldens(c, {"vmaf_v0.6.1neg"}, 10);
}

TEST_F(FfmpegClient, TwoModelsAtOnce) {
  // Two escape levels: the filtergraph's, then the filter options' (as in
  // FFmpeg's documentation of the libvmaf filter).
  FilterCase c = filter_case("c01_176x144_8b_420",
                             "model=version=vmaf_v0.6.1\\\\:name=vmaf|version=vmaf_v0.6.1neg\\\\:name=vmaf_neg");
  expect_same_as_cli(c, "-m version=vmaf_v0.6.1:name=vmaf -m version=vmaf_v0.6.1neg:name=vmaf_neg");
  expect_goldens(c, {"vmaf_two_models"}, 10);
  const FilterRun f = run_filter(c, "score");
  EXPECT_EQ(score_lines(f.stderr_text),
            (std::vector<std::string>{printf_f(golden_pooled_mean(c.pair.name, "vmaf_two_models", "vmaf")),
                                      printf_f(golden_pooled_mean(c.pair.name, "vmaf_two_models", "vmaf_neg"))}));
}

TEST_F(FfmpegClient, ExtraFeatures) {
  FilterCase c = filter_case("c01_176x144_8b_420_y4m", "feature=name=psnr|name=float_adm");
  c.cuda_capable = false;  // psnr runs on the CPU
  expect_same_as_cli(c, "--feature psnr --feature float_adm");
  expect_goldens(c, {"vmaf_v0.6.1", "psnr", "float_adm"}, 10);
}

TEST_F(FfmpegClient, Threads) {
  FilterCase c = filter_case("c01_176x144_8b_420_y4m", "n_threads=2");
  expect_same_as_cli(c, "--threads 2");
  expect_goldens(c, {"vmaf_v0.6.1"}, 10);
}

TEST_F(FfmpegClient, Subsample) {
  FilterCase c = filter_case("c01_176x144_8b_420", "n_subsample=2");
  expect_same_as_cli(c, "--subsample 2");
  expect_goldens(c, {"vmaf_v0.6.1_subsample2"}, 5);
  // Every third frame: the frames are the full run's (R golden); the pooled
  // mean is their mean in frame order.
  c.options = "n_subsample=3";
  expect_same_as_cli(c, "--subsample 3");
  c.precision = "max";
  const FilterRun f = run_filter(c, "sub3");
  ASSERT_EQ(f.status, 0) << f.stderr_text;
  const json ours = json::parse(f.log), full = read_json(golden_dir() / "r" / c.pair.name / "vmaf_v0.6.1.json");
  ASSERT_EQ(ours.at("frames").size(), 4u);
  double sum = 0;
  for (const auto& frame : ours.at("frames")) {
    const unsigned n = frame.at("frameNum");
    EXPECT_EQ(n % 3, 0u);
    for (const auto& [name, v] : full.at("frames").at(n).at("metrics").items())
      EXPECT_TRUE(same_bits(v.get<double>(), frame.at("metrics").at(name).get<double>())) << "frame " << n << " " << name;
    sum += full.at("frames").at(n).at("metrics").at("vmaf").get<double>();
  }
  EXPECT_TRUE(same_bits(ours.at("pooled_metrics").at("vmaf").at("mean").get<double>(), sum / 4));
}

TEST_F(FfmpegClient, XmlCsvAndSubtitleLogs) {
  for (const std::string f : {"xml", "csv", "sub"}) {
    FilterCase c = filter_case("c01_176x144_8b_420_y4m");
    c.log_fmt = f;
    expect_same_as_cli(c, "");
  }
}

TEST_F(FfmpegClient, EightBitChromaFormats) {
  for (const std::string name : {"c05_176x144_8b_422", "c06_176x144_8b_444"}) {
    FilterCase c = filter_case(name);
    expect_same_as_cli(c, "");
    expect_goldens(c, {"vmaf_v0.6.1"}, c.pair.frames);
  }
}

// FFmpeg 5.1's filter copies only w bytes of each row into the picture, half
// a row of >8-bit samples (Netflix/vmaf#1093, fixed in later FFmpeg): with
// any libvmaf its 10-bit scores are those of pictures whose right half is
// zero. Ours must give exactly that: the CLI on such pictures.
fs::path half_rows(const FixturePair& p, const fs::path& file, const fs::path& out) {
  const VideoFormat f{p.raw.width, p.raw.height, p.raw.pix_fmt, p.raw.bitdepth};
  std::string data = read_text(file);
  std::size_t at = 0;
  while (at + f.packed_frame_bytes() <= data.size()) {
    for (unsigned plane = 0; plane < f.planes(); ++plane) {
      const std::size_t row = std::size_t{f.plane_width(plane)} * 2;
      for (unsigned y = 0; y < f.plane_height(plane); ++y, at += row)
        for (std::size_t x = f.picture_width(plane); x < row; ++x) data[at + x] = 0;
    }
  }
  std::ofstream(out, std::ios::binary) << data;
  return out;
}

TEST_F(FfmpegClient, TenBitInputs) {
  const bool copies_half_rows = ffmpeg_major() < 6;
  for (const std::string name : {"c03_176x144_10b_420", "c08_176x144_10b_422"}) {
    FilterCase c = filter_case(name);
    if (!copies_half_rows) {
      expect_same_as_cli(c, "");
      continue;
    }
    // FFmpeg reads the real files; the CLI the pictures FFmpeg 5.1 hands over.
    for (const std::string precision : {"", "max"}) {
      c.precision = precision;
      const FilterRun f = run_filter(c, "10bit" + precision);
      ASSERT_EQ(f.status, 0) << f.stderr_text;
      FilterCase as_given = c;
      as_given.ref = half_rows(c.pair, c.pair.ref, scratch() / "ref_half.yuv");
      as_given.dist = half_rows(c.pair, c.pair.dist, scratch() / "dist_half.yuv");
      const std::string diff = first_difference(without_fps(f.log), without_fps(run_cli(as_given, "", "10bit" + precision)));
      EXPECT_TRUE(diff.empty()) << name << ": " << diff;
    }
  }
}

TEST_F(FfmpegClient, DeprecatedOptions) {
  // psnr=1: psnr without chroma, registered before the model's features.
  FilterCase c = filter_case("c01_176x144_8b_420_y4m", "psnr=1");
  c.cuda_capable = false;
  expect_goldens(c, {"vmaf_v0.6.1", "psnr_no_chroma"}, 10);
  c.precision = "max";
  const json log = json::parse(run_filter(c, "psnr").log);
  EXPECT_TRUE(log.at("frames").at(0).at("metrics").contains("psnr_y"));
  EXPECT_FALSE(log.at("frames").at(0).at("metrics").contains("psnr_cb"));
  // ssim=1 registers float_ssim: its values join the log.
  {
    FilterCase s = filter_case("c01_176x144_8b_420_y4m", "ssim=1");
    s.cuda_capable = false;
    s.precision = "max";
    const FilterRun f = run_filter(s, "ssim");
    ASSERT_EQ(f.status, 0) << f.stderr_text;
    const json ssim_log = json::parse(f.log);
    EXPECT_TRUE(ssim_log.at("frames").at(0).at("metrics").contains("float_ssim"));
  }
  // ms_ssim=1 registers float_ms_ssim, whose five scales need 176x176: at
  // 176x144 FFmpeg stops with our one-line reason.
  {
    FilterCase s = filter_case("c01_176x144_8b_420_y4m", "ms_ssim=1");
    s.cuda_capable = false;
    const FilterRun f = run_filter(s, "ms_ssim");
    EXPECT_NE(f.status, 0);
    EXPECT_NE(f.stderr_text.find("float_ms_ssim: the luma plane is 176x144"), std::string::npos) << f.stderr_text;
  }
}

// ab-av1's graph (its --pix-format yuv420p, no --vmaf-scale upscaling),
// without ts_sync_mode=nearest, which FFmpeg 5.1's framesync lacks; the
// reference arrives on a pipe as ab-av1 sends it.
TEST_F(FfmpegClient, AbAv1FilterString) {
  FilterCase c = filter_case("c01_176x144_8b_420_y4m");
  c.graph =
      "[0:v]format=yuv420p,setpts=PTS-STARTPTS,settb=AVTB[dis];[1:v]format=yuv420p,setpts=PTS-STARTPTS,settb=AVTB[ref];"
      "[dis][ref]LIBVMAF";
  c.options = "shortest=true:n_threads=2";
  c.stdin_file = c.pair.ref.string();
  expect_same_as_cli(c, "--threads 2");
  const FilterRun f = run_filter(c, "score");
  EXPECT_EQ(score_lines(f.stderr_text),
            std::vector<std::string>{printf_f(golden_pooled_mean(c.pair.name, "vmaf_v0.6.1", "vmaf"))});
}

}  // namespace
}  // namespace exactvmaf::test
