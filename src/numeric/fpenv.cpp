#include "numeric/fpenv.hpp"

#include <cfenv>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <xmmintrin.h>
#define EXACTVMAF_FPENV_X86 1
#endif

namespace exactvmaf {

namespace {
#if defined(EXACTVMAF_FPENV_X86)
constexpr std::uint32_t kMxcsrFtz = 1u << 15;
constexpr std::uint32_t kMxcsrDaz = 1u << 6;
constexpr std::uint32_t kMxcsrRounding = 3u << 13;
#elif defined(__aarch64__)
constexpr std::uint64_t kFpcrFz = 1ull << 24;
constexpr std::uint64_t kFpcrRounding = 3ull << 22;
std::uint64_t read_fpcr() {
  std::uint64_t v;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
  return v;
}
void write_fpcr(std::uint64_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v)); }
#endif
}  // namespace

FpEnvState fpenv_save() {
  FpEnvState s;
  s.rounding = std::fegetround();
#if defined(EXACTVMAF_FPENV_X86)
  s.control = _mm_getcsr();
#elif defined(__aarch64__)
  s.control = read_fpcr();
#endif
  return s;
}

void fpenv_restore(const FpEnvState& s) {
  std::fesetround(s.rounding);
#if defined(EXACTVMAF_FPENV_X86)
  _mm_setcsr(static_cast<unsigned>(s.control));
#elif defined(__aarch64__)
  write_fpcr(s.control);
#endif
}

void fpenv_set_reference() {
  std::fesetround(FE_TONEAREST);
#if defined(EXACTVMAF_FPENV_X86)
  _mm_setcsr(_mm_getcsr() & ~(kMxcsrFtz | kMxcsrDaz | kMxcsrRounding));
#elif defined(__aarch64__)
  write_fpcr(read_fpcr() & ~(kFpcrFz | kFpcrRounding));
#endif
}

bool fpenv_is_reference() {
  if (std::fegetround() != FE_TONEAREST) return false;
#if defined(EXACTVMAF_FPENV_X86)
  return (_mm_getcsr() & (kMxcsrFtz | kMxcsrDaz | kMxcsrRounding)) == 0;
#elif defined(__aarch64__)
  return (read_fpcr() & (kFpcrFz | kFpcrRounding)) == 0;
#else
  return true;
#endif
}

}  // namespace exactvmaf
