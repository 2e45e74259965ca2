// cr_trig_tablegen            print src/numeric/cr_trig_tables.hpp
// cr_trig_tablegen --check F  exit 0 when F equals the generated text
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cr_trig_tablegen.hpp"

int main(int argc, char** argv) {
  const std::string text = exactvmaf::test::generate_cr_trig_tables();
  if (argc == 3 && std::strcmp(argv[1], "--check") == 0) {
    std::ifstream in(argv[2], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot open\n", argv[2]);
      return 2;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (ss.str() != text) {
      std::fprintf(stderr, "%s: differs from the generator's output\n", argv[2]);
      return 1;
    }
    std::printf("%s: up to date\n", argv[2]);
    return 0;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--check FILE]\n", argv[0]);
    return 2;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
