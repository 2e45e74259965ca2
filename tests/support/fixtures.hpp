// Test helpers: the fixture manifest, golden files, bit comparison.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exactvmaf/exactvmaf.hpp"

namespace exactvmaf::test {

inline std::filesystem::path source_dir() { return EXACTVMAF_SOURCE_DIR; }
inline std::filesystem::path fixtures_dir() { return source_dir() / "tests" / "fixtures"; }
inline std::filesystem::path golden_dir() { return source_dir() / "tests" / "golden"; }

struct FixturePair {
  std::string name;
  std::filesystem::path ref, dist;
  RawParams raw;
  std::string container;
  unsigned frames = 0;
};

inline std::vector<FixturePair> fixture_pairs() {
  std::ifstream in(fixtures_dir() / "manifest.json");
  std::vector<FixturePair> out;
  if (!in) return out;
  const auto j = nlohmann::json::parse(in);
  for (const auto& p : j.at("pairs")) {
    FixturePair f;
    f.name = p.at("name");
    f.ref = fixtures_dir() / p.at("ref").get<std::string>();
    f.dist = fixtures_dir() / p.at("dist").get<std::string>();
    f.raw.width = p.at("width");
    f.raw.height = p.at("height");
    const std::string pf = p.at("pixel_format");
    f.raw.pix_fmt = pf == "444" ? PixelFormat::yuv444 : pf == "422" ? PixelFormat::yuv422 : PixelFormat::yuv420;
    f.raw.bitdepth = p.at("bitdepth");
    f.container = p.at("container");
    f.frames = p.at("frames");
    out.push_back(f);
  }
  return out;
}

inline std::optional<FixturePair> fixture_pair(const std::string& name) {
  for (auto& p : fixture_pairs())
    if (p.name == name) return p;
  return std::nullopt;
}

inline std::unique_ptr<VideoReader> open_fixture(const FixturePair& p, bool ref) {
  const auto& path = ref ? p.ref : p.dist;
  if (p.container == "y4m") return open_video(path.string(), std::nullopt);
  return open_video(path.string(), p.raw);
}

// Runs features (libvmaf --feature syntax) over a fixture pair.
inline RunResult run_fixture(const FixturePair& p, const std::vector<std::string>& features, RunOptions opts = {}) {
  auto ref = open_fixture(p, true);
  auto dist = open_fixture(p, false);
  std::vector<FeatureRequest> req;
  for (const auto& f : features) req.push_back(parse_feature_request(f));
  return run(*ref, *dist, std::move(req), opts);
}

// Bitwise equality; every NaN equals every NaN (compared as a class).
inline bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// A golden value: a JSON number, or null meaning "not finite" upstream.
inline std::optional<double> json_number(const nlohmann::json& v) {
  if (v.is_null()) return std::nullopt;
  return v.get<double>();
}

inline nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

}  // namespace exactvmaf::test
