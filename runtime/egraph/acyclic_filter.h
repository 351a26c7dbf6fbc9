// Tensat's cycle filtering (Yang et al., MLSys 2021, section 4), done once at
// extraction: e-nodes are kept in a given order, and one whose class a child
// class already reaches through the e-nodes kept is dropped, so that what is
// left has no cycle of classes and the ILP needs no order variables. Those
// make its LP relaxation useless on our e-graphs: a cycle of zero-cost views
// (reshape, transpose) satisfies big-M order constraints fractionally, and
// bert's bound stayed at 0.06 ms against a 0.47 ms incumbent. Filtering
// restricts the choices (an e-node dropped here might have been in the
// optimum), so a solution proven optimal is optimal among the e-nodes kept;
// the e-nodes given first (the warm start's) are never dropped.
#pragma once

#include <vector>

#include "runtime/egraph/egraph.h"

namespace superopt::egraph {

struct FilterItem {
  ClassId cls;
  NodeIndex node;
};

// Per item of `order` (its class, its e-node): whether it is kept. children[n]
// are e-node n's child classes; class ids are below num_ids.
std::vector<char> filter_cycles(const std::vector<FilterItem>& order,
                                const std::vector<std::vector<ClassId>>& children, size_t num_ids);

}  // namespace superopt::egraph
