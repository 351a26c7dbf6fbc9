// libFuzzer harness: graph files (runtime/formats/graph_json.h), the reader
// `graph check`, `graph run` and `optimize` use. A graph that reads must also
// write and read back (the writer's promise), or the harness aborts.
#include <cstdlib>

#include "runtime/formats/graph_json.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace superopt;
  fuzz::expect_clean([&] {
    NamedGraph read = read_named_graph_json(fuzz::as_text(data, size), "fuzz.json");
    std::string written;
    try {
      written = write_graph_json(read.graph, read.name);
    } catch (const Error&) {
      return;  // weight data JSON cannot hold (NaN, inf): refused, documented
    }
    try {
      read_named_graph_json(written, "written.json");
    } catch (const Error&) {
      abort();  // a graph we wrote does not read back
    }
  });
  return 0;
}
