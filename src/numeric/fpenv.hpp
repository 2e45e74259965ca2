// docs/design.md §2 rule 5: library entry points and worker threads compute with
// round-to-nearest and subnormals honoured (FTZ = DAZ = 0), whatever the
// calling application set; the caller's state is restored on exit.
#pragma once
#include <cstdint>
#include "numeric/no_libm.hpp"  // last: poisons the libm names

namespace exactvmaf {

struct FpEnvState {
  int rounding = 0;            // fegetround()
  std::uint64_t control = 0;   // MXCSR on x86-64, FPCR on AArch64
};

FpEnvState fpenv_save();
void fpenv_restore(const FpEnvState& s);
// Round to nearest, FTZ = DAZ = 0 (x86-64), FZ = 0 (AArch64).
void fpenv_set_reference();
// True when the current thread computes as fpenv_set_reference() leaves it.
bool fpenv_is_reference();

class FpEnvGuard {
 public:
  FpEnvGuard() : saved_(fpenv_save()) { fpenv_set_reference(); }
  ~FpEnvGuard() { fpenv_restore(saved_); }
  FpEnvGuard(const FpEnvGuard&) = delete;
  FpEnvGuard& operator=(const FpEnvGuard&) = delete;

 private:
  FpEnvState saved_;
};

}  // namespace exactvmaf
