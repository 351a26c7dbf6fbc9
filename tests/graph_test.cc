// The graph IR: building, canonical hashing, exact equality, editing and cycle detection.
#include <catch2/catch.hpp>

#include <functional>

#include "runtime/core/error.h"
#include "runtime/core/graph.h"
#include "runtime/core/graph_hash.h"

using namespace superopt;
using Catch::Contains;

namespace {

OpParams conv_params(Activation act = Activation::none) {
  OpParams p;
  p.activation = act;
  return p;
}

// A small block with a shared input, a concat/split pair and two outputs.
// `reverse` inserts the independent nodes in the opposite order, so node ids differ.
Graph sample(bool reverse, Activation act_a = Activation::relu) {
  Graph g;
  NodeId x = g.add_input("x", {1, 4, 8, 8});
  NodeId w1 = reverse ? -1 : g.add_weight("w1", {4, 4, 3, 3});
  NodeId w2 = g.add_weight("w2", {4, 4, 1, 1});
  if (reverse) w1 = g.add_weight("w1", {4, 4, 3, 3});
  NodeId a, b;
  if (!reverse) {
    a = g.add(OpType::conv2d, {{x, 0}, {w1, 0}}, conv_params(act_a));
    b = g.add(OpType::conv2d, {{x, 0}, {w2, 0}}, conv_params());
  } else {
    b = g.add(OpType::conv2d, {{x, 0}, {w2, 0}}, conv_params());
    a = g.add(OpType::conv2d, {{x, 0}, {w1, 0}}, conv_params(act_a));
  }
  OpParams axis1;
  axis1.axis = 1;
  NodeId cat = g.add(OpType::concat, {{a, 0}, {b, 0}}, axis1);
  NodeId sp = g.add(OpType::split, {{cat, 0}}, axis1);
  NodeId sum = g.add(OpType::ewadd, {{sp, 0}, {sp, 1}});
  g.add_output({sum, 0});
  g.add_output({sp, 1});
  return g;
}

}  // namespace

TEST_CASE("graphs copy as plain values", "[graph]") {
  Graph g = sample(false);
  Graph copy = g;
  copy.add(OpType::relu, {copy.outputs()[0]});
  REQUIRE(copy.num_nodes() == g.num_nodes() + 1);
  REQUIRE(g.num_operators() == 5);
  REQUIRE(g.shape({6, 1}) == Shape{1, 4, 8, 8});
}

TEST_CASE("building checks inputs and shapes", "[graph]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 4});
  NodeId w = g.add_weight("w", {3, 4});
  REQUIRE_THROWS_WITH(g.add(OpType::matmul, {{x, 0}, {w, 0}}), Contains("inner dimensions"));
  REQUIRE_THROWS_WITH(g.add(OpType::relu, {{x, 1}}), Contains("not a tensor of the graph"));
  REQUIRE_THROWS_WITH(g.add(OpType::relu, {{7, 0}}), Contains("not a tensor of the graph"));
  REQUIRE_THROWS_WITH(g.add_input("", {2}), Contains("needs a name"));
  REQUIRE_THROWS_WITH(g.add_weight("v", {2, 2}, {1, 2, 3}), Contains("3 values for shape 2x2"));
  NodeId v = g.add_weight("v", {2, 2}, {1, 2, 3, 4});
  REQUIRE(g.weight_data(v)->at(3) == 4.0f);
  REQUIRE(g.weight_data(w) == nullptr);
}

TEST_CASE("the canonical hash does not depend on node numbering", "[graph][hash]") {
  Graph a = sample(false), b = sample(true);
  REQUIRE(a.node(1).name != b.node(1).name);  // really numbered differently
  REQUIRE(canonical_hash(a) == canonical_hash(b));
  REQUIRE(structurally_equal(a, b));
  REQUIRE(structurally_equal(b, a));
}

TEST_CASE("the canonical hash changes with every real edit", "[graph][hash]") {
  const Graph base = sample(false);
  const uint64_t h = canonical_hash(base);
  auto changed = [&](const std::function<void(Graph&)>& edit) {
    Graph g = base;
    edit(g);
    INFO("edited graph");
    CHECK(canonical_hash(g) != h);
    CHECK_FALSE(structurally_equal(base, g));
  };
  const NodeId x = 0, w1 = 1, conv_a = 3, conv_b = 4, cat = 5, sp = 6, sum = 7;
  changed([&](Graph& g) { g = sample(false, Activation::none); });  // a parameter
  changed([&](Graph& g) {
    g.set_input(cat, 0, {conv_b, 0}), g.set_input(cat, 1, {conv_a, 0});
  });                                                                           // input order
  changed([&](Graph& g) { g.set_input(sum, 1, {sp, 0}); });                     // a port
  changed([&](Graph& g) { g.set_input(conv_b, 1, {w1, 0}); });                  // an input
  changed([&](Graph& g) { g.add(OpType::relu, {{x, 0}}); });                    // an extra node
  changed([&](Graph& g) { g.set_outputs({g.outputs()[1], g.outputs()[0]}); });  // output order
  changed([&](Graph& g) { g.set_outputs({g.outputs()[0]}); });                  // fewer outputs
  changed([&](Graph& g) {                                                       // a renamed input
    Graph r;
    r.add_input("y", {1, 4, 8, 8});
    for (NodeId i = 1; i < g.num_nodes(); ++i) {
      const Node& n = g.node(i);
      if (n.op == OpType::weight)
        r.add_weight(n.name.str(), n.params.shape);
      else
        r.add(n.op, n.inputs(), n.params);
    }
    r.set_outputs(g.outputs());
    g = r;
  });
}

TEST_CASE("equal hashes are confirmed exactly", "[graph][hash]") {
  // Same multiset of node computations but different outputs: only outputs differ.
  Graph a = sample(false);
  Graph b = a;
  b.set_outputs({a.outputs()[0], {a.outputs()[1].node, 0}});
  REQUIRE_FALSE(structurally_equal(a, b));
  // Different node counts are never equal.
  Graph c = a;
  c.add(OpType::relu, {{0, 0}});
  REQUIRE_FALSE(structurally_equal(a, c));
}

TEST_CASE("cycles are detected and named", "[graph][cycle]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 2});
  NodeId a = g.add(OpType::relu, {{x, 0}}, {}, "a");
  NodeId b = g.add(OpType::tanh, {{a, 0}}, {}, "b");
  NodeId c = g.add(OpType::ewadd, {{b, 0}, {x, 0}}, {}, "c");
  g.add_output({c, 0});
  REQUIRE_FALSE(g.has_cycle());
  REQUIRE(g.find_cycle().empty());
  auto order = g.topological_order();
  REQUIRE(order);
  REQUIRE(order->size() == 4);

  g.set_input(a, 0, {c, 0});  // a -> b -> c -> a
  REQUIRE(g.has_cycle());
  std::vector<NodeId> cycle = g.find_cycle();
  REQUIRE(cycle.size() == 4);
  REQUIRE(cycle.front() == cycle.back());
  REQUIRE_THROWS_WITH(g.infer_shapes(), Contains("cycle"));

  Graph self;
  NodeId y = self.add_input("y", {2});
  NodeId r = self.add(OpType::relu, {{y, 0}});
  self.set_input(r, 0, {r, 0});
  REQUIRE(self.find_cycle() == std::vector<NodeId>{r, r});
}

TEST_CASE("editing: replace uses, re-infer shapes, remove unused nodes", "[graph]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 4});
  NodeId w = g.add_weight("w", {4, 4});
  NodeId mm = g.add(OpType::matmul, {{x, 0}, {w, 0}});
  NodeId r = g.add(OpType::relu, {{mm, 0}});
  g.add_output({r, 0});
  NodeId id = g.add(OpType::i_matmul, {}, [] {
    OpParams p;
    p.shape = {4, 4};
    return p;
  }());
  NodeId mm2 = g.add(OpType::matmul, {{mm, 0}, {id, 0}});
  g.replace_uses({mm, 0}, {mm2, 0});
  g.set_input(mm2, 0, {mm, 0});  // mm2 itself still reads mm
  REQUIRE(g.node(r).inputs()[0] == TensorRef{mm2, 0});
  g.infer_shapes();
  REQUIRE(g.shape({r, 0}) == Shape{2, 4});

  // Bypass mm2 again: it and the identity become unused and are dropped.
  g.replace_uses({mm2, 0}, {mm, 0});
  g.set_input(mm2, 0, {mm, 0});
  g.remove_unused();
  REQUIRE(g.num_nodes() == 4);
  REQUIRE(g.node(g.outputs()[0].node).op == OpType::relu);
  REQUIRE(g.node(g.node(g.outputs()[0].node).inputs()[0].node).op == OpType::matmul);

  // infer_shapes follows edits, and reports a shape that no longer fits.
  Graph h;
  NodeId a = h.add_input("a", {4, 4});
  NodeId b = h.add_input("b", {3, 4});
  NodeId s = h.add(OpType::relu, {{a, 0}});
  NodeId t = h.add(OpType::matmul, {{s, 0}, {a, 0}});
  h.set_input(s, 0, {b, 0});
  h.infer_shapes();
  REQUIRE(h.shape({t, 0}) == Shape{3, 4});
  h.set_input(t, 1, {b, 0});
  REQUIRE_THROWS_WITH(h.infer_shapes(), Contains("inner dimensions differ (inputs 3x4, 3x4)"));
}

TEST_CASE("deep graphs hash and compare without recursion", "[graph][hash]") {
  // A chain deep enough to overflow the stack of a recursive comparison.
  auto chain = [](int length) {
    Graph g;
    NodeId last = g.add_input("x", {2});
    for (int i = 0; i < length; ++i) last = g.add(i % 2 ? OpType::relu : OpType::tanh, {{last, 0}});
    g.add_output({last, 0});
    return g;
  };
  Graph a = chain(250000), b = chain(250000);
  REQUIRE(canonical_hash(a) == canonical_hash(b));
  REQUIRE(structurally_equal(a, b));
  REQUIRE_FALSE(structurally_equal(a, chain(249999)));
}
