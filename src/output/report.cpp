// The XML, JSON and CSV reports, laid out byte for byte as libvmaf's
// output.c writes them (commit f85a853), quirks included:
// - JSON: a frame is preceded by ",\n" whenever its index is > 0 (even when
//   it is the first frame printed); a metric printed as null gets no newline;
//   the comma between pooled methods depends on the method index.
// - CSV: a frame row lists only the metrics written at that frame (no empty
//   cells), each followed by a comma, as is every header name.
// - Names go through libvmaf's alias table; aggregate names print as they are.
// Our additions: JSON "numerics" as the last top-level key, XML attribute
// numerics on <VMAF> after version. CSV has no place for it.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactvmaf/exactvmaf.hpp"
#include "exactvmaf/output.hpp"
#include "numeric/fpenv.hpp"
#include "output/number_format.hpp"
#include "output/report_detail.hpp"

namespace exactvmaf {
namespace detail {

namespace {

struct NameAlias {
  std::string_view name, alias;
};

// libvmaf feature/alias.c, the whole table in its order.
constexpr std::array<NameAlias, 29> kNameAliases{{
    {"VMAF_feature_adm2_score", "adm2"},
    {"VMAF_feature_aim_score", "aim"},
    {"VMAF_feature_adm3_score", "adm3"},
    {"VMAF_feature_adm_scale0_score", "adm_scale0"},
    {"VMAF_feature_adm_scale1_score", "adm_scale1"},
    {"VMAF_feature_adm_scale2_score", "adm_scale2"},
    {"VMAF_feature_adm_scale3_score", "adm_scale3"},
    {"VMAF_feature_motion_score", "motion"},
    {"VMAF_feature_motion2_score", "motion2"},
    {"VMAF_feature_motion3_score", "motion3"},
    {"VMAF_feature_vif_scale0_score", "vif_scale0"},
    {"VMAF_feature_vif_scale1_score", "vif_scale1"},
    {"VMAF_feature_vif_scale2_score", "vif_scale2"},
    {"VMAF_feature_vif_scale3_score", "vif_scale3"},
    {"VMAF_integer_feature_adm2_score", "integer_adm2"},
    {"VMAF_integer_feature_aim_score", "integer_aim"},
    {"VMAF_integer_feature_adm3_score", "integer_adm3"},
    {"VMAF_integer_feature_motion_score", "integer_motion"},
    {"VMAF_integer_feature_motion2_score", "integer_motion2"},
    {"VMAF_integer_feature_motion3_score", "integer_motion3"},
    {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
    {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
    {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
    {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
    {"Cambi_feature_cambi_score", "cambi"},
    {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
    {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
    {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
    {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
}};

// Pool methods in libvmaf's enum order (VMAF_POOL_METHOD_MIN = 1 ... 4).
struct PoolEntry {
  PoolMethod method;
  const char* name;
};
constexpr std::array<PoolEntry, 4> kPoolOrder{{
    {PoolMethod::min, "min"},
    {PoolMethod::max, "max"},
    {PoolMethod::mean, "mean"},
    {PoolMethod::harmonic_mean, "harmonic_mean"},
}};

// Where a report goes: a string, or a FILE in chunks (a report of a long
// video can be hundreds of MB; it is not built whole in memory).
class Sink {
 public:
  explicit Sink(std::FILE* f = nullptr) : file_(f) {}
  Sink& operator+=(const std::string& s) { text_ += s; return *this; }
  Sink& operator+=(const char* s) { text_ += s; return *this; }
  Sink& operator+=(char c) { text_ += c; return *this; }
  // Called between frames: writes out what has gathered, for a FILE.
  void drain_if_large() {
    if (file_ != nullptr && text_.size() >= (std::size_t{1} << 20)) drain();
  }
  // Writes out everything; false once any write has failed.
  bool finish() {
    if (file_ != nullptr) drain();
    return ok_;
  }
  std::string take() { return std::move(text_); }

 private:
  void drain() {
    if (ok_ && std::fwrite(text_.data(), 1, text_.size(), file_) != text_.size()) ok_ = false;
    text_.clear();
  }
  std::FILE* file_;
  std::string text_;
  bool ok_ = true;
};

// The frames libvmaf prints: every index below the capacity, only multiples
// of the subsample factor when it is > 1, and only where some metric was
// written. Calls visit(frame, written_count).
template <class Visit>
void for_each_printed_frame(const ScoreTable& t, unsigned subsample, Visit&& visit) {
  const std::uint64_t capacity = t.frame_capacity();
  for (std::uint64_t i = 0; i < capacity; ++i) {
    if (subsample > 1 && i % subsample != 0) continue;
    unsigned written = 0;
    for (std::size_t m = 0; m < t.metric_count(); ++m)
      if (t.written(m, i)) ++written;
    if (written == 0) continue;
    visit(i, written);
  }
}

// The metrics libvmaf's feature collector would hold: it creates a metric's
// vector at its first value, so one never written does not exist there (no
// CSV column, no pooled entry).
std::vector<std::size_t> collected_metrics(const ScoreTable& t) {
  std::vector<std::size_t> ids;
  const std::uint64_t capacity = t.frame_capacity();
  for (std::size_t m = 0; m < t.metric_count(); ++m) {
    for (std::uint64_t i = 0; i < capacity; ++i) {
      if (t.written(m, i)) {
        ids.push_back(m);
        break;
      }
    }
  }
  return ids;
}

// Pooled over frames [0, pic_cnt - 1] as libvmaf's writers ask for it.
std::optional<double> pooled_value(const RunResult& r, std::size_t id, PoolMethod m,
                                   unsigned subsample) {
  if (r.frames == 0) return std::nullopt;  // upstream: the range has no written frame
  return r.scores.pooled(id, m, 0, r.frames - 1, subsample);
}

bool is_finite(double v) { return std::isfinite(v); }

std::string name_of(const ScoreTable& t, std::size_t id) {
  return std::string(metric_print_name(t.metric_name(id)));
}

std::string frame_number(std::uint64_t i) { return std::to_string(i); }

void xml_report(Sink& out, const RunResult& r, const OutputMeta& meta, const NumberFormat& nf) {
  const ScoreTable& t = r.scores;
  const auto num = [&](double v) { return format_number(v, nf, OutputFormat::xml); };
  out += "<VMAF version=\"" + meta.version + "\" numerics=\"" + kNumerics + "\"";
  if (!meta.scaling.empty()) out += " scaling=\"" + meta.scaling + "\"";
  out += ">\n";
  out += "  <params qualityWidth=\"" + std::to_string(meta.width) + "\" qualityHeight=\"" +
         std::to_string(meta.height) + "\" />\n";
  out += "  <fyi fps=\"" + format_fps(r.fps, false) + "\" />\n";
  out += "  <frames>\n";
  for_each_printed_frame(t, meta.subsample, [&](std::uint64_t i, unsigned) {
    out += "    <frame frameNum=\"" + frame_number(i) + "\" ";
    for (std::size_t m = 0; m < t.metric_count(); ++m) {
      const auto v = t.get(m, i);
      if (!v) continue;
      out += name_of(t, m) + "=\"" + num(*v) + "\" ";
    }
    out += "/>\n";
    out.drain_if_large();
  });
  out += "  </frames>\n";
  out += "  <pooled_metrics>\n";
  for (const std::size_t m : collected_metrics(t)) {
    out += "    <metric name=\"" + name_of(t, m) + "\" ";
    for (const PoolEntry& p : kPoolOrder) {
      const auto v = pooled_value(r, m, p.method, meta.subsample);
      if (!v) continue;
      out += std::string(p.name) + "=\"" + num(*v) + "\" ";
    }
    out += "/>\n";
  }
  out += "  </pooled_metrics>\n";
  out += "  <aggregate_metrics ";
  for (const auto& [name, value] : t.aggregates()) out += name + "=\"" + num(value) + "\" ";
  out += "/>\n";
  out += "</VMAF>\n";
}

void json_report(Sink& out, const RunResult& r, const OutputMeta& meta, const NumberFormat& nf) {
  const ScoreTable& t = r.scores;
  const auto num = [&](double v) { return format_number(v, nf, OutputFormat::json); };
  out += "{\n";
  out += "  \"version\": \"" + meta.version + "\",\n";
  out += "  \"fps\": " + format_fps(r.fps, true) + ",\n";
  out += "  \"frames\": [";
  for_each_printed_frame(t, meta.subsample, [&](std::uint64_t i, unsigned written) {
    out += i > 0 ? ",\n" : "\n";
    out += "    {\n";
    out += "      \"frameNum\": " + frame_number(i) + ",\n";
    out += "      \"metrics\": {\n";
    unsigned printed = 0;
    for (std::size_t m = 0; m < t.metric_count(); ++m) {
      const auto v = t.get(m, i);
      if (!v) continue;
      ++printed;
      const char* comma = printed < written ? "," : "";
      if (is_finite(*v))
        out += "        \"" + name_of(t, m) + "\": " + num(*v) + comma + "\n";
      else  // upstream prints no newline after a null
        out += "        \"" + name_of(t, m) + "\": null" + comma;
    }
    out += "      }\n";
    out += "    }";
    out.drain_if_large();
  });
  out += "\n  ],\n";
  out += "  \"pooled_metrics\": {";
  const std::vector<std::size_t> metrics = collected_metrics(t);
  for (std::size_t k = 0; k < metrics.size(); ++k) {
    const std::size_t m = metrics[k];
    out += k > 0 ? ",\n" : "\n";
    out += "    \"" + name_of(t, m) + "\": {";
    for (std::size_t j = 0; j < kPoolOrder.size(); ++j) {
      const auto v = pooled_value(r, m, kPoolOrder[j].method, meta.subsample);
      if (!v) continue;
      out += j > 0 ? ",\n" : "\n";
      out += std::string("      \"") + kPoolOrder[j].name + "\": " + num(*v);
    }
    out += "\n";
    out += "    }";
  }
  out += "\n  },\n";
  out += "  \"aggregate_metrics\": {";
  const auto& aggregates = t.aggregates();
  for (std::size_t a = 0; a < aggregates.size(); ++a) {
    out += "\n    \"" + aggregates[a].first + "\": " + num(aggregates[a].second);
    out += a + 1 < aggregates.size() ? "," : "";
  }
  out += "\n  },\n";
  if (!meta.scaling.empty()) out += "  \"scaling\": \"" + meta.scaling + "\",\n";
  out += std::string("  \"numerics\": \"") + kNumerics + "\"\n";
  out += "}\n";
}

void csv_report(Sink& out, const RunResult& r, const OutputMeta& meta, const NumberFormat& nf) {
  const ScoreTable& t = r.scores;
  out += "Frame,";
  for (const std::size_t m : collected_metrics(t)) out += name_of(t, m) + ",";
  out += "\n";
  for_each_printed_frame(t, meta.subsample, [&](std::uint64_t i, unsigned) {
    out += frame_number(i) + ",";
    for (std::size_t m = 0; m < t.metric_count(); ++m) {
      const auto v = t.get(m, i);
      if (!v) continue;  // upstream leaves no empty cell: later columns shift
      out += format_number(*v, nf, OutputFormat::csv) + ",";
    }
    out += "\n";
    out.drain_if_large();
  });
}

}  // namespace

std::string_view metric_print_name(std::string_view name) {
  for (const NameAlias& a : kNameAliases)
    if (a.name == name) return a.alias;
  return name;
}

std::string sub_report_to_string(const RunResult& r, const OutputMeta& meta,
                                 const NumberFormat& nf) {
  const ScoreTable& t = r.scores;
  Sink out;
  for_each_printed_frame(t, meta.subsample, [&](std::uint64_t i, unsigned) {
    const std::string n = frame_number(i);
    out += '{';
    out += n;
    out += "}{";
    out += frame_number(i + 1);
    out += "}frame: ";
    out += n;
    out += '|';
    for (std::size_t m = 0; m < t.metric_count(); ++m) {
      const auto v = t.get(m, i);
      if (!v) continue;
      // Like XML and CSV, upstream's sub writer prints non-finite via printf.
      out += name_of(t, m) + ": " + format_number(*v, nf, OutputFormat::csv) + "|";
    }
    out += "\n";
  });
  return out.take();
}

namespace {

void write_to(Sink& out, OutputFormat fmt, const RunResult& r, const OutputMeta& meta,
              const NumberFormat& nf) {
  switch (fmt) {
    case OutputFormat::xml: return xml_report(out, r, meta, nf);
    case OutputFormat::json: return json_report(out, r, meta, nf);
    case OutputFormat::csv: return csv_report(out, r, meta, nf);
    case OutputFormat::sub: out += sub_report_to_string(r, meta, nf); return;
  }
  json_report(out, r, meta, nf);
}

}  // namespace
}  // namespace detail

std::string report_to_string(OutputFormat fmt, const RunResult& r, const OutputMeta& meta,
                             const NumberFormat& nf) {
  FpEnvGuard env;  // printf rounds decimals in the current rounding mode
  detail::Sink out;
  detail::write_to(out, fmt, r, meta, nf);
  return out.take();
}

bool write_report(std::FILE* f, OutputFormat fmt, const RunResult& r, const OutputMeta& meta,
                  const NumberFormat& nf) {
  FpEnvGuard env;  // printf rounds decimals in the current rounding mode
  if (f == nullptr) return false;
  detail::Sink out(f);
  detail::write_to(out, fmt, r, meta, nf);
  if (!out.finish()) return false;
  // Buffered data may fail only at flush (disk full, closed pipe).
  if (std::fflush(f) != 0) return false;
  return std::ferror(f) == 0;
}

}  // namespace exactvmaf
