// Whole reports against upstream's own output (tests/golden/README.md):
// - stock/: the unmodified vmaf tool's JSON/XML/CSV. We rebuild each run's
//   ScoreTable from the full-precision (%.17g) golden of the same run and
//   print it with the legacy rule: every byte must match, fps and version
//   taken over from the stock file, our "numerics" additions removed.
// - upstream/ and r/: the %.17g build's JSON. Printed with --precision max,
//   each must come back byte for byte (pooled values recomputed by us).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "exactvmaf/output.hpp"
#include "exactvmaf/run.hpp"
#include "output/report_detail.hpp"

namespace exactvmaf {
namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

const fs::path kGolden = fs::path(EXACTVMAF_SOURCE_DIR) / "tests" / "golden";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A run as the %.17g golden records it.
struct GoldenRun {
  std::string version;
  std::string fps_text;  // as printed
  RunResult result;
};

// Rebuilds the ScoreTable from a %.17g JSON. `only`: keep these metrics, in
// this order (a stock run with fewer features than the golden run).
// `frames` (pic_cnt) is one past the last frame printed: with subsampling
// the frames after it are skipped by pooling anyway. JSON null has lost its
// value; +inf stands for it (enough for the JSON layout).
GoldenRun load_17g(const fs::path& p, const std::vector<std::string>& only = {}) {
  const std::string text = read_text(p);
  const ordered_json j = ordered_json::parse(text);
  GoldenRun g;
  g.version = j.at("version").get<std::string>();
  std::smatch fps;
  if (std::regex_search(text, fps, std::regex("\"fps\": ([^,\n]+),"))) g.fps_text = fps[1].str();
  ScoreTable& t = g.result.scores;
  std::vector<std::string> names = only;
  if (names.empty())
    for (const auto& [name, pooled] : j.at("pooled_metrics").items()) names.push_back(name);
  for (const std::string& n : names) t.add_metric(n);
  std::uint64_t frames = 0;
  for (const ordered_json& f : j.at("frames")) {
    const std::uint64_t i = f.at("frameNum").get<std::uint64_t>();
    frames = std::max(frames, i + 1);
    for (const auto& [name, v] : f.at("metrics").items()) {
      const auto id = t.find_metric(name);
      if (!id) continue;
      t.set(*id, i, v.is_null() ? std::numeric_limits<double>::infinity() : v.get<double>());
    }
  }
  for (const auto& [name, v] : j.at("aggregate_metrics").items())
    t.set_aggregate(name, v.is_null() ? std::numeric_limits<double>::infinity() : v.get<double>());
  g.result.frames = frames;
  return g;
}

// Removes our additions so the text is upstream's layout again.
std::string strip_numerics(std::string s, OutputFormat fmt) {
  std::string from, to;
  if (fmt == OutputFormat::json) {
    from = "\n  },\n  \"numerics\": \"R1\"\n}\n";
    to = "\n  }\n}\n";
  } else if (fmt == OutputFormat::xml) {
    from = "\" numerics=\"R1\">\n";
    to = "\">\n";
  } else {
    return s;
  }
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "no numerics tag";
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string fps_of_stock(const std::string& text, OutputFormat fmt) {
  std::smatch m;
  if (fmt == OutputFormat::json) std::regex_search(text, m, std::regex("\"fps\": ([^,\n]+),"));
  if (fmt == OutputFormat::xml) std::regex_search(text, m, std::regex("<fyi fps=\"([^\"]+)\""));
  return m.size() > 1 ? m[1].str() : "0";
}

std::string version_of_stock(const std::string& text, OutputFormat fmt) {
  std::smatch m;
  if (fmt == OutputFormat::json) std::regex_search(text, m, std::regex("\"version\": \"([^\"]*)\""));
  if (fmt == OutputFormat::xml) std::regex_search(text, m, std::regex("<VMAF version=\"([^\"]*)\""));
  return m.size() > 1 ? m[1].str() : "";
}

// Line-level report of the first difference.
std::string first_difference(const std::string& got, const std::string& want) {
  std::istringstream g(got), w(want);
  std::string gl, wl;
  for (int line = 1;; ++line) {
    const bool gok = static_cast<bool>(std::getline(g, gl));
    const bool wok = static_cast<bool>(std::getline(w, wl));
    if (!gok && !wok) return "identical lines (difference in the final newline)";
    if (!gok || !wok || gl != wl)
      return "line " + std::to_string(line) + ":\n  got:  " + (gok ? gl : "<end>") +
             "\n  want: " + (wok ? wl : "<end>");
  }
}

OutputFormat format_of(const fs::path& p) {
  const std::string ext = p.extension().string();
  if (ext == ".xml") return OutputFormat::xml;
  if (ext == ".csv") return OutputFormat::csv;
  return OutputFormat::json;
}

unsigned subsample_of(const std::string& name) {
  std::smatch m;
  if (std::regex_search(name, m, std::regex("subsample(\\d+)"))) return static_cast<unsigned>(std::stoul(m[1]));
  return 1;
}

struct StockCase {
  const char* stock;   // file under stock/
  const char* golden;  // %.17g run under upstream/
  std::vector<std::string> metrics;  // empty: all of the golden's
};

const std::vector<StockCase>& stock_cases() {
  static const std::vector<StockCase> cases = {
      {"c01_psnr_float_psnr.json", "c01_176x144_8b_420/psnr_float_psnr.json", {}},
      {"c01_psnr_float_psnr.xml", "c01_176x144_8b_420/psnr_float_psnr.json", {}},
      {"c01_psnr_float_psnr.csv", "c01_176x144_8b_420/psnr_float_psnr.json", {}},
      {"c01_psnr_float_psnr_subsample2.json", "c01_176x144_8b_420/psnr_float_psnr_subsample2.json", {}},
      // stock ran psnr=enable_apsnr=true; the golden run adds enable_mse.
      {"c01_psnr_apsnr.json", "c01_176x144_8b_420/psnr_mse_apsnr.json", {"psnr_y", "psnr_cb", "psnr_cr"}},
      {"c01_psnr_apsnr.xml", "c01_176x144_8b_420/psnr_mse_apsnr.json", {"psnr_y", "psnr_cb", "psnr_cr"}},
      {"c01_psnr_apsnr.csv", "c01_176x144_8b_420/psnr_mse_apsnr.json", {"psnr_y", "psnr_cb", "psnr_cr"}},
      {"id_psnr_float_psnr.json", "id_176x144_8b_420/psnr_float_psnr.json", {}},
      {"id_psnr_float_psnr.xml", "id_176x144_8b_420/psnr_float_psnr.json", {}},
  };
  return cases;
}

TEST(StockGolden, EveryStockFileHasACase) {
  const fs::path dir = kGolden / "stock";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " missing";
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const bool covered = std::any_of(stock_cases().begin(), stock_cases().end(),
                                     [&](const StockCase& c) { return name == c.stock; });
    EXPECT_TRUE(covered) << "stock/" << name << " is not compared by any test case";
  }
}

TEST(StockGolden, LegacyReproducesStockBytes) {
  if (!fs::exists(kGolden / "stock")) GTEST_SKIP() << "no stock goldens";
  int compared = 0;
  for (const StockCase& c : stock_cases()) {
    const fs::path stock = kGolden / "stock" / c.stock;
    const fs::path golden = kGolden / "upstream" / c.golden;
    ASSERT_TRUE(fs::exists(stock)) << stock;
    ASSERT_TRUE(fs::exists(golden)) << golden;
    const OutputFormat fmt = format_of(stock);
    const std::string want = read_text(stock);
    GoldenRun g = load_17g(golden, c.metrics);
    g.result.fps = std::strtod(fps_of_stock(want, fmt).c_str(), nullptr);
    OutputMeta meta;
    meta.version = version_of_stock(want, fmt);
    meta.subsample = subsample_of(c.stock);
    meta.width = 176;
    meta.height = 144;
    const std::string got =
        strip_numerics(report_to_string(fmt, g.result, meta, NumberFormat{}), fmt);
    EXPECT_EQ(got == want, true) << c.stock << ": " << first_difference(got, want);
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(stock_cases().size()));
}

// Non-finite values as the stock tool prints them (tests/output/data/README.md):
// ciede2000 = +inf and psnr = 60 on all ten frames of the identical pair.
TEST(StockGolden, NonFiniteLayout) {
  const fs::path dir = fs::path(EXACTVMAF_SOURCE_DIR) / "tests" / "output" / "data";
  RunResult r;
  const auto ciede = r.scores.add_metric("ciede2000");
  const std::size_t psnr[] = {r.scores.add_metric("psnr_y"), r.scores.add_metric("psnr_cb"),
                              r.scores.add_metric("psnr_cr")};
  for (unsigned i = 0; i < 10; ++i) {
    r.scores.set(ciede, i, std::numeric_limits<double>::infinity());
    for (const std::size_t p : psnr) r.scores.set(p, i, 60.0);
  }
  r.frames = 10;
  for (const char* name : {"id_ciede_psnr.json", "id_ciede_psnr.xml", "id_ciede_psnr.csv"}) {
    const fs::path stock = dir / name;
    ASSERT_TRUE(fs::exists(stock)) << stock;
    const OutputFormat fmt = format_of(stock);
    const std::string want = read_text(stock);
    r.fps = std::strtod(fps_of_stock(want, fmt).c_str(), nullptr);
    OutputMeta meta;
    meta.version = version_of_stock(want, fmt);
    meta.width = 176;
    meta.height = 144;
    const std::string got = strip_numerics(report_to_string(fmt, r, meta, NumberFormat{}), fmt);
    EXPECT_EQ(got == want, true) << name << ": " << first_difference(got, want);
  }
  OutputMeta meta;
  const std::string sub = detail::sub_report_to_string(r, meta, NumberFormat{});
  EXPECT_EQ(sub, read_text(dir / "id_ciede_psnr.sub"));
}

// The %.17g build is upstream's writer with one format changed: --precision
// max must reproduce its every byte, pooled values included.
TEST(FullPrecisionGolden, MaxReproduces17gBytes) {
  int compared = 0, differing = 0;
  for (const char* tree : {"upstream", "r"}) {
    const fs::path dir = kGolden / tree;
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") continue;
      const std::string want = read_text(e.path());
      if (want.find("null") != std::string::npos) continue;  // values lost
      GoldenRun g = load_17g(e.path());
      g.result.fps = std::strtod(g.fps_text.c_str(), nullptr);
      OutputMeta meta;
      meta.version = g.version;
      meta.subsample = subsample_of(e.path().filename().string());
      const std::string got = strip_numerics(
          report_to_string(OutputFormat::json, g.result, meta, NumberFormat::parse("max")),
          OutputFormat::json);
      ++compared;
      if (got != want && differing++ < 5)
        ADD_FAILURE() << fs::relative(e.path(), kGolden) << ": " << first_difference(got, want);
    }
  }
  if (compared == 0) GTEST_SKIP() << "no %.17g goldens";
  EXPECT_EQ(differing, 0) << "of " << compared << " files";
  std::printf("compared %d %%.17g golden files, %d identical\n", compared, compared - differing);
}

}  // namespace
}  // namespace exactvmaf
