// The order an e-matcher binds a pattern's nodes in. Pattern::match_order
// (the graph matcher's) places a node as soon as it touches a placed one,
// also through a shared variable, and finding a node through a variable means
// scanning that variable's class's parents: on sru (taso-3) rules anchored on
// a matmul reading a concat and a weight tried each of the weight class's 560
// matmul parents for the pattern's other matmul before the concat that
// decides (six rules, 21.9 million candidates, no match; all rules: 48.6
// million candidates for 140,000 matches). The selective order finds a node,
// where it can, as the producer of a class already bound, then among the
// parents of an operator's class, and through a variable's class last.
//
// Matching in another order finds the same occurrences, but the Runner applies
// them in the order found, and a node limit can stop an iteration between two:
// so the plan also says how Pattern::match_order would have found each node
// (`replay`), and the matcher visits an anchor's occurrences sorted into the
// order the pattern's own order would have visited them (ematch.cc).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/rewrite/pattern.h"

namespace superopt::egraph {

struct EMatchPlan {
  // How a node is found at its turn in an order: among the e-nodes of the class
  // one of its outputs is bound to, among the parents of a bound input's class,
  // or among every e-node of its operator (not connected).
  enum class Access : uint8_t { producer, parent, scan };
  struct Step {
    int node = 0;
    Access access = Access::scan;
    int8_t port = 0;  // producer: the output whose class is searched
  };

  std::vector<int> order;    // the nodes in the order matched; order[0] is the anchor
  std::vector<Step> replay;  // Pattern::match_order, each node with how that order finds it
  // Per pattern tensor (node * kMaxOutputs + port): whether Pattern::match_order
  // checks the class it meets (one descriptor, the rank, the producer's operator),
  // which it does when a consumer binds the tensor before its producer does.
  std::array<bool, kMaxPatternNodes * kMaxOutputs> checked{};
  bool reordered = false;  // order differs from Pattern::match_order
};

// The plan of p: the selective order, or (selective = false) Pattern::match_order itself.
EMatchPlan plan_ematch(const Pattern& p, bool selective = true);

}  // namespace superopt::egraph
