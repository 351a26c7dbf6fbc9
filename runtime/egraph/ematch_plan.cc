// The selective matching order and the replay of Pattern::match_order (see ematch_plan.h).
#include "runtime/egraph/ematch_plan.h"

namespace superopt::egraph {
namespace {

int tensor_index(PatternTensor t) {
  return t.node * kMaxOutputs + t.port;
}

// How a node would be found with the tensors in `bound` bound; scan when none is.
EMatchPlan::Step access(const Pattern& p, int node, const std::vector<char>& bound) {
  const PatternNode& pn = p.nodes[node];
  EMatchPlan::Step step;
  step.node = node;
  for (int port = 0; port < int(pn.rule_shapes.size()); ++port)
    if (bound[node * kMaxOutputs + port]) {
      step.access = EMatchPlan::Access::producer;
      step.port = int8_t(port);
      return step;
    }
  for (PatternTensor in : pn.inputs)
    if (bound[tensor_index(in)]) {
      step.access = EMatchPlan::Access::parent;
      return step;
    }
  return step;
}

// Lower is cheaper: a class's e-nodes of one operator are few; the parents of
// an operator's class are few; a variable's class (a weight, the model input)
// may have thousands of parents.
int selectivity(const Pattern& p, int node, const std::vector<char>& bound) {
  const EMatchPlan::Step step = access(p, node, bound);
  if (step.access == EMatchPlan::Access::producer) return 0;
  if (step.access == EMatchPlan::Access::scan) return 3;
  for (PatternTensor in : p.nodes[node].inputs)
    if (bound[tensor_index(in)] && p.nodes[in.node].kind != PatternKind::variable) return 1;
  return 2;
}

// Marks what matching `node` binds: its outputs and its inputs; returns the
// inputs bound here first (their classes are checked when a consumer binds them).
std::vector<int> place(const Pattern& p, int node, std::vector<char>& bound) {
  const PatternNode& pn = p.nodes[node];
  for (int port = 0; port < int(pn.rule_shapes.size()); ++port) bound[node * kMaxOutputs + port] = 1;
  std::vector<int> first;
  for (PatternTensor in : pn.inputs)
    if (!bound[tensor_index(in)]) {
      bound[tensor_index(in)] = 1;
      first.push_back(tensor_index(in));
    }
  return first;
}

std::vector<int> selective_order(const Pattern& p) {
  std::vector<int> order;
  if (p.match_order.empty()) return order;
  std::vector<char> bound(p.nodes.size() * kMaxOutputs, 0), placed(p.nodes.size(), 0);
  order.push_back(p.match_order.front());
  placed[order.back()] = 1;
  place(p, order.back(), bound);
  while (order.size() < p.match_order.size()) {
    int best = -1, best_score = 4;
    for (int node : p.match_order)  // ties keep the pattern's order
      if (!placed[node]) {
        const int score = selectivity(p, node, bound);
        if (score < best_score) best = node, best_score = score;
      }
    order.push_back(best);
    placed[best] = 1;
    place(p, best, bound);
  }
  return order;
}

}  // namespace

EMatchPlan plan_ematch(const Pattern& p, bool selective) {
  EMatchPlan plan;
  plan.order = selective ? selective_order(p) : p.match_order;
  plan.reordered = plan.order != p.match_order;
  std::vector<char> bound(p.nodes.size() * kMaxOutputs, 0);
  for (int node : p.match_order) {
    plan.replay.push_back(access(p, node, bound));
    for (int t : place(p, node, bound)) plan.checked[t] = true;
  }
  return plan;
}

}  // namespace superopt::egraph
