// The rewrite engine's matching (runtime/rewrite/): operator parameters, ranks
// and group kinds, mapped outputs, and variables bound to one tensor.
#include <catch2/catch.hpp>

#include "runtime/rewrite/matcher.h"
#include "runtime/rewrite/rewrite.h"
#include "tests/rewrite_fixture.h"

using namespace superopt;
using namespace superopt::test;

TEST_CASE("matching respects parameters, ranks and group kinds") {
  Rule rule = conv_relu_rule();
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 6, 6});
  NodeId w = g.add_weight("w", {8, 8, 3, 3});
  NodeId dw = g.add_weight("dw", {8, 1, 3, 3});
  NodeId strided = g.add(OpType::conv2d, {{x}, {w}}, conv_params(2));
  NodeId fused = g.add(OpType::conv2d, {{x}, {w}}, conv_params(1, Activation::relu));
  NodeId depthwise = g.add(OpType::conv2d, {{x}, {dw}}, conv_params());
  NodeId plain = g.add(OpType::conv2d, {{x}, {w}}, conv_params());
  for (NodeId c : {strided, fused, depthwise, plain}) g.add_output({g.add(OpType::relu, {{c}})});
  std::vector<Match> m = forward_matches(g, rule);
  REQUIRE(m.size() == 1);  // stride 2, an activation already fused and a depthwise kernel do not match
  CHECK(m[0].nodes[m[0].nodes.size() - 2] == plain);
}

TEST_CASE("an intermediate used outside the occurrence must be a mapped output") {
  Rule rule = conv_relu_rule();
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 6, 6});
  NodeId w = g.add_weight("w", {8, 8, 3, 3});
  NodeId c = g.add(OpType::conv2d, {{x}, {w}}, conv_params());
  g.add_output({g.add(OpType::relu, {{c}})});
  CHECK(forward_matches(g, rule).size() == 1);
  g.add_output({g.add(OpType::tanh, {{c}})});  // the convolution is read outside the match
  CHECK(forward_matches(g, rule).empty());
}

TEST_CASE("a variable used twice must match the same tensor") {
  Rule rule = merge_matmuls_rule();
  Graph g;
  NodeId x = g.add_input("x", {8, 16});
  NodeId y = g.add_input("y", {8, 16});
  NodeId w1 = g.add_weight("w1", {16, 4});
  NodeId w2 = g.add_weight("w2", {16, 4});
  g.add_output({g.add(OpType::matmul, {{x}, {w1}})});
  g.add_output({g.add(OpType::matmul, {{y}, {w2}})});
  CHECK(forward_matches(g, rule).empty());
  g.add_output({g.add(OpType::matmul, {{x}, {w2}})});
  CHECK(forward_matches(g, rule).size() == 2);  // (first, third) and (third, first)
}
