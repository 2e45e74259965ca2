// Report layouts, written out as libvmaf's output.c prints them (commit
// f85a853), plus our "numerics" additions to JSON and XML.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

#include "exactvmaf/output.hpp"
#include "exactvmaf/run.hpp"
#include "output/report_detail.hpp"

namespace exactvmaf {
namespace {

OutputMeta meta(unsigned subsample = 1) {
  OutputMeta m;
  m.version = "9.9.9";
  m.subsample = subsample;
  m.width = 176;
  m.height = 144;
  return m;
}

// Two metrics over three frames, one aggregate.
RunResult small_run() {
  RunResult r;
  const auto a = r.scores.add_metric("psnr_y");
  const auto b = r.scores.add_metric("VMAF_feature_motion2_score");
  const double as[] = {30.5, 31.25, 1.0000003744116355};
  const double bs[] = {0.0, 2.5, 4.0};
  for (unsigned i = 0; i < 3; ++i) {
    r.scores.set(a, i, as[i]);
    r.scores.set(b, i, bs[i]);
  }
  r.scores.set_aggregate("apsnr_y", 40.125);
  r.frames = 3;
  r.fps = 123.456;
  return r;
}

std::string to_string(OutputFormat f, const RunResult& r, const OutputMeta& m,
                      const NumberFormat& nf = NumberFormat{}) {
  return report_to_string(f, r, m, nf);
}

TEST(Alias, UpstreamTable) {
  using detail::metric_print_name;
  EXPECT_EQ(metric_print_name("VMAF_feature_adm2_score"), "adm2");
  EXPECT_EQ(metric_print_name("VMAF_feature_motion2_score"), "motion2");
  EXPECT_EQ(metric_print_name("VMAF_integer_feature_vif_scale3_score"), "integer_vif_scale3");
  EXPECT_EQ(metric_print_name("Cambi_feature_cambi_score"), "cambi");
  EXPECT_EQ(metric_print_name("Speed_temporal_feature_speed_temporal_score"), "speed_temporal");
  // Not in upstream's table: printed as is.
  EXPECT_EQ(metric_print_name("VMAF_integer_feature_motion_sad_score"),
            "VMAF_integer_feature_motion_sad_score");
  EXPECT_EQ(metric_print_name("psnr_y"), "psnr_y");
  EXPECT_EQ(metric_print_name("adm2"), "adm2");
}

TEST(Json, SmallRun) {
  const std::string want =
      "{\n"
      "  \"version\": \"9.9.9\",\n"
      "  \"fps\": 123.46,\n"
      "  \"frames\": [\n"
      "    {\n"
      "      \"frameNum\": 0,\n"
      "      \"metrics\": {\n"
      "        \"psnr_y\": 30.500000,\n"
      "        \"motion2\": 0.000000\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"frameNum\": 1,\n"
      "      \"metrics\": {\n"
      "        \"psnr_y\": 31.250000,\n"
      "        \"motion2\": 2.500000\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"frameNum\": 2,\n"
      "      \"metrics\": {\n"
      "        \"psnr_y\": 1.0000003744116355,\n"
      "        \"motion2\": 4.000000\n"
      "      }\n"
      "    }\n"
      "  ],\n"
      "  \"pooled_metrics\": {\n"
      "    \"psnr_y\": {\n"
      "      \"min\": 1.0000003744116355,\n"
      "      \"max\": 31.250000,\n"
      "      \"mean\": 20.916667,\n"
      "      \"harmonic_mean\": 4.330929\n"
      "    },\n"
      "    \"motion2\": {\n"
      "      \"min\": 0.000000,\n"
      "      \"max\": 4.000000,\n"
      "      \"mean\": 2.166667,\n"
      "      \"harmonic_mean\": 1.019231\n"
      "    }\n"
      "  },\n"
      "  \"aggregate_metrics\": {\n"
      "    \"apsnr_y\": 40.125000\n"
      "  },\n"
      "  \"numerics\": \"R1\"\n"
      "}\n";
  EXPECT_EQ(to_string(OutputFormat::json, small_run(), meta()), want);
}

TEST(Xml, SmallRun) {
  const std::string want =
      "<VMAF version=\"9.9.9\" numerics=\"R1\">\n"
      "  <params qualityWidth=\"176\" qualityHeight=\"144\" />\n"
      "  <fyi fps=\"123.46\" />\n"
      "  <frames>\n"
      "    <frame frameNum=\"0\" psnr_y=\"30.500000\" motion2=\"0.000000\" />\n"
      "    <frame frameNum=\"1\" psnr_y=\"31.250000\" motion2=\"2.500000\" />\n"
      "    <frame frameNum=\"2\" psnr_y=\"1.0000003744116355\" motion2=\"4.000000\" />\n"
      "  </frames>\n"
      "  <pooled_metrics>\n"
      "    <metric name=\"psnr_y\" min=\"1.0000003744116355\" max=\"31.250000\" "
      "mean=\"20.916667\" harmonic_mean=\"4.330929\" />\n"
      "    <metric name=\"motion2\" min=\"0.000000\" max=\"4.000000\" mean=\"2.166667\" "
      "harmonic_mean=\"1.019231\" />\n"
      "  </pooled_metrics>\n"
      "  <aggregate_metrics apsnr_y=\"40.125000\" />\n"
      "</VMAF>\n";
  EXPECT_EQ(to_string(OutputFormat::xml, small_run(), meta()), want);
}

TEST(Csv, SmallRun) {
  const std::string want =
      "Frame,psnr_y,motion2,\n"
      "0,30.500000,0.000000,\n"
      "1,31.250000,2.500000,\n"
      "2,1.0000003744116355,4.000000,\n";
  EXPECT_EQ(to_string(OutputFormat::csv, small_run(), meta()), want);
}

TEST(Sub, SmallRun) {
  const std::string want =
      "{0}{1}frame: 0|psnr_y: 30.500000|motion2: 0.000000|\n"
      "{1}{2}frame: 1|psnr_y: 31.250000|motion2: 2.500000|\n"
      "{2}{3}frame: 2|psnr_y: 1.0000003744116355|motion2: 4.000000|\n";
  EXPECT_EQ(detail::sub_report_to_string(small_run(), meta(), NumberFormat{}), want);
}

TEST(Precision, AppliesToFramesPooledAndAggregates) {
  const std::string csv =
      to_string(OutputFormat::csv, small_run(), meta(), NumberFormat::parse("max"));
  EXPECT_EQ(csv,
            "Frame,psnr_y,motion2,\n"
            "0,30.5,0,\n"
            "1,31.25,2.5,\n"
            "2,1.0000003744116355,4,\n");
  const std::string xml =
      to_string(OutputFormat::xml, small_run(), meta(), NumberFormat::parse("2"));
  EXPECT_NE(xml.find("<frame frameNum=\"2\" psnr_y=\"1.00\" motion2=\"4.00\" />"),
            std::string::npos);
  EXPECT_NE(xml.find("<metric name=\"psnr_y\" min=\"1.00\" max=\"31.25\" mean=\"20.92\" "
                     "harmonic_mean=\"4.33\" />"),
            std::string::npos);
  EXPECT_NE(xml.find("<aggregate_metrics apsnr_y=\"40.12\" />"), std::string::npos);
  EXPECT_NE(xml.find("<fyi fps=\"123.46\" />"), std::string::npos);  // fps stays %.2f
  const std::string json =
      to_string(OutputFormat::json, small_run(), meta(), NumberFormat::parse("max"));
  EXPECT_NE(json.find("\"mean\": 20.916666791470544,"), std::string::npos);
  EXPECT_NE(json.find("\"apsnr_y\": 40.125\n"), std::string::npos);
}

// Subsample 2 over five frames: frames 0, 2, 4 printed and pooled; pooled
// over [0, frames - 1].
TEST(Subsample, PrintsAndPoolsEveryNth) {
  RunResult r;
  const auto a = r.scores.add_metric("float_psnr");
  for (unsigned i = 0; i < 5; i += 2) r.scores.set(a, i, 10.0 * (i + 1));
  r.frames = 5;
  r.fps = 1.0;
  const std::string want =
      "{\n"
      "  \"version\": \"9.9.9\",\n"
      "  \"fps\": 1.00,\n"
      "  \"frames\": [\n"
      "    {\n"
      "      \"frameNum\": 0,\n"
      "      \"metrics\": {\n"
      "        \"float_psnr\": 10.000000\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"frameNum\": 2,\n"
      "      \"metrics\": {\n"
      "        \"float_psnr\": 30.000000\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"frameNum\": 4,\n"
      "      \"metrics\": {\n"
      "        \"float_psnr\": 50.000000\n"
      "      }\n"
      "    }\n"
      "  ],\n"
      "  \"pooled_metrics\": {\n"
      "    \"float_psnr\": {\n"
      "      \"min\": 10.000000,\n"
      "      \"max\": 50.000000,\n"
      "      \"mean\": 30.000000,\n"
      "      \"harmonic_mean\": 20.012082\n"
      "    }\n"
      "  },\n"
      "  \"aggregate_metrics\": {\n"
      "  },\n"
      "  \"numerics\": \"R1\"\n"
      "}\n";
  EXPECT_EQ(to_string(OutputFormat::json, r, meta(2)), want);
  // Written odd frames are skipped too.
  r.scores.set(a, 1, 99.0);
  EXPECT_EQ(to_string(OutputFormat::json, r, meta(2)), want);
  EXPECT_EQ(to_string(OutputFormat::csv, r, meta(2)),
            "Frame,float_psnr,\n0,10.000000,\n2,30.000000,\n4,50.000000,\n");
}

// A frame in the pooling range that was never written: upstream's pooling
// fails and the metric's pooled entry stays empty.
TEST(Pooled, MissingFrameLeavesEntryEmpty) {
  RunResult r;
  const auto a = r.scores.add_metric("a");
  const auto b = r.scores.add_metric("b");
  r.scores.set(a, 0, 1.0);
  r.scores.set(a, 1, 1.0);
  r.scores.set(b, 0, 2.0);  // b missing at frame 1
  r.frames = 2;
  r.fps = 2.0;
  const std::string json = to_string(OutputFormat::json, r, meta());
  EXPECT_NE(json.find("  \"pooled_metrics\": {\n"
                      "    \"a\": {\n"
                      "      \"min\": 1.000000,\n"
                      "      \"max\": 1.000000,\n"
                      "      \"mean\": 1.000000,\n"
                      "      \"harmonic_mean\": 1.000000\n"
                      "    },\n"
                      "    \"b\": {\n"
                      "    }\n"
                      "  },\n"),
            std::string::npos)
      << json;
  // Frame 1 lists only "a": CSV cells shift left, no empty cell.
  EXPECT_EQ(to_string(OutputFormat::csv, r, meta()), "Frame,a,b,\n0,1.000000,2.000000,\n1,1.000000,\n");
  const std::string xml = to_string(OutputFormat::xml, r, meta());
  EXPECT_NE(xml.find("    <frame frameNum=\"1\" a=\"1.000000\" />\n"), std::string::npos);
  EXPECT_NE(xml.find("    <metric name=\"b\" />\n"), std::string::npos);
}

// Non-finite values: JSON null without the newline (upstream's layout), XML
// and CSV as printf prints them.
TEST(NonFinite, PerFormat) {
  RunResult r;
  const auto c = r.scores.add_metric("ciede2000");
  const auto p = r.scores.add_metric("psnr_y");
  const double inf = std::numeric_limits<double>::infinity();
  r.scores.set(c, 0, inf);
  r.scores.set(p, 0, 60.0);
  r.scores.set(c, 1, inf);
  r.scores.set(p, 1, -inf);
  r.scores.set_aggregate("agg_nan", std::numeric_limits<double>::quiet_NaN());
  r.scores.set_aggregate("agg_one", 1.0);
  r.frames = 2;
  r.fps = inf;
  const std::string want =
      "{\n"
      "  \"version\": \"9.9.9\",\n"
      "  \"fps\": null,\n"
      "  \"frames\": [\n"
      "    {\n"
      "      \"frameNum\": 0,\n"
      "      \"metrics\": {\n"
      "        \"ciede2000\": null,        \"psnr_y\": 60.000000\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"frameNum\": 1,\n"
      "      \"metrics\": {\n"
      "        \"ciede2000\": null,        \"psnr_y\": null      }\n"
      "    }\n"
      "  ],\n"
      "  \"pooled_metrics\": {\n"
      "    \"ciede2000\": {\n"
      "      \"min\": null,\n"
      "      \"max\": null,\n"
      "      \"mean\": null,\n"
      "      \"harmonic_mean\": null\n"
      "    },\n"
      "    \"psnr_y\": {\n"
      "      \"min\": null,\n"
      "      \"max\": 60.000000,\n"
      "      \"mean\": null,\n"
      "      \"harmonic_mean\": 121.000000\n"
      "    }\n"
      "  },\n"
      "  \"aggregate_metrics\": {\n"
      "    \"agg_nan\": null,\n"
      "    \"agg_one\": 1.000000\n"
      "  },\n"
      "  \"numerics\": \"R1\"\n"
      "}\n";
  EXPECT_EQ(to_string(OutputFormat::json, r, meta()), want);
  // harmonic mean of psnr_y: 1/(-inf + 1) = -0 ... 2 / (1/61 + -0) - 1 = 121;
  // ciede: 1/(inf+1) = 0, 2/0 - 1 = inf. Mean of 60 and -inf = -inf.
  EXPECT_EQ(to_string(OutputFormat::xml, r, meta()),
            "<VMAF version=\"9.9.9\" numerics=\"R1\">\n"
            "  <params qualityWidth=\"176\" qualityHeight=\"144\" />\n"
            "  <fyi fps=\"inf\" />\n"
            "  <frames>\n"
            "    <frame frameNum=\"0\" ciede2000=\"inf\" psnr_y=\"60.000000\" />\n"
            "    <frame frameNum=\"1\" ciede2000=\"inf\" psnr_y=\"-inf\" />\n"
            "  </frames>\n"
            "  <pooled_metrics>\n"
            "    <metric name=\"ciede2000\" min=\"inf\" max=\"inf\" mean=\"inf\" "
            "harmonic_mean=\"inf\" />\n"
            "    <metric name=\"psnr_y\" min=\"-inf\" max=\"60.000000\" mean=\"-inf\" "
            "harmonic_mean=\"121.000000\" />\n"
            "  </pooled_metrics>\n"
            "  <aggregate_metrics agg_nan=\"nan\" agg_one=\"1.000000\" />\n"
            "</VMAF>\n");
  EXPECT_EQ(to_string(OutputFormat::csv, r, meta()),
            "Frame,ciede2000,psnr_y,\n0,inf,60.000000,\n1,inf,-inf,\n");
}

// A metric added but never written does not exist in upstream's collector.
TEST(Metrics, NeverWrittenMetricIsNotPrinted) {
  RunResult r;
  r.scores.add_metric("ghost");
  const auto a = r.scores.add_metric("a");
  r.scores.set(a, 0, 1.0);
  r.frames = 1;
  RunResult plain;
  plain.scores.set(plain.scores.add_metric("a"), 0, 1.0);
  plain.frames = 1;
  for (OutputFormat f : {OutputFormat::json, OutputFormat::xml, OutputFormat::csv})
    EXPECT_EQ(to_string(f, r, meta()), to_string(f, plain, meta()));
  EXPECT_EQ(to_string(OutputFormat::csv, r, meta()), "Frame,a,\n0,1.000000,\n");
}

// Upstream separates frames by index (i > 0), not by "first printed".
TEST(Json, FirstPrintedFrameNotZero) {
  RunResult r;
  const auto a = r.scores.add_metric("x");
  r.scores.set(a, 1, 0.5);
  r.frames = 2;
  r.fps = 0;
  const std::string json = to_string(OutputFormat::json, r, meta());
  EXPECT_NE(json.find("  \"frames\": [,\n    {\n      \"frameNum\": 1,\n"), std::string::npos)
      << json;
}

TEST(Empty, NoMetricsNoFrames) {
  RunResult r;
  EXPECT_EQ(to_string(OutputFormat::json, r, meta()),
            "{\n"
            "  \"version\": \"9.9.9\",\n"
            "  \"fps\": 0.00,\n"
            "  \"frames\": [\n"
            "  ],\n"
            "  \"pooled_metrics\": {\n"
            "  },\n"
            "  \"aggregate_metrics\": {\n"
            "  },\n"
            "  \"numerics\": \"R1\"\n"
            "}\n");
  EXPECT_EQ(to_string(OutputFormat::csv, r, meta()), "Frame,\n");
  EXPECT_EQ(to_string(OutputFormat::xml, r, meta()),
            "<VMAF version=\"9.9.9\" numerics=\"R1\">\n"
            "  <params qualityWidth=\"176\" qualityHeight=\"144\" />\n"
            "  <fyi fps=\"0.00\" />\n"
            "  <frames>\n"
            "  </frames>\n"
            "  <pooled_metrics>\n"
            "  </pooled_metrics>\n"
            "  <aggregate_metrics />\n"
            "</VMAF>\n");
}

std::string read_back(std::FILE* f) {
  std::rewind(f);
  std::string back;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) back.append(buf, n);
  return back;
}

TEST(WriteReport, WritesTheSameBytes) {
  // A long run too (several MB): the FILE writer works in chunks.
  RunResult big;
  const std::size_t ids[] = {big.scores.add_metric("a"), big.scores.add_metric("b"),
                             big.scores.add_metric("c")};
  for (unsigned i = 0; i < 40000; ++i)
    for (const std::size_t id : ids) big.scores.set(id, i, i * 0.001 + static_cast<double>(id));
  big.frames = 40000;
  for (const RunResult* r : {&big}) {
    for (OutputFormat fmt : {OutputFormat::json, OutputFormat::xml, OutputFormat::csv}) {
      std::FILE* f = std::tmpfile();
      ASSERT_NE(f, nullptr);
      ASSERT_TRUE(write_report(f, fmt, *r, meta(), NumberFormat{}));
      const std::string back = read_back(f);
      std::fclose(f);
      EXPECT_GT(back.size(), std::size_t{1} << 20);  // more than one chunk
      EXPECT_EQ(back, to_string(fmt, *r, meta()));
    }
  }
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(write_report(f, OutputFormat::json, small_run(), meta(), NumberFormat{}));
  EXPECT_EQ(read_back(f), to_string(OutputFormat::json, small_run(), meta()));
  std::fclose(f);
}

TEST(WriteReport, ReportsWriteErrors) {
  EXPECT_FALSE(write_report(nullptr, OutputFormat::csv, small_run(), meta(), NumberFormat{}));
  // A stream opened for reading refuses writes.
  std::FILE* ro = std::tmpfile();
  ASSERT_NE(ro, nullptr);
  std::FILE* rd = std::fopen("/proc/self/cmdline", "r");
  if (rd != nullptr) {
    EXPECT_FALSE(write_report(rd, OutputFormat::csv, small_run(), meta(), NumberFormat{}));
    std::fclose(rd);
  }
  std::fclose(ro);
  // /dev/full: every write fails with ENOSPC (at flush at the latest).
  std::FILE* full = std::fopen("/dev/full", "w");
  if (full == nullptr) GTEST_SKIP() << "no /dev/full";
  EXPECT_FALSE(write_report(full, OutputFormat::xml, small_run(), meta(), NumberFormat{}));
  std::fclose(full);
}

}  // namespace
}  // namespace exactvmaf
