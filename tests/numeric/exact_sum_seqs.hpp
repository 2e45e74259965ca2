// Random and adversarial float/double sequences for the exact-sum tests
// (host and device tests share them).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cr_trig_args.hpp"  // SplitMix64

namespace exactvmaf::test {

inline float float_of_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Kinds of float sequences.
enum class FloatSeq {
  kUniformBits,     // any finite float bit pattern
  kCiedeLike,       // values in [0, 100) like per-pixel ciede2000
  kCancellation,    // big terms that cancel exactly, leaving tiny ones
  kMaxFloat,        // +-FLT_MAX and near it
  kSubnormal,       // subnormal floats, +-
  kTies,            // sums that land on a midpoint between doubles
};

inline const char* float_seq_name(FloatSeq s) {
  switch (s) {
    case FloatSeq::kUniformBits: return "uniform bits";
    case FloatSeq::kCiedeLike: return "ciede-like";
    case FloatSeq::kCancellation: return "cancellation";
    case FloatSeq::kMaxFloat: return "max float";
    case FloatSeq::kSubnormal: return "subnormal";
    case FloatSeq::kTies: return "ties";
  }
  return "?";
}

inline float finite_float(SplitMix64& rng) {
  for (;;) {
    const float f = float_of_bits(static_cast<std::uint32_t>(rng.next()));
    if (f - f == 0.0f) return f;
  }
}

inline std::vector<float> float_sequence(FloatSeq kind, std::size_t n, SplitMix64& rng) {
  std::vector<float> v;
  v.reserve(n);
  const float fmax = std::numeric_limits<float>::max();
  switch (kind) {
    case FloatSeq::kUniformBits:
      for (std::size_t i = 0; i < n; ++i) v.push_back(finite_float(rng));
      break;
    case FloatSeq::kCiedeLike:
      for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<float>(rng.uniform(0.0, 100.0)));
      break;
    case FloatSeq::kCancellation: {
      // pairs x, -x of every magnitude, interleaved with a few tiny terms,
      // then shuffled
      while (v.size() + 2 <= n) {
        const float x = finite_float(rng);
        v.push_back(x);
        v.push_back(-x);
        if ((rng.next() & 15) == 0 && v.size() < n) {
          v.push_back(float_of_bits(static_cast<std::uint32_t>(rng.next() % 64) + 1));  // 2^-149 multiples
        }
      }
      while (v.size() < n) v.push_back(0x1p-149f);
      for (std::size_t i = v.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(rng.next() % i);
        std::swap(v[i - 1], v[j]);
      }
      break;
    }
    case FloatSeq::kMaxFloat:
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t r = static_cast<std::uint32_t>(rng.next());
        float x = (r & 2) ? fmax : float_of_bits(0x7f7fffffu - (r >> 24));
        if (r & 1) x = -x;
        if ((r & 0x1c) == 0) x = 0x1p-149f;  // some tiny ones too
        v.push_back(x);
      }
      break;
    case FloatSeq::kSubnormal:
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t r = static_cast<std::uint32_t>(rng.next());
        float x = float_of_bits(r & 0x007fffffu);
        if (r & 0x80000000u) x = -x;
        v.push_back(x);
      }
      break;
    case FloatSeq::kTies:
      // 1 + k 2^-53 style: a big term, then small ones summing to exactly
      // half an ulp of the result (and sometimes one more 2^-149).
      for (std::size_t i = 0; i < n; ++i) {
        switch (i % 4) {
          case 0: v.push_back(static_cast<float>(1 + (rng.next() % 1000))); break;
          case 1: v.push_back(0x1p-45f); break;
          case 2: v.push_back(-0x1p-46f); break;
          default: v.push_back((rng.next() & 7) == 0 ? 0x1p-149f : 0.0f); break;
        }
      }
      break;
  }
  return v;
}

}  // namespace exactvmaf::test
