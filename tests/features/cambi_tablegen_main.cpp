// cambi_tablegen            print src/features/cambi/cambi_reciprocal_table.hpp
// cambi_tablegen --check F  exit 0 when F equals the generated text
#include "cambi_tablegen.hpp"
#include "support/tablegen.hpp"

int main(int argc, char** argv) {
  return exactvmaf::test::tablegen_main(argc, argv, exactvmaf::test::generate_cambi_reciprocal_table());
}
