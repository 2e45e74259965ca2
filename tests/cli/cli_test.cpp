// The exactvmaf command line end to end: outputs, thread invariance of the
// output bytes, stdin, and one-line errors with a non-zero exit.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/fixtures.hpp"

namespace exactvmaf::test {
namespace {

struct CmdResult {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path temp_dir() {
  static const auto dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("exactvmaf_cli_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Runs `<binary> <args>` through the shell (args are shell words).
CmdResult tool(const char* binary, const std::string& args, const std::string& stdin_from = "") {
  const auto out = temp_dir() / "stdout.txt", err = temp_dir() / "stderr.txt";
  std::string cmd = std::string("'") + binary + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  if (!stdin_from.empty()) cmd = stdin_from + " | " + cmd;
  else cmd += " </dev/null";
  const int status = std::system(cmd.c_str());
  CmdResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Runs `exactvmaf <args>`.
CmdResult cli(const std::string& args, const std::string& stdin_from = "") { return tool(EXACTVMAF_CLI, args, stdin_from); }

std::string fixture(const std::string& name) { return "'" + (fixtures_dir() / name).string() + "'"; }
const std::string kC01 = "-r " + fixture("c01_176x144_8b_420_ref.yuv") + " -d " +
                         fixture("c01_176x144_8b_420_dist.yuv") + " -w 176 -h 144 -p 420 -b 8";

// An error is one line on stderr naming `fragment`, with a non-zero exit.
void expect_clean_error(const CmdResult& r, const std::string& fragment) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, -1) << "killed by a signal";
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
  EXPECT_EQ(r.err.rfind("exactvmaf: error: ", 0), 0u) << r.err;
}

std::string mask_fps(std::string s) {
  s = std::regex_replace(s, std::regex("\"fps\": [0-9.]+"), "\"fps\": X");
  return std::regex_replace(s, std::regex("fps=\"[0-9.]+\""), "fps=\"X\"");
}

TEST(Cli, JsonOutputIsValidAndSaysNumericsR1) {
  const auto r = cli(kC01 + " -n --feature psnr --feature float_psnr --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("numerics"), "R1");
  EXPECT_EQ(j.at("frames").size(), 10u);
  EXPECT_TRUE(j.at("frames")[0].at("metrics").contains("psnr_y"));
  EXPECT_TRUE(j.at("pooled_metrics").contains("float_psnr"));
  EXPECT_TRUE(r.err.empty()) << "-q must keep stderr quiet: " << r.err;
}

TEST(Cli, OutputBytesAreTheSameForEveryThreadCount) {
  for (const char* fmt : {"--json", "--xml", "--csv"}) {
    const auto base = cli(kC01 + " -n --feature psnr=enable_apsnr=true --feature float_psnr --threads 1 -q " + fmt);
    ASSERT_EQ(base.exit_code, 0) << base.err;
    for (int t : {2, 3, 8}) {
      const auto r = cli(kC01 + " -n --feature psnr=enable_apsnr=true --feature float_psnr -q " + fmt +
                         " --threads " + std::to_string(t));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(mask_fps(r.out), mask_fps(base.out)) << fmt << " threads " << t;
    }
  }
}

TEST(Cli, WritesToOutputFileAndSummarisesOnStderr) {
  const auto path = temp_dir() / "out.xml";
  const auto r = cli(kC01 + " -n --feature psnr -o '" + path.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(slurp(path).find("<VMAF version="), std::string::npos);
  EXPECT_NE(r.err.find("psnr_y: "), std::string::npos) << r.err;
}

TEST(Cli, ReadsY4mFromStdin) {
  const std::string y4m_ref = fixture("c01_176x144_8b_420_ref.y4m");
  const auto piped = cli("-r - -d " + fixture("c01_176x144_8b_420_dist.y4m") + " -n --feature psnr --json -q",
                         "cat " + y4m_ref);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  const auto raw = cli(kC01 + " -n --feature psnr --json -q");
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(mask_fps(piped.out), mask_fps(raw.out));
}

TEST(Cli, PrecisionMaxRoundTrips) {
  const auto r = cli(kC01 + " -n --feature float_psnr --json -q --precision max");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto pair = fixture_pair("c01_176x144_8b_420");
  ASSERT_TRUE(pair);
  const auto lib = run_fixture(*pair, {"float_psnr"});
  for (std::uint64_t i = 0; i < lib.frames; ++i)
    EXPECT_TRUE(same_bits(j.at("frames")[i].at("metrics").at("float_psnr").get<double>(), *lib.scores.get(0, i)));
}

std::filesystem::path write_file(const std::string& name, const std::string& bytes) {
  const auto p = temp_dir() / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

TEST(Cli, WarnsWhenAY4mLayoutIsConverted) {
  // 8x2 C422 (8-bit): libvmaf's y4m reader re-sites its chroma.
  std::string frame = "FRAME\n" + std::string(16, '\x50') + std::string(16, '\x60');
  const auto y4m = write_file("c422.y4m", "YUV4MPEG2 W8 H2 F25:1 Ip C422\n" + frame + frame);
  const auto r = cli("-r '" + y4m.string() + "' -d '" + y4m.string() + "' -n --feature psnr --json -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("exactvmaf: warning: " + y4m.string() + ": C422 converted to 8x2 422 8-bit"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("frames").size(), 2u);
}

TEST(CliErrors, RawSizeNotAWholeNumberOfFrames) {
  const auto part = write_file("partial.yuv", std::string(8 * 8 * 3 / 2 * 2 + 5, '\x10'));
  expect_clean_error(cli("-r '" + part.string() + "' -d '" + part.string() + "' -w 8 -h 8 -p 420 -b 8 -n --feature psnr"),
                     part.string() + ": size is not a whole number of frames: 2 whole frames of 96 bytes");
}

TEST(CliErrors, TruncatedAndMalformedY4m) {
  const std::string header = "YUV4MPEG2 W8 H8 F25:1 Ip C420jpeg\n";
  const auto trunc = write_file("trunc.y4m", header + "FRAME\n" + std::string(96, 'a') + "FRAME\n" + std::string(50, 'b'));
  expect_clean_error(cli("-r '" + trunc.string() + "' -d '" + trunc.string() + "' -n --feature psnr"), trunc.string());
  const auto bad = write_file("bad.y4m", "YUV4MPEG2 W0 H8 F25:1\n");
  expect_clean_error(cli("-r '" + bad.string() + "' -d '" + bad.string() + "' -n --feature psnr"), bad.string());
  const auto inter = write_file("inter.y4m", "YUV4MPEG2 W8 H8 F25:1 It C420jpeg\n");
  expect_clean_error(cli("-r '" + inter.string() + "' -d '" + inter.string() + "' -n --feature psnr"), "interlaced");
}

TEST(CliErrors, MissingFile) {
  expect_clean_error(cli("-r /nonexistent/ref.yuv -d /nonexistent/dist.yuv -w 8 -h 8 -p 420 -b 8 -n --feature psnr"),
                     "/nonexistent/ref.yuv");
}

TEST(CliErrors, UnreadableFile) {
  expect_clean_error(cli("-r /tmp -d /tmp -w 8 -h 8 -p 420 -b 8 -n --feature psnr"), "/tmp");
}

TEST(CliErrors, MissingRawGeometry) {
  expect_clean_error(cli("-r " + fixture("c01_176x144_8b_420_ref.yuv") + " -d " +
                         fixture("c01_176x144_8b_420_dist.yuv") + " -w 176 -h 144 -n --feature psnr"),
                     "-p/--pixel_format");
  expect_clean_error(cli("-r " + fixture("c01_176x144_8b_420_ref.yuv") + " -d " +
                         fixture("c01_176x144_8b_420_dist.yuv") + " -n --feature psnr"),
                     "c01_176x144_8b_420_ref.yuv");
}

TEST(CliErrors, BadRawGeometryValues) {
  expect_clean_error(cli(kC01.substr(0, kC01.find(" -p")) + " -p 411 -b 8 -n --feature psnr"), "-p/--pixel_format 411");
  expect_clean_error(cli(kC01.substr(0, kC01.find(" -b")) + " -b 9 -n --feature psnr"), "-b/--bitdepth 9");
}

TEST(CliErrors, UnknownFeatureAndOptions) {
  expect_clean_error(cli(kC01 + " -n --feature nosuch"), "unknown feature 'nosuch'");
  expect_clean_error(cli(kC01 + " -n --feature psnr=nosuch=1"), "unknown option 'nosuch'");
  expect_clean_error(cli(kC01 + " -n --feature psnr=min_sse=-3"), "out of range");
}

TEST(CliErrors, UnwritableOutput) {
  expect_clean_error(cli(kC01 + " -n --feature psnr -o /nonexistent/dir/out.json"), "/nonexistent/dir/out.json");
}

TEST(CliErrors, MismatchedInputs) {
  expect_clean_error(cli("-r " + fixture("c01_176x144_8b_420_ref.y4m") + " -d " +
                         fixture("c03_176x144_10b_420_dist.y4m") + " -n --feature psnr"),
                     "must have the same size, pixel format and bit depth");
}

TEST(CliErrors, NoFeatureAndBadBackend) {
  expect_clean_error(cli(kC01 + " -n"), "no feature requested");
  expect_clean_error(cli(kC01 + " -n --feature psnr --backend opencl"), "--backend opencl");
  expect_clean_error(cli(kC01 + " -n --feature psnr --precision lots"), "lots");
}

// --device_fp64 off on the CPU runs the fp64-free arithmetic there: the same
// bytes as the default; a bad value is one line naming it.
TEST(Cli, DeviceFp64OffOnTheCpuGivesTheSameBytes) {
  const std::string run = kC01 + " --feature float_adm --json -q";
  const auto on = cli(run);
  const auto off = cli(run + " --device_fp64 off");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(on.out.find("\"integer_adm2\""), std::string::npos);  // the default model's adm ran
  EXPECT_EQ(mask_fps(off.out), mask_fps(on.out));
  expect_clean_error(cli(kC01 + " -n --feature psnr --device_fp64 maybe"), "--device_fp64 maybe");
}

TEST(CliErrors, UsageErrorsExitWithTwo) {
  const auto r = cli("--threads many");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
}

TEST(CliErrors, SubsampleZeroSaysAtLeastOne) {
  const auto r = cli(kC01 + " -n --feature psnr --subsample 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--subsample: must be at least 1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("17976931348623157"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, OneFrameIsOneFrame) {
  const auto r = cli(kC01 + " -n --feature psnr --frame_cnt 1 -o /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(": 1 frame of "), std::string::npos) << r.err;
  // The progress line (a terminal only): run under script(1) for a pty.
  const auto log = temp_dir() / "pty.txt";
  const std::string inner = std::string("'") + EXACTVMAF_CLI + "' " + kC01 + " -n --feature psnr --frame_cnt 1 -o /dev/null";
  const std::string cmd = "script -qec \"" + inner + "\" '" + log.string() + "' >/dev/null 2>&1 </dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string pty = slurp(log);
  EXPECT_NE(pty.find("1 frame  "), std::string::npos) << pty;
  EXPECT_EQ(pty.find("1 frames"), std::string::npos) << pty;
}

TEST(Cli, ListModelsNamesTheBuiltInModels) {
  const auto r = cli("--list-models");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"vmaf_v0.6.1\n", "vmaf_4k_v0.6.1neg\n", "vmaf_b_v0.6.3\n", "vmaf_float_v0.6.1\n",
                           "vmaf_v1.0.16_3d0h\n", "vmaf_v1.0.16_hfr_1d5h_2160\n"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name << " not in: " << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 17) << r.out;
}

// ---- -o FILE is complete or untouched -----------------------------------------

// A folder of its own holding only `out.json` with `previous` in it.
std::filesystem::path report_dir(const std::string& name, const std::string& previous) {
  const auto dir = temp_dir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "out.json", std::ios::binary) << previous;
  return dir;
}

std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(CliReport, WrittenWholeOnSuccess) {
  const auto dir = report_dir("report_ok", "previous");
  const auto r = cli(kC01 + " -n --feature psnr --json -q -o '" + (dir / "out.json").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.json"});
  EXPECT_TRUE(nlohmann::json::accept(slurp(dir / "out.json")));
}

TEST(CliReport, ReadErrorMidwayLeavesThePreviousFile) {
  const std::string header = "YUV4MPEG2 W8 H8 F25:1 Ip C420jpeg\n";
  const std::string frame = "FRAME\n" + std::string(96, 'a');
  const auto trunc = write_file("midway.y4m", header + frame + frame + frame + "FRAME\n" + std::string(40, 'b'));
  const auto dir = report_dir("report_read_error", "previous");
  expect_clean_error(cli("-r '" + trunc.string() + "' -d '" + trunc.string() + "' -n --feature psnr --threads 1 -o '" +
                         (dir / "out.json").string() + "'"),
                     trunc.string());
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.json"});
  EXPECT_EQ(slurp(dir / "out.json"), "previous");
}

// Starts the CLI reading the reference from a FIFO, feeds it two frames,
// waits until the report's temporary file exists, and sends `sig`.
void expect_signal_leaves_no_report(int sig, bool previous_file) {
  const auto dir = report_dir("report_signal_" + std::to_string(sig), "previous");
  if (!previous_file) std::filesystem::remove(dir / "out.json");
  const auto fifo = temp_dir() / ("ref_" + std::to_string(sig) + ".y4m");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string ref = (fixtures_dir() / "c01_176x144_8b_420_ref.y4m").string();
  const std::string dist = (fixtures_dir() / "c01_176x144_8b_420_dist.y4m").string();
  const std::string out = (dir / "out.json").string(), err = (temp_dir() / "signal_err.txt").string();
  const char* argv[] = {EXACTVMAF_CLI, "-r", fifo.c_str(), "-d", dist.c_str(), "--feature", "psnr", "-n", "--json",
                        "-o", out.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  ASSERT_EQ(::posix_spawn(&pid, EXACTVMAF_CLI, &actions, &attr, const_cast<char* const*>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  const int w = ::open(fifo.c_str(), O_WRONLY);  // blocks until the CLI opens its reference
  ASSERT_GE(w, 0);
  const std::string y4m = slurp(ref);
  const std::size_t two_frames = y4m.find('\n') + 1 + 2 * (6 + 176 * 144 * 3 / 2);
  ASSERT_EQ(::write(w, y4m.data(), two_frames), static_cast<ssize_t>(two_frames));
  bool temp_seen = false;
  for (int i = 0; i < 200 && !temp_seen; ++i) {
    for (const auto& name : files_in(dir)) temp_seen |= name != "out.json";
    if (!temp_seen) ::usleep(10000);
  }
  ::usleep(200000);  // the CLI now waits for the third frame
  ::kill(pid, sig);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(w);
  EXPECT_TRUE(temp_seen) << "the report's temporary file never appeared";
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status << ": " << slurp(err);
  EXPECT_EQ(WTERMSIG(status), sig);
  if (previous_file) {
    EXPECT_EQ(files_in(dir), std::vector<std::string>{"out.json"});
    EXPECT_EQ(slurp(dir / "out.json"), "previous");
  } else {
    EXPECT_EQ(files_in(dir), std::vector<std::string>{});
  }
  std::filesystem::remove(fifo);
}

TEST(CliReport, SigtermMidwayLeavesThePreviousFile) { expect_signal_leaves_no_report(SIGTERM, true); }
TEST(CliReport, SigintMidwayLeavesNoFile) { expect_signal_leaves_no_report(SIGINT, false); }

TEST(CliReport, DevicesAreWrittenDirectly) {
  const auto r = cli(kC01 + " -n --feature psnr --json -q -o /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

// exactvmaf-parity's exit status (docs/design.md §10): 2 for what it refuses
// with a one-line error (a missing input; a CUDA run that cannot be made, here
// null, which has no CUDA version, or a build or machine without CUDA), apart
// from 3, internal and CUDA errors, which the GPU checks count as failures.
// --batch: a file of pairs, one command line each, run in one process.
std::filesystem::path write_batch(const std::string& name, const std::string& text) {
  const auto path = temp_dir() / name;
  std::ofstream(path) << text;
  return path;
}

const std::string kC03Y4m =
    "-r " + fixture("c03_176x144_10b_420_ref.y4m") + " -d " + fixture("c03_176x144_10b_420_dist.y4m");

// Each pair's report is the single command's, byte for byte (but fps); blank
// lines and comments are skipped; the summary counts the pairs.
TEST(CliBatch, EachReportIsTheSingleCommands) {
  const std::vector<std::string> args = {kC01 + " -n --feature psnr --json", kC03Y4m + " --csv",
                                         kC01 + " -m version=vmaf_v0.6.1 -m version=vmaf_4k_v0.6.1:name=vmaf_4k --xml"};
  std::string text = "# three pairs\n\n";
  std::vector<std::filesystem::path> outs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    outs.push_back(temp_dir() / ("batch_" + std::to_string(i) + ".out"));
    std::filesystem::remove(outs.back());
    text += args[i] + " -q -o '" + outs.back().string() + "'\n";
  }
  const auto batch = write_batch("pairs.txt", text);
  const CmdResult r = cli("--batch '" + batch.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3 pairs scored"), std::string::npos) << r.err;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto single = temp_dir() / "single.out";
    const CmdResult one = cli(args[i] + " -q -o '" + single.string() + "'");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const std::string got = slurp(outs[i]);
    EXPECT_FALSE(got.empty()) << args[i];
    EXPECT_EQ(mask_fps(got), mask_fps(slurp(single))) << args[i];
  }
}

// A pair that fails (a missing file) is named with its line; the others are
// scored; exit 1.
TEST(CliBatch, AFailingPairDoesNotStopTheOthers) {
  const auto a = temp_dir() / "ok_a.json", b = temp_dir() / "ok_b.json";
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  const auto batch = write_batch("failing.txt", kC01 + " -n --feature psnr -q --json -o '" + a.string() + "'\n" +
                                                    "-r /nonexistent/ref.y4m -d /nonexistent/dist.y4m -q -o '" +
                                                    (temp_dir() / "never.json").string() + "'\n" + kC01 +
                                                    " -n --feature float_psnr -q --json -o '" + b.string() + "'\n");
  const CmdResult r = cli("--batch '" + batch.string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("failing.txt line 2: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 of 3 pairs failed (lines 2)"), std::string::npos) << r.err;
  EXPECT_NE(slurp(a).find("\"psnr_y\""), std::string::npos);
  EXPECT_NE(slurp(b).find("\"float_psnr\""), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(temp_dir() / "never.json"));
}

// A line that cannot run (unknown option, no -o, an output used twice,
// standard input) stops the batch before any pair runs: one line per error
// naming the file and line, exit 2, no report written.
TEST(CliBatch, BadLinesStopTheBatchBeforeAnyPair) {
  const auto out = temp_dir() / "first.json";
  std::filesystem::remove(out);
  const std::string o = " -o '" + out.string() + "'";
  const auto batch = write_batch("bad.txt", kC01 + " -n --feature psnr" + o + "\n" +      // fine
                                                kC01 + " --no_such_option -o y.json\n" +  // line 2
                                                kC01 + "\n" +                             // no -o
                                                kC01 + o + "\n" +                         // line 1's -o
                                                "-r - -d " + fixture("c01_176x144_8b_420_dist.y4m") + " -o x.json\n");
  const CmdResult r = cli("--batch '" + batch.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 4) << r.err;
  for (const char* line : {"bad.txt line 2: ", "bad.txt line 3: -o FILE is needed", "bad.txt line 4: -o ",
                           "bad.txt line 5: an input of a batch cannot be standard input"})
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  EXPECT_NE(r.err.find("is line 1's report too"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// The pairs' options belong on their lines; a missing or empty file is one line.
TEST(CliBatch, UsageErrors) {
  const auto batch = write_batch("one.txt", kC01 + " -n --feature psnr -o x.json\n");
  const CmdResult mixed = cli("--batch '" + batch.string() + "' --threads 2");
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("--threads belongs on the batch file's lines"), std::string::npos) << mixed.err;
  expect_clean_error(cli("--batch /nonexistent/pairs.txt"), "--batch /nonexistent/pairs.txt: cannot open");
  expect_clean_error(cli("--batch '" + write_batch("empty.txt", "# nothing\n\n").string() + "'"), "no pair in it");
}

// EXACTVMAF_STARTUP_TRACE=1: the start-up phases on stderr, in order, at
// non-decreasing times since the process began; nothing without it.
TEST(StartupTrace, PhasesInOrderOnlyWhenAsked) {
  const std::string args = kC01 + " -n --feature psnr --json -q";
  const CmdResult plain = cli(args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("startup:"), std::string::npos) << plain.err;
  const CmdResult traced = tool("/usr/bin/env", "EXACTVMAF_STARTUP_TRACE=1 '" + std::string(EXACTVMAF_CLI) + "' " + args);
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(mask_fps(traced.out), mask_fps(plain.out));
  const std::vector<std::string> phases = {"main", "models loaded", "inputs opened", "features initialised",
                                           "backend chosen: cpu", "inputs started", "worker 0 ready",
                                           "first frame committed", "last frame committed (10 frames)"};
  std::istringstream lines(traced.err);
  std::string line;
  std::size_t next = 0;
  double last_ms = -1;
  while (std::getline(lines, line)) {
    ASSERT_EQ(line.rfind("startup: ", 0), 0u) << line;
    const double ms = std::stod(line.substr(9));
    EXPECT_LT(ms, 60000) << line;
    if (next < phases.size() && line.find(" ms " + phases[next]) != std::string::npos) {
      EXPECT_GE(ms, last_ms) << line;  // these phases follow one another
      last_ms = ms;
      ++next;
    }
  }
  // Only a CUDA run skips the exit handlers.
  EXPECT_EQ(traced.err.find("exit without CUDA teardown"), std::string::npos) << traced.err;
  EXPECT_EQ(next, phases.size()) << "phase not found in order: " << (next < phases.size() ? phases[next] : "")
                                 << "\n" << traced.err;
}

TEST(ParityTool, RefusedRunsExitTwo) {
  const CmdResult missing = tool(EXACTVMAF_PARITY, "-r /nonexistent/ref.y4m -d /nonexistent/dist.y4m --feature psnr");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/ref.y4m"), std::string::npos) << missing.err;
  const CmdResult no_cuda = tool(EXACTVMAF_PARITY, kC01 + " --feature null");
  EXPECT_EQ(no_cuda.exit_code, 2) << no_cuda.err;
  EXPECT_NE(no_cuda.err.find("--backend cuda: "), std::string::npos) << no_cuda.err;
  EXPECT_EQ(std::count(no_cuda.err.begin(), no_cuda.err.end(), '\n'), 1) << no_cuda.err;
}

// --device_fp64 as exactvmaf's: a bad value is refused before the cpu run
// (exit 2, one line naming it).
TEST(ParityTool, BadDeviceFp64IsRefusedFirst) {
  const CmdResult bad = tool(EXACTVMAF_PARITY, kC01 + " --feature adm --device_fp64 maybe");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.err, "exactvmaf-parity: error: --device_fp64 maybe: expected auto, on or off\n");
  EXPECT_EQ(bad.out, "");
}

// off runs cuda on fp32 pairs and says so; without a device it is refused
// for the device, not for the value.
TEST(ParityTool, DeviceFp64OffSaysFp32PairArithmetic) {
  const CmdResult off = tool(EXACTVMAF_PARITY, kC01 + " --feature adm --device_fp64 off");
  if (off.exit_code == 2 && off.err.find("--backend cuda: ") != std::string::npos)
    GTEST_SKIP() << "no CUDA device: " << off.err;
  EXPECT_EQ(off.exit_code, 0) << off.out << off.err;
  // ... and that the device computed every frame (none recomputed on the host).
  EXPECT_NE(off.out.find("cuda (1 thread, fp32pair arithmetic, --device_fp64 off, 0 of "), std::string::npos)
      << off.out;
  EXPECT_NE(off.out.find(" frames recomputed on the host) vs cpu"), std::string::npos) << off.out;
  EXPECT_NE(off.out.find("PARITY: identical"), std::string::npos) << off.out;
}

}  // namespace
}  // namespace exactvmaf::test
