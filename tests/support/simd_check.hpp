// The SIMD harness of every feature's kernel table (docs/design.md §7;
// dav1d's tests/checkasm is the model): KernelTableCheck calls one entry of
// the table of every SIMD level this CPU runs and the scalar table's entry on
// the same inputs, compares what they produced bit for bit and reports the
// first difference; when it ends it fails unless every entry of the table
// was checked. The inputs come from the test (random values and the edge
// patterns of random_values); expect_levels_agree runs a whole feature at
// every level against scalar.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "exactvmaf/run.hpp"
#include "exactvmaf/simd.hpp"
#include "support/fixtures.hpp"

namespace exactvmaf::test {

// Caps the process-wide SIMD level while it lives.
struct SimdLimit {
  explicit SimdLimit(SimdLevel l) { set_simd_limit(l); }
  ~SimdLimit() { set_simd_limit(SimdLevel::avx512); }
  SimdLimit(const SimdLimit&) = delete;
  SimdLimit& operator=(const SimdLimit&) = delete;
};

// The levels above scalar this CPU runs.
inline std::vector<SimdLevel> simd_levels() {
  std::vector<SimdLevel> out;
  for (SimdLevel l : {SimdLevel::avx2, SimdLevel::avx512}) {
    SimdLimit cap(l);
    if (simd_level() == l) out.push_back(l);
  }
  return out;
}

// Value patterns: the full range at random, small values, an extreme
// checkerboard of lo and hi (wrapping and saturation paths), and a mix of
// all of them with zeros.
enum class Fill { full, small, extreme, mixed };
inline constexpr Fill all_fills[] = {Fill::full, Fill::small, Fill::extreme, Fill::mixed};

template <class T>
std::vector<T> random_values(std::size_t n, Fill fill, std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  std::vector<T> v(n);
  std::uniform_int_distribution<std::int64_t> full(lo, hi), small(-300, 300), coin(0, 3);
  for (std::size_t k = 0; k < n; ++k) {
    std::int64_t x = 0;
    switch (fill) {
      case Fill::full: x = full(rng); break;
      case Fill::small: x = small(rng); break;
      case Fill::extreme: x = ((k + k / 7) & 1) ? hi : lo; break;
      case Fill::mixed: {
        const std::int64_t c = coin(rng);
        x = c == 0 ? full(rng) : c == 1 ? small(rng) : c == 2 ? (full(rng) & 1 ? hi : lo) : 0;
        break;
      }
    }
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    v[k] = static_cast<T>(x);
  }
  return v;
}

namespace simd_check_detail {

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};

template <class Tuple, std::size_t... I>
std::string tuple_difference(const Tuple& a, const Tuple& b, std::index_sequence<I...>);

// Where a and b differ bit for bit, or "" (floats compared by their bits,
// any NaN equal to any NaN).
template <class T>
std::string first_difference(const T& a, const T& b) {
  if constexpr (std::is_arithmetic_v<T>) {
    bool same;
    if constexpr (std::is_floating_point_v<T>) same = (a != a && b != b) || std::memcmp(&a, &b, sizeof a) == 0;
    else same = a == b;
    if (same) return {};
    std::ostringstream s;
    s << +a << " vs scalar " << +b;
    return s.str();
  } else if constexpr (is_vector<T>::value) {
    if (a.size() != b.size()) return "size " + std::to_string(a.size()) + " vs scalar " + std::to_string(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string d = first_difference(a[i], b[i]);
      if (!d.empty()) return "[" + std::to_string(i) + "] " + d;
    }
    return {};
  } else {
    static_assert(is_tuple<T>::value, "an entry's outputs: numbers, vectors of them, or a tuple of those");
    return tuple_difference(a, b, std::make_index_sequence<std::tuple_size_v<T>>{});
  }
}

template <class Tuple, std::size_t... I>
std::string tuple_difference(const Tuple& a, const Tuple& b, std::index_sequence<I...>) {
  std::string d;
  const auto one = [&](std::size_t k, const std::string& e) {
    if (d.empty() && !e.empty()) d = "output " + std::to_string(k) + " " + e;
  };
  (one(I, first_difference(std::get<I>(a), std::get<I>(b))), ...);
  return d;
}

}  // namespace simd_check_detail

template <class Kernels>
class KernelTableCheck {
 public:
  // The tables: struct Kernels { const char* name; function pointers... }.
  static constexpr std::size_t entries = (sizeof(Kernels) - sizeof(const char*)) / sizeof(void (*)());
  static_assert((sizeof(Kernels) - sizeof(const char*)) % sizeof(void (*)()) == 0,
                "a kernel table holds its name and function pointers only");

  // kernels_for: the feature's table of a level (the scalar table at scalar).
  explicit KernelTableCheck(const Kernels& (*kernels_for)(SimdLevel)) : scalar_(&kernels_for(SimdLevel::scalar)) {
    for (SimdLevel l : simd_levels()) {
      const Kernels* t = &kernels_for(l);
      bool seen = t == scalar_;
      for (const Kernels* u : tables_) seen = seen || u == t;
      if (!seen) tables_.push_back(t);
    }
  }
  ~KernelTableCheck() {
    EXPECT_EQ(covered_.size(), entries) << scalar_->name << " table: " << entries - covered_.size()
                                        << " of its " << entries << " entries were never checked";
  }
  KernelTableCheck(const KernelTableCheck&) = delete;
  KernelTableCheck& operator=(const KernelTableCheck&) = delete;

  // False when this CPU runs no table but the scalar one.
  bool has_simd() const { return !tables_.empty(); }

  // run(fn) calls fn (a table entry) on inputs fixed by the caller and
  // returns its outputs; each SIMD table's entry must give the scalar
  // entry's bits. `entry` and `inputs` name the case in a failure. Returns
  // false after a difference.
  template <class Fn, class Run>
  bool check(const char* entry, Fn Kernels::*member, const std::string& inputs, Run&& run) {
    covered_.insert(static_cast<std::size_t>(reinterpret_cast<const char*>(&(scalar_->*member)) -
                                             reinterpret_cast<const char*>(scalar_)));
    if (tables_.empty()) return true;
    const auto want = run(scalar_->*member);
    bool ok = true;
    for (const Kernels* t : tables_) {
      const std::string d = simd_check_detail::first_difference(run(t->*member), want);
      if (d.empty()) continue;
      ok = false;
      ADD_FAILURE() << t->name << " " << entry << " (" << inputs << "): " << d;
    }
    ++checks_;
    return ok;
  }

  std::uint64_t checks() const { return checks_; }

 private:
  const Kernels* scalar_;
  std::vector<const Kernels*> tables_;  // the SIMD tables this CPU runs, each once
  std::set<std::size_t> covered_;       // entries checked (offsets in the table)
  std::uint64_t checks_ = 0;
};

// run() (a whole run of the feature) at every SIMD level this CPU runs gives
// the bits of the run at scalar: every frame value and aggregate, same names.
template <class Run>
void expect_levels_agree(Run&& run, const std::string& what) {
  RunResult base;
  {
    SimdLimit cap(SimdLevel::scalar);
    base = run();
  }
  for (SimdLevel level : simd_levels()) {
    SimdLimit cap(level);
    const RunResult r = run();
    ASSERT_EQ(r.frames, base.frames) << what;
    ASSERT_EQ(r.scores.metric_count(), base.scores.metric_count()) << what;
    for (std::size_t id = 0; id < base.scores.metric_count(); ++id) {
      ASSERT_EQ(r.scores.metric_name(id), base.scores.metric_name(id)) << what;
      for (std::uint64_t f = 0; f < base.frames; ++f) {
        const auto a = r.scores.get(id, f), b = base.scores.get(id, f);
        ASSERT_EQ(a.has_value(), b.has_value()) << what;
        if (a) {
          ASSERT_TRUE(same_bits(*a, *b)) << what << " " << simd_level_name(level) << " "
                                         << base.scores.metric_name(id) << " frame " << f << ": " << *a
                                         << " vs scalar " << *b;
        }
      }
    }
    ASSERT_EQ(r.scores.aggregates().size(), base.scores.aggregates().size()) << what;
    for (std::size_t k = 0; k < base.scores.aggregates().size(); ++k)
      ASSERT_TRUE(same_bits(r.scores.aggregates()[k].second, base.scores.aggregates()[k].second))
          << what << " " << simd_level_name(level) << " " << base.scores.aggregates()[k].first;
  }
}

}  // namespace exactvmaf::test
