// libFuzzer harness: ONNX models (runtime/formats/onnx_read.h), read by every
// command that takes a model; the bytes become a .onnx file our reader opens.
#include "runtime/formats/onnx_read.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace superopt;
  std::string path = fuzz::input_file(data, size, "model.onnx");
  fuzz::expect_clean([&] { read_onnx_file(path); });
  return 0;
}
