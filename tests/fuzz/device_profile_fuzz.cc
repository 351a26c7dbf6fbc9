// libFuzzer harness: device profiles (runtime/cost/analytic_cost.h), the JSON
// files of data/devices/ read by `--cost analytic:FILE`. A profile that reads
// also costs a small graph (convolution, matrix product, element-wise), as
// `optimize` would with it.
#include "runtime/cost/analytic_cost.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

superopt::Graph costed_graph() {
  using namespace superopt;
  Graph g;
  NodeId x = g.add_input("x", {1, 16, 8, 8});
  NodeId w = g.add_weight("w", {32, 16, 3, 3});
  NodeId c = g.add(OpType::conv2d, {{x}, {w}});
  NodeId r = g.add(OpType::relu, {{c}});
  NodeId a = g.add_input("a", {64, 32});
  NodeId b = g.add_weight("b", {32, 128});
  NodeId m = g.add(OpType::matmul, {{a}, {b}});
  g.set_outputs({{r}, {m}});
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace superopt;
  std::string path = fuzz::input_file(data, size, "device.json");
  static const Graph graph = costed_graph();
  fuzz::expect_clean([&] {
    AnalyticCostModel model("analytic:fuzz.json", read_device_profile(path));
    graph_cost_ms(graph, model);
  });
  return 0;
}
