// A directed rule applied at an e-match: the occurrence is built as a scratch
// graph over stand-ins of its variables' classes and confirmed by the graph
// matcher (runtime/rewrite/matcher.h: shape facts, size families), the target
// is built there by the same TargetBuilder as apply_rule, and its operators are
// added to the e-graph with each output merged into the class it replaces.
#pragma once

#include <vector>

#include "runtime/egraph/egraph.h"
#include "runtime/egraph/ematch.h"
#include "runtime/egraph/refusal_cache.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt::egraph {

enum class ApplyOutcome {
  changed,         // new e-nodes or merges
  unchanged,       // the target was there already, in the same class
  not_confirmed,   // the graph matcher refuses the occurrence (shape facts, size family)
  target_misfit,   // the target does not build (TargetBuilder's RewriteFailure)
  refused_merge,   // an output's descriptor differs between the sides (split trees)
  load_time_only,  // every variable is weight-only: only load-time work would change
};

// Applies r at m. `added` receives the e-nodes the target added (for the
// rules-involved report). With `refusals`, an occurrence whose scratch graph
// was refused before is refused without building it, and refusals are recorded.
ApplyOutcome apply_at(EGraph& eg, const DirectedRule& r, const EMatch& m,
                      std::vector<NodeIndex>* added = nullptr, RefusalCache* refusals = nullptr);

}  // namespace superopt::egraph
