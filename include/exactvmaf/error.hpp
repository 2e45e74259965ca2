// One exception type for every user-facing failure. Its message is a single
// line that names the input (file, option, feature, device) and the problem.
#pragma once
#include <stdexcept>
#include <string>

namespace exactvmaf {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure that is not the input's: a broken internal invariant ("internal:
// ...") or a failing CUDA call ("CUDA: ..."). Tools report it apart from
// input errors (exactvmaf-parity: exit 3).
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace exactvmaf
