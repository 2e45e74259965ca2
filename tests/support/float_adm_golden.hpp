// float_adm's one exception to comparing with its goldens (used by the
// float_adm tests and the fp64-emulation test).
#pragma once
#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "exactvmaf/run.hpp"

namespace exactvmaf::test {

// Upstream leaves aim uninitialised where the denominator vanishes (the
// flat pair with adm_noise_weight=0: den = 0 on every frame); R reports 0.
// Such aim values are removed from the golden, each checked to be 0.
inline bool is_aim(const std::string& n) { return n == "aim" || n.rfind("aim_", 0) == 0; }

inline nlohmann::json without_uninitialised_aim(nlohmann::json g, const RunResult& ours, std::size_t* checked) {
  bool any = false;
  for (auto& f : g.at("frames")) {
    const std::uint64_t i = f.at("frameNum");
    auto& m = f.at("metrics");
    std::string den_name;
    for (const auto& [k, v] : m.items())
      if (k.rfind("adm_den", 0) == 0 && k.find("scale") == std::string::npos) den_name = k;
    if (den_name.empty() || !m.at(den_name).is_number() || m.at(den_name).get<double>() != 0.0) continue;
    for (auto it = m.begin(); it != m.end();) {
      if (is_aim(it.key())) {
        const auto id = ours.scores.find_metric(it.key());
        EXPECT_TRUE(id && *ours.scores.get(*id, i) == 0.0) << it.key() << " frame " << i;
        ++*checked;
        it = m.erase(it);
        any = true;
      } else {
        ++it;
      }
    }
  }
  if (any)
    for (auto it = g.at("pooled_metrics").begin(); it != g.at("pooled_metrics").end();)
      it = is_aim(it.key()) ? g.at("pooled_metrics").erase(it) : std::next(it);
  return g;
}

}  // namespace exactvmaf::test
