// cr_trig_tablegen            print src/numeric/cr_trig_tables.hpp
// cr_trig_tablegen --check F  exit 0 when F equals the generated text
#include "cr_trig_tablegen.hpp"
#include "support/tablegen.hpp"

int main(int argc, char** argv) {
  return exactvmaf::test::tablegen_main(argc, argv, exactvmaf::test::generate_cr_trig_tables());
}
