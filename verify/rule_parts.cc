// Splitting a rule into the rules of its independent parts (see rule_parts.h).
#include "verify/rule_parts.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "runtime/rewrite/output_rule.h"

namespace superopt::verify {
namespace {

bool is_leaf(const Node& n) {
  return n.op == OpType::input || n.op == OpType::weight || is_constant(n.op);
}

int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// For each output of g, its part (numbered by first output); nullopt when an
// output is a leaf (it has no part).
std::optional<std::vector<int>> output_groups(const Graph& g) {
  const std::vector<int> part = operator_parts(g);
  std::vector<int> group_of_part(g.num_nodes(), -1), groups;
  int next = 0;
  for (TensorRef t : g.outputs()) {
    if (part[t.node] < 0) return std::nullopt;
    int& group = group_of_part[part[t.node]];
    if (group < 0) group = next++;
    groups.push_back(group);
  }
  return groups;
}

// g computing only the outputs of group `group`.
Graph part_of(const Graph& g, const std::vector<int>& groups, int group) {
  std::vector<int> outputs;
  for (size_t k = 0; k < groups.size(); ++k)
    if (groups[k] == group) outputs.push_back(int(k));
  return graph_of_outputs(g, outputs);
}

}  // namespace

std::vector<int> operator_parts(const Graph& g) {
  std::vector<int> parent(g.num_nodes());
  std::iota(parent.begin(), parent.end(), 0);
  for (NodeId n = 0; n < g.num_nodes(); ++n)
    for (TensorRef t : g.node(n).inputs())
      if (!is_leaf(g.node(t.node))) parent[find_root(parent, n)] = find_root(parent, t.node);
  std::vector<int> part(g.num_nodes(), -1);
  for (NodeId n = 0; n < g.num_nodes(); ++n)
    if (!is_leaf(g.node(n))) part[n] = find_root(parent, n);
  return part;
}

std::vector<Rule> rule_parts(const Rule& rule) {
  const std::optional<std::vector<int>> source = output_groups(rule.source);
  const std::optional<std::vector<int>> target = output_groups(rule.target);
  // Groups are numbered by their first output, so equal vectors mean the
  // same grouping of outputs on both sides.
  if (!source || !target || *source != *target) return {};
  const int num_groups = source->empty() ? 0 : *std::max_element(source->begin(), source->end()) + 1;
  if (num_groups < 2) return {};
  std::vector<Rule> parts;
  for (int group = 0; group < num_groups; ++group) {
    Rule part;
    part.source = part_of(rule.source, *source, group);
    part.target = part_of(rule.target, *target, group);
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace superopt::verify
