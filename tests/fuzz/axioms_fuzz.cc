// libFuzzer harness: axiom files (verify/axiom_set.h), the reader of
// `verify --axioms` and `verify-axioms --axioms`.
#include "tests/fuzz/fuzz_support.h"
#include "verify/axiom_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  superopt::fuzz::expect_clean(
      [&] { superopt::verify::parse_axioms(superopt::fuzz::as_text(data, size), "fuzz.ax"); });
  return 0;
}
