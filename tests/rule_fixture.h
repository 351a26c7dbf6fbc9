// Rules built by hand for the rule database tests and the `db` command tests:
// TASO's Figure 2 substitutions plus a refuted and an unknown one.
#pragma once

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"

namespace superopt::test {

inline OpParams on_axis(int axis) {
  OpParams p;
  p.axis = axis;
  return p;
}

// (x w1) w2 = x (w1 w2)
inline Rule matmul_associativity() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {4, 8});
    g->add_weight("w1", {8, 16});
    g->add_weight("w2", {16, 32});
  }
  NodeId m1 = r.source.add(OpType::matmul, {{0}, {1}}, {}, "m1");
  r.source.add_output({r.source.add(OpType::matmul, {{m1}, {2}}, {}, "m2")});
  NodeId w12 = r.target.add(OpType::matmul, {{1}, {2}}, {}, "w12");
  r.target.add_output({r.target.add(OpType::matmul, {{0}, {w12}}, {}, "m")});
  r.fingerprint = 0x0123456789abcdefull;
  r.status = RuleStatus::verified;
  r.proof_ms = 12.5;
  return r;
}

// Two matmuls sharing an input = one matmul with the weights concatenated,
// split afterwards; the outputs stay aligned (y1 with split:0, y2 with split:1).
inline Rule shared_input_matmuls() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {4, 8});
    g->add_weight("w1", {8, 16});
    g->add_weight("w2", {8, 16});
  }
  r.source.add_output({r.source.add(OpType::matmul, {{0}, {1}}, {}, "y1")});
  r.source.add_output({r.source.add(OpType::matmul, {{0}, {2}}, {}, "y2")});
  NodeId cat = r.target.add(OpType::concat, {{1}, {2}}, on_axis(1), "w");
  NodeId mm = r.target.add(OpType::matmul, {{0}, {cat}}, {}, "y");
  NodeId sp = r.target.add(OpType::split, {{mm}}, on_axis(1), "sp");
  r.target.add_output({sp, 0});
  r.target.add_output({sp, 1});
  r.fingerprint = 0xfedcba9876543210ull;
  r.status = RuleStatus::candidate;
  return r;
}

// relu(x + y) = relu(x) + relu(y) is false: a counterexample is the note.
inline Rule relu_over_add() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 2});
    g->add_input("y", {2, 2});
  }
  NodeId sum = r.source.add(OpType::ewadd, {{0}, {1}}, {}, "sum");
  r.source.add_output({r.source.add(OpType::relu, {{sum}}, {}, "r")});
  NodeId rx = r.target.add(OpType::relu, {{0}}, {}, "rx");
  NodeId ry = r.target.add(OpType::relu, {{1}}, {}, "ry");
  r.target.add_output({r.target.add(OpType::ewadd, {{rx}, {ry}}, {}, "s")});
  r.fingerprint = 42;
  r.status = RuleStatus::refuted;
  r.proof_ms = 0.25;
  r.note = "x = [[1, -1], [0, 0]], y = [[-1, 1], [0, 0]]: source 0, target 1";
  return r;
}

// relu(x * s) = relu(x) * s with a weight that carries data; unproved.
inline Rule scaled_relu() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 3});
    g->add_weight("s", {}, {0.5f});
  }
  NodeId scaled = r.source.add(OpType::smul, {{0}, {1}}, {}, "xs");
  r.source.add_output({r.source.add(OpType::relu, {{scaled}}, {}, "out")});
  NodeId rx = r.target.add(OpType::relu, {{0}}, {}, "rx");
  r.target.add_output({r.target.add(OpType::smul, {{rx}, {1}}, {}, "out")});
  r.fingerprint = 7;
  r.status = RuleStatus::unknown;
  r.proof_ms = 1000;
  r.note = "timeout after 1000 ms";
  return r;
}

inline RuleDatabase fixture_database() {
  RuleDatabase db;
  db.info.generator_version = "superopt 0.1.0 (test fixture)";
  db.info.opset_name = "taso-figure-2";
  db.info.opset_json = R"({"format": "superopt-opset", "name": "taso-figure-2"})";
  db.info.max_ops = 3;
  db.info.seed = 0xffffffffffffffffull;  // the largest seed must survive
  db.info.arguments = "superopt enum --opset figure2.json --max-ops 3";
  db.info.stage_counts = {{"candidates", 10}, {"fingerprint_pairs", 6}, {"pruned", 4}};
  db.rules = {matmul_associativity(), shared_input_matmuls(), relu_over_add(), scaled_relu()};
  return db;
}

}  // namespace superopt::test
