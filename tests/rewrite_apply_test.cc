// The rewrite engine's rule application (runtime/rewrite/): the cycle check
// (TASO Figure 6), building the target, constants' shapes, derived parameters.
#include <catch2/catch.hpp>
#include <optional>

#include "runtime/rewrite/rewrite.h"
#include "search/numerical_check.h"
#include "tests/rewrite_fixture.h"

using namespace superopt;
using namespace superopt::search;
using namespace superopt::test;

TEST_CASE("a substitution that would create a cycle is rejected (TASO Figure 6)") {
  Rule rule = merge_matmuls_rule();
  Graph g;
  NodeId x = g.add_input("x", {4, 4});
  NodeId w1 = g.add_weight("w1", {4, 4});
  NodeId y1 = g.add(OpType::matmul, {{x}, {w1}});
  NodeId w2 = g.add(OpType::relu, {{y1}});  // the second matmul's weight depends on the first
  NodeId y2 = g.add(OpType::matmul, {{x}, {w2}});
  g.add_output({y2});
  g.add_output({y1});
  DirectedRule d = compile_rule(rule, 0).at(0);
  std::vector<Match> m = find_matches(g, GraphIndex(g), d.source);
  REQUIRE(m.size() == 2);
  for (const Match& match : m) {
    RewriteFailure why = RewriteFailure::none;
    CHECK_FALSE(apply_rule(g, match, d, &why));
    CHECK(why == RewriteFailure::cycle);
  }
}

TEST_CASE("applying a rule builds the target, keeps outputs aligned and shapes generic") {
  Rule rule = merge_matmuls_rule();
  Graph g;
  NodeId x = g.add_input("x", {64, 256});
  NodeId w1 = g.add_weight("w1", {256, 128});
  NodeId w2 = g.add_weight("w2", {256, 32});
  NodeId a = g.add(OpType::relu, {{g.add(OpType::matmul, {{x}, {w1}})}});
  NodeId b = g.add(OpType::tanh, {{g.add(OpType::matmul, {{x}, {w2}})}});
  g.add_output({a});
  g.add_output({b});
  DirectedRule d = compile_rule(rule, 0).at(0);
  std::vector<Match> m = find_matches(g, GraphIndex(g), d.source);
  REQUIRE(m.size() == 2);
  std::optional<Graph> out = apply_rule(g, m[0], d);
  REQUIRE(out);
  CHECK(out->shape(out->outputs()[0]) == Shape{64, 128});
  CHECK(out->shape(out->outputs()[1]) == Shape{64, 32});
  CHECK(out->num_operators() == 5);  // concat, matmul, split, relu, tanh
  CHECK(numerical_check(g, *out, 7, int64_t(1) << 40).passed);
}

TEST_CASE("target constants get their shapes from the tensors they meet") {
  // x = matmul(x, I): the identity's size comes from x's columns.
  Rule r;
  for (Graph* side : {&r.source, &r.target}) side->add_input("x", {2, 4});
  r.source.add_output({r.source.add(OpType::relu, {{0}})});
  OpParams eye;
  eye.shape = {4, 4};
  NodeId i = r.target.add(OpType::i_matmul, {}, eye);
  r.target.add_output({r.target.add(OpType::relu, {{r.target.add(OpType::matmul, {{0}, {i}})}})});
  Graph g;
  NodeId x = g.add_input("x", {3, 7});
  g.add_output({g.add(OpType::relu, {{x}})});
  DirectedRule d = compile_rule(r, 0).at(0);
  std::vector<Match> m = find_matches(g, GraphIndex(g), d.source);
  REQUIRE(m.size() == 1);
  std::optional<Graph> out = apply_rule(g, m[0], d);
  REQUIRE(out);
  bool found = false;
  for (const Node& n : out->nodes())
    if (n.op == OpType::i_matmul) found = n.output(0).shape == Shape{7, 7};
  CHECK(found);
  CHECK(numerical_check(g, *out, 3, int64_t(1) << 40).passed);
}

TEST_CASE("a group-merging rule matches every even group count and derives merge_groups' parameters") {
  Rule rule = merge_groups_rule();
  Graph g;
  NodeId x = g.add_input("x", {1, 64, 6, 6});
  NodeId grouped = g.add(OpType::conv2d, {{x}, {g.add_weight("w32", {64, 2, 3, 3})}}, conv_params());
  NodeId dense3 = g.add(OpType::conv2d, {{grouped}, {g.add_weight("w1", {64, 64, 3, 3})}}, conv_params());
  NodeId dense = g.add(OpType::conv2d, {{dense3}, {g.add_weight("w1b", {63, 64, 1, 1})}}, conv_params());
  NodeId three = g.add(OpType::conv2d, {{dense}, {g.add_weight("w3", {63, 21, 1, 1})}}, conv_params());
  g.add_output({three});
  std::vector<Match> m = forward_matches(g, rule);
  REQUIRE(m.size() == 1);  // 32 groups; not 1 (dense) nor 3 groups
  CHECK(m[0].nodes[m[0].nodes.size() - 1] == grouped);
  DirectedRule d = compile_rule(rule, 0).at(0);
  std::optional<Graph> out = apply_rule(g, m[0], d);
  REQUIRE(out);
  bool found = false;
  for (const Node& n : out->nodes())
    if (n.op == OpType::merge_groups) {
      found = true;
      CHECK(n.params.groups == 32);
      CHECK(n.params.into == 16);
      CHECK(n.output(0).shape == Shape{64, 4, 3, 3});
    }
  CHECK(found);
  CHECK(numerical_check(g, *out, 5, int64_t(1) << 40).passed);
  // Applied again, to the merged kernel: 16 groups into 8, reading merge_groups' output.
  std::vector<Match> again = forward_matches(*out, rule);
  REQUIRE(again.size() == 1);
  std::optional<Graph> twice = apply_rule(*out, again[0], d);
  REQUIRE(twice);
  int merges = 0;
  for (const Node& n : twice->nodes())
    if (n.op == OpType::merge_groups) merges += n.params.groups == 16 && n.params.into == 8;
  CHECK(merges == 1);
  CHECK(numerical_check(g, *twice, 6, int64_t(1) << 40).passed);
}
