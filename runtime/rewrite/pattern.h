// One side of a rule compiled for matching and building: its nodes in dependency
// order, which are variables (rule inputs and weights), constants and operators.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/core/fixed_vector.h"
#include "runtime/core/graph.h"
#include "runtime/rewrite/shape_facts.h"

namespace superopt {

// A tensor of a pattern: output `port` of pattern node `node`.
struct PatternTensor {
  int node = -1;
  int port = 0;
  bool operator==(const PatternTensor&) const = default;
};

// Larger rule sides are not matched (the matcher's state has a fixed size).
inline constexpr int kMaxPatternNodes = 24;

enum class PatternKind : uint8_t { variable, constant, op };

struct PatternNode {
  PatternKind kind = PatternKind::op;
  OpType op = OpType::input;
  // Interned: a pattern node's parameters are one of few (the operator set's
  // variants and the sources' shapes), and inline they were half its size.
  uint32_t params_id = 0;
  const OpParams& params() const;
  void set_params(const OpParams& params);
  std::vector<PatternTensor> inputs;
  int variable = -1;  // variables: index into Pattern::variable_names
  // The shapes the rule was found at, per output: constants re-derive their
  // shapes from them, and the verifier draws the family from them.
  FixedVector<Shape, kMaxOutputs> rule_shapes;  // inline: an index holds millions
  ShapeFacts facts;                             // what a model's node must fit (shape_facts.h)
};

struct Pattern {
  std::vector<PatternNode> nodes;  // every node after its inputs
  std::vector<PatternTensor> outputs;
  std::vector<std::string> variable_names;
  // Operators and constants in matching order: the first is the anchor (the
  // producer of the first output), each later one touches an earlier one
  // directly or through a shared variable.
  std::vector<int> match_order;
  int num_operators = 0;
  // The rule's size family (size_family.h) by variable index and axis: the
  // dimensions of each class have one size wherever the rule is applied.
  std::vector<std::vector<std::pair<int, int>>> equal_sizes;

  OpType anchor_op() const { return nodes[match_order.front()].op; }
  bool is_output(PatternTensor t) const;
};

// Compiles one side of a rule. `variables` names the variables in the order
// Pattern::variable_names should follow (pass the other side's names so that
// both sides index variables alike; new names are appended).
Pattern compile_pattern(const Graph& side, std::vector<std::string> variables = {});

// A rule that only merges groups of grouped convolutions (its sides have conv2d,
// relu and merge_groups only; the source has grouped, non-depthwise convolutions
// and no merge_groups; the target merges) holds for every multiple of the rule's
// groups: a convolution with m times the groups is m such convolutions side by
// side on contiguous channel blocks, and merge_groups acts block by block. Marks
// the convolutions of both sides so; returns whether it did.
bool mark_group_scaling(Pattern& source, Pattern& target);

// Why a rule side cannot be used as a source (matched in a model), or nullopt
// when it can: it must have an operator, and be connected through its
// operators and shared variables. Opaque operators never match.
std::optional<std::string> unmatchable_reason(const Pattern& p);

}  // namespace superopt
