// Building a rule side over tensors of a graph: what apply_rule does to the
// target, and what rule instances (rule_instance.h) do to both sides. Constants
// re-derive their shapes from the tensors they meet, merge_groups its parameters.
#pragma once

#include <string_view>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/rewrite/matcher.h"
#include "runtime/rewrite/pattern.h"

namespace superopt {

enum class RewriteFailure { none, shapes, constant_shape, derived_params, cycle };
std::string_view failure_name(RewriteFailure f);

// Adds the operators and constants of `side` to g, reading the tensors m binds
// to its variables. merge_groups' parameters are derived from the shapes for a
// target; a source (built as a rule instance) keeps the literal ones, which is
// what the matcher asks of it.
class TargetBuilder {
 public:
  TargetBuilder(Graph& g, const Match& m, const Pattern& side, bool derive_merge_params = true);

  // RewriteFailure::shapes when an operator's (or a constant's) inputs do not
  // fit, without a throw: rule families try many shapes that do not fit.
  RewriteFailure build();

  // The tensor built for (or bound to) a pattern tensor.
  TensorRef at(PatternTensor t) const { return built_[t.node * kMaxOutputs + t.port]; }

 private:
  Graph& g_;
  const Match& m_;
  const Pattern& t_;
  bool derive_merge_params_;
  std::vector<TensorRef> built_;
};

}  // namespace superopt
