// The CPU executor runs a convolution's own bias (conv2d's third input, ONNX's
// Conv B) inside the oneDNN primitive, before its activation (relu, sigmoid,
// silu, hardswish, gelu: an eltwise post-op) and before a fused residual add,
// equal to the reference.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime/exec/cpu/cpu_graph.h"
#include "tests/cpu_test_support.h"
#include "tests/op_params.h"

namespace superopt {
namespace {

TensorRef ref(NodeId id) {
  return TensorRef{id, 0};
}

// x -> conv2d (with or without its bias [16]).
Graph one_conv(bool bias, int stride, Activation act) {
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 10, 10});
  std::vector<TensorRef> in{ref(x), ref(g.add_weight("w", {16, 8, 3, 3}))};
  if (bias) in.push_back(ref(g.add_weight("b", {16})));
  g.add_output(ref(g.add(OpType::conv2d, in, test::conv(stride, Padding::same, act))));
  return g;
}

TEST_CASE("a biased convolution runs its bias in the primitive", "[cpu]") {
  for (int stride : {1, 2})
    for (Activation act : {Activation::none, Activation::relu, Activation::sigmoid, Activation::silu,
                           Activation::hardswish, Activation::gelu, Activation::relu6}) {
      INFO("stride " << stride << " activation " << activation_name(act));
      cpu::KernelCache cache;
      const Graph biased = one_conv(true, stride, act), plain = one_conv(false, stride, act);
      cpu::CpuGraph with(cache, biased, 3), without(cache, plain, 3);
      CHECK(with.num_launches() == without.num_launches());  // no step of its own for the bias
      test::require_agrees(biased);
    }
}

TEST_CASE("a biased convolution takes a residual add and relu, but not a second bias", "[cpu]") {
  // conv(x, w, b) + r -> relu: one primitive (sum and eltwise post-ops); a
  // per-channel add after a biased convolution stays a step of its own.
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 10, 10});
  NodeId r = g.add_input("r", {1, 16, 10, 10});
  NodeId c =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w", {16, 8, 3, 3})), ref(g.add_weight("b", {16}))},
            test::conv(1, Padding::same));
  g.add_output(ref(g.add(OpType::relu, {ref(g.add(OpType::ewadd, {ref(c), ref(r)}))})));
  NodeId c2 =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w2", {16, 8, 1, 1})), ref(g.add_weight("b2", {16}))},
            test::conv(1, Padding::same));
  g.add_output(ref(g.add(OpType::ewadd, {ref(c2), ref(g.add_weight("b3", {16, 1, 1}))})));
  cpu::KernelCache cache;
  cpu::CpuGraph run(cache, g, 3);
  CHECK(run.num_fused() == 2);  // the residual add and the relu; not b3's add
  test::require_agrees(g);
}

}  // namespace
}  // namespace superopt
