// E-matching: the occurrences of a rule side (runtime/rewrite/pattern.h) in an
// e-graph, by operators, parameters' presence, ranks and shared e-classes. It
// finds a superset: each occurrence is confirmed by the graph matcher itself
// on a scratch graph when applied (rewrite_apply.h), so the shape facts and
// size families are checked by the same code as in runtime/rewrite/.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/egraph/egraph.h"
#include "runtime/egraph/ematch_plan.h"
#include "runtime/rewrite/pattern.h"

namespace superopt::egraph {

// One occurrence: the e-node of every operator and constant of the pattern
// (-1 for variables) and the class every variable stands for.
struct EMatch {
  std::vector<NodeIndex> nodes;
  std::vector<ClassId> variables;
};

// Calls visit for every occurrence of p whose anchor (p.match_order[0]) is
// e-node `anchor`. Distinct operators of p meet distinct e-classes, and no
// variable meets an operator's class (as in a graph, where they are distinct nodes).
// The nodes are bound in plan.order (plan made from p); the occurrences are
// visited in the order matching in Pattern::match_order would visit them
// (the e-graph rebuilt: each class lists an e-node once), whatever the plan.
// With `candidates`, adds the number of e-nodes tried for the pattern's other
// nodes: the work the plan's order saves (tests compare the two orders by it).
void ematch_at(const EGraph& eg, const EMatchPlan& plan, const Pattern& p, NodeIndex anchor,
               const std::function<void(const EMatch&)>& visit, int64_t* candidates = nullptr);
// The same with the selective plan made for this call.
void ematch_at(const EGraph& eg, const Pattern& p, NodeIndex anchor,
               const std::function<void(const EMatch&)>& visit);

}  // namespace superopt::egraph
