// One exception type for every user-facing failure. Its message is a single
// line that names the input (file, option, feature, device) and the problem.
#pragma once
#include <stdexcept>
#include <string>

// The public API: exported from libexactvmaf.so (the library builds with hidden visibility).
#pragma GCC visibility push(default)

namespace exactvmaf {

class Error : public std::runtime_error {
 public:
  // Control characters (a newline in a file name, an option value or a model
  // file's string) are escaped, so a message is always one line.
  explicit Error(const std::string& what) : std::runtime_error(one_line(what)) {}
  explicit Error(const char* what) : Error(std::string(what)) {}

 private:
  static std::string one_line(const std::string& s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (u < 0x20 || u == 0x7f) out += {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
      else out += c;
    }
    return out;
  }
};

// A failure that is not the input's: a broken internal invariant ("internal:
// ...") or a failing CUDA call ("CUDA: ..."). Tools report it apart from
// input errors (exactvmaf-parity: exit 3).
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace exactvmaf

#pragma GCC visibility pop
