// The CPU executor runs a linear layer (issue 36) as one oneDNN matmul: its own
// bias and activation inside the primitive (bias and an eltwise post-op), a
// residual add after it as a sum post-op, and no second bias; equal to the
// reference.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime/exec/cpu/cpu_graph.h"
#include "tests/cpu_test_support.h"

namespace superopt {
namespace {

TensorRef ref(NodeId id) {
  return TensorRef{id, 0};
}

OpParams with(Activation a) {
  OpParams p;
  p.activation = a;
  return p;
}

// x [2,7,16] -> linear to 24 columns; with_residual: + r, the layer without activation.
Graph one_linear(Activation act, bool with_residual) {
  Graph g;
  NodeId x = g.add_input("x", {2, 7, 16});
  NodeId l = g.add(OpType::linear, {ref(x), ref(g.add_weight("w", {16, 24})), ref(g.add_weight("b", {24}))},
                   with(act));
  if (!with_residual) {
    g.add_output(ref(l));
    return g;
  }
  g.add_output(ref(g.add(OpType::ewadd, {ref(l), ref(g.add_input("r", {2, 7, 24}))})));
  return g;
}

TEST_CASE("a linear layer runs its bias and activation in the matmul primitive", "[cpu]") {
  for (Activation act : {Activation::none, Activation::relu, Activation::sigmoid, Activation::silu,
                         Activation::hardswish, Activation::gelu, Activation::relu6}) {
    INFO("activation " << activation_name(act));
    cpu::KernelCache cache;
    const Graph g = one_linear(act, false);
    cpu::CpuGraph run(cache, g, 3);
    CHECK(run.num_launches() == 1);  // no step for the bias or the activation
    test::require_agrees(g);
  }
}

TEST_CASE("a linear layer takes a residual add, but not a second bias", "[cpu]") {
  {
    cpu::KernelCache cache;
    const Graph g = one_linear(Activation::none, true);
    cpu::CpuGraph run(cache, g, 3);
    CHECK(run.num_fused() == 1);  // the residual add, as a sum post-op
    test::require_agrees(g);
  }
  // A row bias after a linear layer stays a step of its own, and so does an add
  // after a layer with its own activation (the activation comes first).
  Graph g;
  NodeId x = g.add_input("x", {2, 7, 16});
  NodeId l = g.add(OpType::linear, {ref(x), ref(g.add_weight("w", {16, 24})), ref(g.add_weight("b", {24}))});
  g.add_output(ref(g.add(OpType::ewadd, {ref(l), ref(g.add_weight("b2", {24}))})));
  NodeId a = g.add(OpType::linear, {ref(x), ref(g.add_weight("w3", {16, 24})), ref(g.add_weight("b3", {24}))},
                   with(Activation::gelu));
  g.add_output(ref(g.add(OpType::ewadd, {ref(a), ref(g.add_input("r", {2, 7, 24}))})));
  cpu::KernelCache cache;
  cpu::CpuGraph run(cache, g, 3);
  CHECK(run.num_fused() == 0);
  test::require_agrees(g);
}

}  // namespace
}  // namespace superopt
