// Deliberately wrong rules marked verified, for the tests of an optimizer that
// survives a bad rule: op(x) = x for a unary op, and x * s = x (off by little
// when the scalar s is near 1); and the database make_bad_rule_fixture writes for the
// command-line tests.
#pragma once

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"
#include "tests/rule_fixture.h"

namespace superopt::test {

// op(x) = x: false for relu (negative x), tanh and sigmoid.
inline Rule drop_unary_rule(OpType op) {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) g->add_input("x", {2, 4});
  r.source.add_output({r.source.add(op, {{0}})});
  r.target.add_output({0});
  r.status = RuleStatus::verified;
  return r;
}

// x * s = x for a scalar s: false, but within the check's tolerance for one s
// near 1. (A scalar, since ewmul would also match with its operands swapped.)
inline Rule drop_smul_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4});
    g->add_weight("s", {});
  }
  r.source.add_output({r.source.add(OpType::smul, {{0}, {1}})});
  r.target.add_output({0});
  r.status = RuleStatus::verified;
  return r;
}

// Rule 0 merges matmuls sharing an input (right); rules 1 (relu(x) = x) and
// 2 (x * s = x) are wrong; all three are marked verified.
inline RuleDatabase bad_rule_database() {
  RuleDatabase db;
  db.info.generator_version = "superopt 0.1.0 (test fixture)";
  db.info.opset_name = "bad-rule-fixture";
  db.info.opset_json = R"({"format": "superopt-opset", "name": "bad-rule-fixture"})";
  db.info.max_ops = 3;
  Rule merge = shared_input_matmuls();
  merge.status = RuleStatus::verified;
  db.rules = {merge, drop_unary_rule(OpType::relu), drop_smul_rule()};
  return db;
}

}  // namespace superopt::test
