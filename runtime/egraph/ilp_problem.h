// The extraction problem the ILP is given, made smaller without changing its
// optimum (Tensat, section 5, gives CBC every e-node; at our node limits that
// is 12,000-30,000 columns and CBC finds nothing in 10 s). Exact reductions:
// - only e-nodes reachable from the roots;
// - weight-only classes are constants: each gets an e-node computed from
//   weights alone (cost 0, acyclic, reading only weight-only classes), so any
//   other choice there costs at least as much and can only add cycles;
// - an e-node reading its own class can be in no acyclic choice;
// - an e-node is dropped when another of its class costs no more and reads a
//   subset of its child classes (any choice using it switches to the other:
//   no dearer, no new edge, so no new cycle);
// - an e-node reading a class left with no e-node is dropped, to a fixpoint,
//   and classes no longer reachable from the roots go too.
#pragma once

#include <vector>

#include "runtime/egraph/egraph.h"

namespace superopt::egraph {

struct IlpProblem {
  std::vector<ClassId> classes;                // given to the solver, canonical, in the order found
  std::vector<std::vector<NodeIndex>> nodes;   // per classes[i]: its e-nodes left
  std::vector<int> index;                      // per ClassId: its place in classes, or -1
  std::vector<std::vector<ClassId>> children;  // per NodeIndex left: distinct non-constant child classes
  std::vector<NodeIndex> constant;             // per ClassId: a weight-only class's e-node, else -1
  std::vector<NodeIndex> dominated_by;         // per NodeIndex dropped as dominated: the e-node kept instead
  bool feasible = true;                        // every root is a constant or has an e-node left

  // Sizes, to report: before (reachable from the roots) and after the reductions.
  int reachable_nodes = 0, reachable_classes = 0;
  int nodes_left = 0;
  int constant_classes = 0, self_loops = 0, dominated = 0, cycle_filtered = 0, unbuildable = 0;
};

// With `filter`, the e-nodes that would close a cycle are dropped too
// (acyclic_filter.h: not exact), those of the choice keep_first never.
IlpProblem reduce_extraction(const EGraph& eg, const std::vector<double>& cost_ms,
                             const std::vector<ClassId>& roots, const std::vector<NodeIndex>& keep_first,
                             bool filter);

// A choice made on the whole e-graph (a greedy extraction), carried to the
// problem: dropped e-nodes replaced by the ones that dominated them, constant
// classes given their e-node, classes the roots no longer reach unchosen.
// Empty when a root or a needed class has nothing to choose, or the choice has a cycle.
std::vector<NodeIndex> carry_choice(const EGraph& eg, const IlpProblem& p, const std::vector<ClassId>& roots,
                                    const std::vector<NodeIndex>& choice);

}  // namespace superopt::egraph
