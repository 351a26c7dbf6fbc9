// Building rules by hand for the verifier's tests: both sides over the same
// named inputs and weights.
#pragma once

#include <initializer_list>

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"
#include "tests/op_params.h"

namespace superopt::test {

struct RuleBuilder {
  Graph source, target;
  // Adds the same named input (or weight) to both sides.
  std::pair<TensorRef, TensorRef> input(const char* name, Shape shape, bool weight = false) {
    NodeId a = weight ? source.add_weight(name, shape) : source.add_input(name, shape);
    NodeId b = weight ? target.add_weight(name, shape) : target.add_input(name, shape);
    return {{a, 0}, {b, 0}};
  }
  Rule rule() {
    Rule r;
    r.source = source;
    r.target = target;
    return r;
  }
};

inline TensorRef op(Graph& g, OpType type, std::initializer_list<TensorRef> in, OpParams p = {}) {
  return {g.add(type, in, p), 0};
}

}  // namespace superopt::test
