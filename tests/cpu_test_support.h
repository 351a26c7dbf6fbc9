// What the CPU executor tests share: run a graph on oneDNN and check it against
// the reference in double, and find which nodes would run the reference kernel.
#pragma once

#include <catch2/catch.hpp>

#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_model.h"
#include "runtime/exec/cpu/cpu_check.h"
#include "runtime/exec/cpu/cpu_graph.h"
#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::test {

// Runs g on the backend and checks every operator on its own inputs, every
// folded weight and the outputs against the reference in double.
inline cpu::CpuCheck run_and_check(const Graph& g) {
  cpu::KernelCache cache;
  cpu::CpuGraph graph(cache, g, 3);
  graph.run();
  graph.run();  // a second run must give the same values (no state left between runs)
  return cpu::check_against_reference(g, graph, 3);
}

inline void require_agrees(const Graph& g, double tolerance = 1e-5) {
  cpu::CpuCheck c = run_and_check(g);
  INFO("worst node " << c.worst_node << ", worst weight " << c.worst_weight << ", worst output "
                     << c.worst_output);
  CHECK(c.node_error < tolerance);
  CHECK(c.weight_error < 1e-6);
  CHECK(c.output_error < tolerance * 10);
  CHECK(c.nodes_beyond_float == 0);
}

// The kernel node `id` gets with row-major inputs.
inline cpu::NodeKernel kernel_of(const Graph& g, NodeId id) {
  std::vector<cpu::memory::desc> given;
  std::array<bool, kMaxInputs> weight{};
  const std::vector<bool> weight_only = weight_only_nodes(g);
  for (size_t i = 0; i < g.node(id).inputs().size(); ++i) {
    given.push_back(cpu::plain_desc(g.shape(g.node(id).inputs()[i])));
    weight[i] = weight_only[g.node(id).inputs()[i].node];
  }
  return cpu::build_kernel(g, id, given, std::span<const bool>(weight.data(), given.size()));
}

// Every operator node of g runs on oneDNN primitives, none on the reference kernel.
inline void require_primitives(const Graph& g) {
  const std::vector<bool> weight_only = weight_only_nodes(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (weight_only[id] || runs_no_kernel(g, id)) continue;
    INFO(op_signature(g, id));
    CHECK_FALSE(kernel_of(g, id).algorithm.starts_with("reference:"));
  }
}

}  // namespace superopt::test
