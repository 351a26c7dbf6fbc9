// libFuzzer harness: operator sets (enum/opset.h), the reader of `enumerate --opset`.
#include "enum/opset.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  superopt::fuzz::expect_clean(
      [&] { superopt::enumeration::parse_opset(superopt::fuzz::as_text(data, size), "fuzz.json"); });
  return 0;
}
