// Rules built by hand for the rewrite-engine and search tests (MetaFlow's and
// TASO's substitutions), and the forward occurrences of a rule in a graph.
#pragma once

#include <catch2/catch.hpp>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"
#include "runtime/rewrite/rewrite.h"
#include "tests/op_params.h"

namespace superopt::test {

inline OpParams conv_params(int stride = 1, Activation act = Activation::none) {
  OpParams p;
  p.stride_h = p.stride_w = stride;
  p.activation = act;
  return p;
}

inline OpParams kernel(int k) {
  OpParams p;
  p.kernel_h = p.kernel_w = k;
  return p;
}

inline Rule verified(Rule r) {
  r.status = RuleStatus::verified;
  return r;
}

// conv(x, w) = conv(x, enlarge(w)): a 1x1 kernel padded to 3x3.
inline Rule enlarge_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4, 5, 5});
    g->add_weight("w", {4, 4, 1, 1});
  }
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {1}}, conv_params())});
  NodeId big = r.target.add(OpType::enlarge, {{1}}, kernel(3));
  r.target.add_output({r.target.add(OpType::conv2d, {{0}, {big}}, conv_params())});
  return verified(r);
}

// conv(x, w1), conv(x, w2) = split(conv(x, concat(w1, w2))).
inline Rule merge_convs_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4, 5, 5});
    g->add_weight("w1", {4, 4, 3, 3});
    g->add_weight("w2", {4, 4, 3, 3});
  }
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {1}}, conv_params())});
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {2}}, conv_params())});
  NodeId cat = r.target.add(OpType::concat, {{1}, {2}}, axis(0));
  NodeId conv = r.target.add(OpType::conv2d, {{0}, {cat}}, conv_params());
  NodeId split = r.target.add(OpType::split, {{conv}}, axis(1));
  r.target.add_output({split, 0});
  r.target.add_output({split, 1});
  return verified(r);
}

// matmul(x, w1), matmul(x, w2) = split(matmul(x, concat(w1, w2))) (TASO Figure 2).
inline Rule merge_matmuls_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4});
    g->add_weight("w1", {4, 4});
    g->add_weight("w2", {4, 4});
  }
  r.source.add_output({r.source.add(OpType::matmul, {{0}, {1}})});
  r.source.add_output({r.source.add(OpType::matmul, {{0}, {2}})});
  NodeId cat = r.target.add(OpType::concat, {{1}, {2}}, axis(1));
  NodeId mm = r.target.add(OpType::matmul, {{0}, {cat}});
  NodeId split = r.target.add(OpType::split, {{mm}}, axis(1));
  r.target.add_output({split, 0});
  r.target.add_output({split, 1});
  return verified(r);
}

// relu(conv(x, w)) = conv_relu(x, w).
inline Rule conv_relu_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4, 5, 5});
    g->add_weight("w", {4, 4, 3, 3});
  }
  NodeId c = r.source.add(OpType::conv2d, {{0}, {1}}, conv_params());
  r.source.add_output({r.source.add(OpType::relu, {{c}})});
  r.target.add_output({r.target.add(OpType::conv2d, {{0}, {1}}, conv_params(1, Activation::relu))});
  return verified(r);
}

// conv(i, kg) with 2 groups = conv(i, merge_groups[groups=2, into=1](kg)), as enumerated.
inline Rule merge_groups_rule(Activation act = Activation::none) {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("i", {2, 4, 5, 5});
    g->add_weight("kg", {4, 2, 3, 3});
  }
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {1}}, conv_params(1, act))});
  OpParams merge;
  merge.groups = 2;
  merge.into = 1;
  NodeId m = r.target.add(OpType::merge_groups, {{1}}, merge);
  r.target.add_output({r.target.add(OpType::conv2d, {{0}, {m}}, conv_params(1, act))});
  return verified(r);
}

// The occurrences of the rule's forward direction (source to target) in g.
inline std::vector<Match> forward_matches(const Graph& g, const Rule& rule) {
  DirectedRule d = compile_rule(rule, 0).at(0);
  REQUIRE_FALSE(d.reversed);
  return find_matches(g, GraphIndex(g), d.source);
}

}  // namespace superopt::test
