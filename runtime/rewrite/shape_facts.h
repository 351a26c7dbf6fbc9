// A rule's family of shapes, written down once: what a rule side's node asks of
// a model's node beyond its operator and parameters. The matcher admits exactly
// the nodes that fit these facts, and the verifier checks a rule over exactly
// this family (rule_instance.h draws its members), so that what is proved is
// what is applied.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/fixed_vector.h"
#include "runtime/core/graph.h"

namespace superopt {

struct ShapeFacts {
  // Per output: ranks are pinned (a rule found at 2-D says nothing of 4-D).
  FixedVector<int8_t, kMaxOutputs> output_ranks;  // inline: an index holds millions
  // conv2d: the rule's group count is pinned (the proof carries it), or its
  // kind: dense (1) or depthwise (groups = input channels, one channel each).
  int64_t groups = 1;
  bool depthwise = false;
  // conv2d of a rule that only merges groups (mark_group_scaling): any multiple
  // of `groups`, since merge_groups' parameters are re-derived at each occurrence.
  bool any_group_multiple = false;
  // ewadd/ewmul: both inputs had one shape in the rule (no broadcasting).
  bool same_shape_inputs = false;
  // ewmul/smul over one-element tensors only: the prover's own symbols
  // (verify/tensor_theory.h), whose axioms hold for one-element tensors only.
  bool one_element_inputs = false;
  // C_pool and I_conv: the kernel size is what the constant means (an average
  // over 3x3 is not one over 3x7), so it is pinned; 0 elsewhere.
  int64_t kernel_h = 0, kernel_w = 0;

  bool operator==(const ShapeFacts&) const = default;
};

// The facts of node n of a rule side, from its concrete shapes.
ShapeFacts shape_facts(const Graph& side, const Node& n);

// Whether node n of graph g (same operator and parameters) is in the family.
bool shapes_fit(const ShapeFacts& facts, const Graph& g, const Node& n);

}  // namespace superopt
