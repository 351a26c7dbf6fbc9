// A local search after greedy extraction: switch together every class a
// multi-output e-node's outputs sit in. Greedy extractors choose class by
// class, so a rewrite that pays only when several classes take it at once
// (two matmuls sharing an input merged into one, then split: TASO Figure 2)
// is never chosen; the ILP sees it but CBC does not finish on large e-graphs.
#pragma once

#include <vector>

#include "runtime/egraph/extract.h"

namespace superopt::egraph {

// Starting from `start`, repeatedly takes, for one tuple class at a time, the
// projections of that class in every class that has one (the tuple class
// keeps its chosen e-node), and keeps the switch when the choice stays
// acyclic and its DAG cost (each class reachable from the roots once, as
// choice_cost_ms) drops; when that alone does not pay, the same with every
// tuple class computed from one of those classes switched too, transitively
// (a merge of three matmuls is split twice, and pays only as a whole). Stops when a pass over all tuple classes keeps
// nothing, or after max_passes. The result's cost_ms is its DAG cost.
Extraction switch_tuples(const EGraph& eg, const std::vector<double>& cost_ms,
                         const std::vector<ClassId>& roots, const Extraction& start, int max_passes = 8);

}  // namespace superopt::egraph
