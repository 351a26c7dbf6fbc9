// Exact extraction by integer linear programming (Tensat, section 5), solved
// by CBC: a binary variable per e-node, one chosen e-node per root class, a
// chosen e-node's children chosen too, and acyclicity by an order variable per
// e-class (a chosen e-node's class comes after each of its children's).
// Shared subgraphs count once, which greedy extraction cannot see.
#pragma once

#include <string>
#include <vector>

#include "runtime/egraph/extract.h"

namespace superopt::egraph {

// Above this many e-nodes CBC 2.10 found no solution within tens of seconds on
// our e-graphs (nasrnn at 5,104: none in 30 s; it rejects the greedy warm start,
// "mipstart values could not be used"), so the greedy choice is kept at once.
inline constexpr int kIlpMaxNodes = 3000;

struct IlpResult {
  Extraction extraction;  // the solver's best choice, or warm_start when it found none
  bool solved = false;    // the solver returned a choice of its own
  bool optimal = false;   // proven optimal within the time limit
  double objective_ms = 0;
  double bound_ms = 0;  // the best possible objective the solver proved
  double gap = 0;       // (objective - bound) / objective; 0 when optimal
  double seconds = 0;
  int variables = 0, constraints = 0;
  std::string status;  // "optimal", "time limit", "no solution: greedy kept"
};

// Solves within time_limit_s, starting from warm_start (a greedy extraction,
// acyclic); when the solver finds nothing better, the warm start is the result.
// Larger problems (e-nodes reachable from the roots) are not given to the
// solver: status "too large: greedy kept".
IlpResult ilp_extract(const EGraph& eg, const std::vector<double>& cost_ms, const std::vector<ClassId>& roots,
                      const Extraction& warm_start, double time_limit_s, int max_nodes = kIlpMaxNodes);

}  // namespace superopt::egraph
