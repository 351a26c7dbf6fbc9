// OCGGS (Fang et al., VLDB 2020) section 3.1: node labels (Definition 6),
// substitution dependence (Definition 7) and the order over the substitutions
// of a sequence (Definition 8), which the pruning rule (Corollary 1) uses to
// examine a sequence only in its one sorted order. Also the substitutions of a
// graph (Definition 2), found whole or only near the last rewrite (the reuse
// of section 4.1).
#pragma once

#include <vector>

#include "runtime/core/graph.h"
#include "runtime/rewrite/rule_index.h"

namespace superopt::search {

// Definition 6: the label (tau, j) of every node of a graph reached by a
// sequence. step is tau's position in the sequence (0 = the dummy substitution
// N: the node was in the initial graph); j tells apart the nodes one
// substitution generated (in the initial graph, the node's id there).
struct Labels {
  std::vector<int> step, j;
};
Labels initial_labels(const Graph& g);

// One graph substitution (Definition 2) with its place in the order: the
// latest substitution it depends on (Definition 7, by position) and alpha of
// Definition 8, the largest j among the replaced nodes that substitution made.
struct Substitution {
  int rule = -1;  // index into RuleIndex::rules
  Match match;
  int depends_on = 0;
  int alpha = 0;
};

// Definition 8 within an ordered sequence: there positions order the
// substitutions depended on, so the order is the lexicographic one on
// (depends_on, alpha). a may precede b in an ordered sequence iff a <= b.
inline bool precedes(const Substitution& a, const Substitution& b) {
  return a.depends_on < b.depends_on || (a.depends_on == b.depends_on && a.alpha <= b.alpha);
}

// The substitution of `rule` at m in a graph with these labels.
Substitution make_substitution(const RuleIndex& rules, int rule, const Match& m, const Labels& labels);

// What one rewrite did to the nodes: old id -> new id (-1: removed), and the
// labels of the new graph, the generated nodes labelled (step, 0..).
struct Rewritten {
  std::vector<NodeId> new_of_old;
  Labels labels;
  std::vector<NodeId> generated;  // in the new graph
};
// apply_rule keeps the surviving nodes in order and appends the new ones; this
// recovers which are which by aligning the two node lists.
Rewritten relabel(const Graph& before, const Labels& labels, const Graph& after, int step);

// Every substitution in g (Algorithm 1 line 5).
std::vector<Substitution> all_substitutions(const Graph& g, const RuleIndex& rules, const Labels& labels);

// The substitutions in g after a rewrite whose matches come near what changed
// (their anchor within `radius` of a generated node or of a neighbour of a
// removed one), plus `kept`: the earlier graph's substitutions, renumbered,
// that touch nothing removed and lie farther away (Theorem 5: they are still
// substitutions, and they are all those farther away). radius must be at least
// the largest source pattern's size.
std::vector<Substitution> substitutions_after(const Graph& before, const Graph& after, const Rewritten& rw,
                                              const std::vector<Substitution>& kept, const RuleIndex& rules,
                                              int radius);

// The largest number of nodes in a rule's source pattern: the radius above.
int largest_source(const RuleIndex& rules);

}  // namespace superopt::search
