// The operators the torchvision zoo brought (issue 36) on the oneDNN CPU
// executor: each runs on primitives, never the reference kernel, and agrees
// with the reference in double on the executor's own inputs.
#include <catch2/catch.hpp>

#include "tests/cpu_test_support.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// x -> op -> relu: the op's output meets another operator. Extra inputs are weights.
Graph unary_graph(OpType op, const Shape& x, const OpParams& p = {}, std::vector<Shape> weights = {}) {
  Graph g;
  std::vector<TensorRef> in = {{g.add_input("x", x), 0}};
  for (size_t i = 0; i < weights.size(); ++i)
    in.push_back(
        {g.add_weight(std::string("w").append(std::to_string(i)), weights[i]), 0});  // GCC 12 -Wrestrict
  NodeId y = g.add(op, std::span<const TensorRef>(in), p);
  g.add_output({g.add(OpType::relu, {TensorRef{y, 0}}), 0});
  return g;
}

void require_runs(const Graph& g) {
  require_primitives(g);
  require_agrees(g);
}

}  // namespace

TEST_CASE("zoo activations run as oneDNN eltwise primitives", "[cpu]") {
  for (OpType op : {OpType::hardsigmoid, OpType::hardswish, OpType::silu, OpType::gelu, OpType::relu6}) {
    INFO(op_name(op));
    require_runs(unary_graph(op, Shape{2, 3, 5, 4}));
  }
  Graph root;  // on relu's non-negative output: random inputs would give NaN
  const NodeId x = root.add_input("x", Shape{2, 3, 5, 4});
  const NodeId r = root.add(OpType::relu, {TensorRef{x, 0}});
  root.add_output({root.add(OpType::sqrt, {TensorRef{r, 0}}), 0});
  require_runs(root);
  OpParams clip;
  clip.lo = -0.25f;
  clip.hi = 0.5f;
  require_runs(unary_graph(OpType::clip, Shape{2, 3, 5, 4}, clip));
  clip.lo = -INFINITY;
  require_runs(unary_graph(OpType::clip, Shape{7, 9}, clip));
}

TEST_CASE("layer_norm over the last one or two dimensions", "[cpu]") {
  OpParams p;
  p.axis = 2;
  p.epsilon = 1e-6f;
  require_runs(unary_graph(OpType::layer_norm, Shape{2, 5, 8}, p, {Shape{8}, Shape{8}}));
  p.axis = 1;
  require_runs(unary_graph(OpType::layer_norm, Shape{2, 5, 8}, p, {Shape{5, 8}, Shape{5, 8}}));
}

TEST_CASE("resize, slice, reduce_mean, expand", "[cpu]") {
  OpParams r;
  r.shape = Shape{1, 3, 11, 6};
  require_runs(unary_graph(OpType::resize, Shape{1, 3, 4, 5}, r));
  r.shape = Shape{2, 3, 2};
  require_runs(unary_graph(OpType::resize, Shape{2, 7, 5}, r));
  OpParams s;
  s.axis = 1;
  s.begin = 1;
  s.end = 3;
  require_runs(unary_graph(OpType::slice, Shape{2, 4, 3}, s));
  OpParams m;
  m.axes = 0b1100;
  require_runs(unary_graph(OpType::reduce_mean, Shape{2, 3, 4, 5}, m));
  OpParams e;
  e.shape = Shape{2, 3, 4, 5};
  require_runs(unary_graph(OpType::expand, Shape{3, 1, 5}, e));
}

TEST_CASE("pad runs as a host copy, not the reference kernel", "[cpu]") {
  OpParams p;
  p.pads = {1, 0, 2, 1};
  p.value = -INFINITY;
  CHECK(kernel_of(unary_graph(OpType::pad, Shape{2, 3, 4, 5}, p), 1).algorithm == "host:pad");
  p.value = 0.5f;
  require_runs(unary_graph(OpType::pad, Shape{2, 3, 4, 5}, p));
  require_runs(unary_graph(OpType::pad, Shape{3, 4, 5}, p));
}

TEST_CASE("subtraction and division broadcast their second operand", "[cpu]") {
  for (OpType op : {OpType::ewsub, OpType::ewdiv}) {
    INFO(op_name(op));
    Graph g;
    NodeId x = g.add_input("x", Shape{2, 3, 4});
    NodeId w = g.add_weight("w", Shape{3, 1});
    g.add_output({g.add(op, {TensorRef{x, 0}, TensorRef{w, 0}}), 0});
    require_primitives(g);
    require_agrees(g);
  }
}
