// The e-matches the graph matcher refused, remembered by what decided it.
// Whether an occurrence is confirmed (rewrite_apply.h) depends only on the
// scratch graph built for it: the rule, each operator's parameters, which of
// the pattern's tensors meet one e-class, and the descriptors of the classes
// the variables stand for. Most e-matches of a model repeat one of few such
// graphs (alexnet with taso-3.h5: 500,000 refusals), so a refusal is looked up
// instead of building, indexing and matching the scratch graph again.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "runtime/egraph/egraph.h"
#include "runtime/egraph/ematch.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt::egraph {

class RefusalCache {
 public:
  // The e-graph the e-matches index; its e-nodes' parameters never change.
  explicit RefusalCache(const EGraph& eg) : set_(64, Hash{&eg}, Equal{&eg}) {}

  // Whether an e-match with the same scratch graph as m was refused before.
  bool refused(const EGraph& eg, const DirectedRule& r, const EMatch& m);
  // Records that m was refused (after a `refused` that returned false).
  void add_refused() { set_.insert(last_); }
  int64_t hits() const { return hits_; }

 private:
  // Everything the scratch graph is built from: `words` has the rule, the
  // class of every pattern tensor numbered by first appearance, and the
  // variables' descriptors; `params` has the e-node whose parameters each
  // operator of the pattern takes (compared by params_equal).
  struct Key {
    std::vector<int64_t> words;
    std::vector<NodeIndex> params;
  };
  struct Hash {
    const EGraph* eg;
    size_t operator()(const Key& k) const;
  };
  struct Equal {
    const EGraph* eg;
    bool operator()(const Key& a, const Key& b) const;
  };
  // Fills k (reusing its buffers: a key is built for every e-match applied).
  void key(const EGraph& eg, const DirectedRule& r, const EMatch& m, Key& k);

  std::unordered_set<Key, Hash, Equal> set_;
  Key last_;                   // the key `refused` built last
  std::vector<ClassId> seen_;  // key's class numbering
  int64_t hits_ = 0;
};

}  // namespace superopt::egraph
