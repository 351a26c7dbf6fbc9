// Classes that every choice of a class needs, as rows that tighten the
// extraction ILP's LP relaxation. The ILP's rows ask a chosen e-node's child
// classes to be chosen; fractionally, k alternatives of a class at 1/k each
// that all reach one subgraph through different children ask it only 1/k,
// and pay 1/k of it (bert: merged-matmul tuples at 0.2 each covering one
// matmul class; the LP bound was 0.065 ms against a 0.470 ms incumbent, and
// CBC could prove nothing). If every e-node of class c needs class d,
// directly or through its children, then sum(x, c) <= sum(x, d) holds for
// every extraction; with those rows bert's LP bound is 0.466 ms. Only the
// immediate ones are returned (d not needed by another class c needs), and
// not those every e-node of c reads directly (the child rows imply them):
// 681 rows on bert, where all needs would be 75,000.
#pragma once

#include <vector>

#include "runtime/egraph/ilp_problem.h"

namespace superopt::egraph {

struct NeedRow {
  ClassId cls, needed;
};

// Empty when the problem's class graph has a cycle (the needs are computed
// bottom up; an unfiltered problem goes without them).
std::vector<NeedRow> implied_needs(const IlpProblem& p);

}  // namespace superopt::egraph
