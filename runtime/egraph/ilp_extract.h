// Extraction by integer linear programming (Tensat, section 5), solved by
// CBC: a binary variable per e-node, one chosen e-node per root class, a
// chosen e-node's children chosen too, and acyclicity by an order variable per
// e-class on a cycle (a chosen e-node's class comes after each of its
// children's). Shared subgraphs count once, which greedy extraction cannot
// see. The problem is first made smaller (ilp_problem.h: exact reductions;
// acyclic_filter.h: Tensat's cycle filtering, so that no order variable is
// left) and its LP relaxation tightened (ilp_needs.h); the greedy choice is a
// complete warm start, so CBC returns at least that.
#pragma once

#include <string>
#include <vector>

#include "runtime/egraph/extract.h"

namespace superopt::egraph {

// Above this many e-nodes left after the reductions the greedy choice is kept
// at once. Measured at a 20,000-node saturation (the default until session 21; taso-3,
// analytic:h100, 2 cores): at most 18,094 e-nodes left (nasrnn; its LP is
// integral, optimal in 1.8 s), so the bound only keeps a much larger e-graph
// (--eqsat-nodes) from spending the time limit building an LP.
inline constexpr int kIlpMaxNodes = 40000;

struct IlpResult {
  Extraction extraction;  // the solver's best choice, or warm_start when it found none
  bool solved = false;    // the solver returned a choice of its own
  bool optimal = false;   // proven optimal within the time limit (among the e-nodes the filter kept)
  double objective_ms = 0;
  double bound_ms = 0;  // the best possible objective the solver proved
  double gap = 0;       // (objective - bound) / objective; 0 when optimal
  double seconds = 0;
  int variables = 0, constraints = 0;
  // The problem's size: e-nodes reachable from the roots, then e-nodes and
  // classes left after the exact reductions (ilp_problem.h).
  int reachable_nodes = 0, nodes = 0, classes = 0;
  std::string status;  // "optimal", "time limit", "no solution: greedy kept"
};

// Solves within time_limit_s, starting from warm_start (a greedy extraction,
// acyclic); when the solver finds nothing better, the warm start is the result.
// Larger problems (e-nodes left after the reductions) are not given to the
// solver: status "too large: greedy kept". filter = false keeps every e-node
// (exact, with order variables and without the tightening rows: CBC then
// rarely proves anything).
IlpResult ilp_extract(const EGraph& eg, const std::vector<double>& cost_ms, const std::vector<ClassId>& roots,
                      const Extraction& warm_start, double time_limit_s, int max_nodes = kIlpMaxNodes,
                      bool filter = true);

}  // namespace superopt::egraph
