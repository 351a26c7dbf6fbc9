// GPU test: whole models on the GPU against the CPU reference, `run` timing,
// and operator measurement into a cost table that CostTable::read reads back.
// Exits 77 (CTest: skipped) without a CUDA device.
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/cost/cost_table.h"
#include "runtime/exec/cuda/op_timer.h"
#include "runtime/models/model_zoo.h"
#include "tests/gpu_test_support.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::test;

TEST_CASE("every operator of whole models agrees with the CPU reference on its GPU inputs", "[gpu]") {
  for (const char* name : {"squeezenet", "resnet_blocks:1", "inceptione_blocks:1", "nasrnn", "bert"}) {
    cuda::NodeCheck check = gpu_node_check(build_builtin_model(name), 3);
    INFO(name << ": worst node " << check.worst_node << ", worst weight " << check.worst_weight);
    CHECK(check.worst_node_error < 1e-4);
    CHECK(check.worst_weight_error < 1e-6);  // float rounding of the double reference values
  }
}

TEST_CASE("convolutional models agree with the CPU reference end to end", "[gpu]") {
  // Not BERT: with random weights its activations reach 1e19 and its softmaxes saturate, so FP32
  // rounding of near-tied logits may move an output by O(1); the per-node test above covers it.
  for (const char* name : {"squeezenet", "resnet_blocks:1", "inceptione_blocks:1"}) {
    INFO(name);
    CHECK(gpu_relative_error(build_builtin_model(name), 3) < 1e-3);
  }
}

TEST_CASE("run reports ordered latencies and a passing check", "[gpu]") {
  GpuOptions options;
  options.repeats = 10;
  GpuRunReport r = gpu_run_graph(build_builtin_model("resnet_blocks:1"), options, true, true);
  CHECK(r.launches > 0);
  CHECK(r.repeats == 10);
  CHECK(0 < r.p10_ms);
  CHECK(r.p10_ms <= r.median_ms);
  CHECK(r.median_ms <= r.p90_ms);
  CHECK(r.checked);
  CHECK(r.node_error < 1e-4);
  CHECK(r.weight_error < 1e-6);
  CHECK(r.output_error < 1e-3);
  CHECK_FALSE(r.worst_node.empty());
  CHECK(r.op_summed);
  CHECK(r.op_sum_ms > 0);
  CHECK_FALSE(r.device.empty());
}

TEST_CASE("measure writes a table that reads back, and skips what it has", "[gpu]") {
  TempDir dir;
  std::vector<Graph> graphs;
  graphs.push_back(build_builtin_model("squeezenet"));
  GpuOptions options;
  options.warmup = 2;
  options.repeats = 5;
  CostTable table;
  table.info = gpu_table_info();
  int calls = 0;
  int measured = gpu_measure(graphs, table, options, [&](const std::string&, const CostEntry&) { ++calls; });
  CHECK(measured == calls);
  REQUIRE(measured > 0);
  CHECK(table.size() == size_t(measured));
  table.write(dir.file("costs.h5"));
  CostTable back = CostTable::read(dir.file("costs.h5"));
  CHECK(back.size() == table.size());
  CHECK(back.info.device == table.info.device);
  bool saw_cudnn = false;
  for (const auto& [signature, entry] : back.entries()) {
    CHECK(entry.cost_ms > 0);
    CHECK(entry.repeats == 5);
    if (signature.starts_with("conv2d|")) saw_cudnn = entry.algorithm.starts_with("cudnn:");
  }
  CHECK(saw_cudnn);
  CHECK(gpu_measure(graphs, back, options, [](const std::string&, const CostEntry&) {}) == 0);
}

TEST_CASE("the gpu cost model measures once per signature and caches", "[gpu]") {
  std::unique_ptr<GpuCostModel> model = make_gpu_cost_model(GpuOptions{2, 5, false, 1});
  Graph g = build_builtin_model("resnet_blocks:1");
  double first = graph_cost_ms(g, *model);
  size_t entries = model->measured().size();
  CHECK(first > 0);
  CHECK(entries > 0);
  CHECK(graph_cost_ms(g, *model) == first);  // cached: the same numbers
  CHECK(model->measured().size() == entries);
}

TEST_CASE("a column-major matmul signature is measured in that layout", "[gpu]") {
  Graph g;
  NodeId a = g.add_input("a", {8, 64, 32}), b = g.add_input("b", {8, 32, 16});
  NodeId mm = g.add(OpType::matmul, {TensorRef{a, 0}, TensorRef{b, 0}});
  cuda::GpuContext ctx;
  std::string row = op_signature(g, mm);
  std::string col = row.substr(0, row.size() - 3) + "col";
  CHECK(cuda::measure_node(ctx, g, mm, row, 1, 3).algorithm.find(" row ") != std::string::npos);
  CHECK(cuda::measure_node(ctx, g, mm, col, 1, 3).algorithm.find(" col ") != std::string::npos);
}

int main(int argc, char** argv) {
  return superopt::test::run_gpu_tests(argc, argv);
}
