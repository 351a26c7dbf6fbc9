// Rules grouped by anchor operator (see rule_index.h).
#include "runtime/rewrite/rule_index.h"

namespace superopt {

void RuleIndex::add(DirectedRule rule) {
  by_anchor[static_cast<int>(rule.source.anchor_op())].push_back(int(rules.size()));
  rules.push_back(std::move(rule));
}

RuleIndex index_rules(std::vector<DirectedRule> rules) {
  RuleIndex index;
  for (DirectedRule& r : rules) index.add(std::move(r));
  return index;
}

void for_each_occurrence(const Graph& g, const RuleIndex& rules,
                         const std::function<void(const DirectedRule&, const Match&)>& visit, int first_n) {
  GraphIndex index(g);
  for (int op = 0; op < kNumOpTypes; ++op) {
    const std::vector<NodeId>& anchors = index.nodes_of(static_cast<OpType>(op));
    if (anchors.empty()) continue;
    for (int r : rules.by_anchor[op]) {
      if (first_n >= 0 && r >= first_n) break;  // by_anchor lists go in the order rules were added
      const DirectedRule& rule = rules.rules[r];
      std::function<void(const Match&)> at = [&](const Match& m) { visit(rule, m); };
      for (NodeId anchor : anchors) match_at(g, index, rule.source, anchor, at);
    }
  }
}

}  // namespace superopt
