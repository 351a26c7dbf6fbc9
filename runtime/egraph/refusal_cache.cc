// Refused e-matches by their scratch graph's ingredients (see refusal_cache.h).
#include "runtime/egraph/refusal_cache.h"

#include <algorithm>

#include "runtime/core/hashing.h"

namespace superopt::egraph {

// Mirrors build_source in rewrite_apply.cc: pattern nodes in index order, a
// variable's class (and its descriptor, for its stand-in), an operator's child
// classes in its e-node's order, then its own class or its projections'.
void RefusalCache::key(const EGraph& eg, const DirectedRule& r, const EMatch& m, Key& k) {
  k.words.clear();
  k.params.clear();
  k.words.push_back(int64_t(reinterpret_cast<uintptr_t>(&r)));
  // Class ids -> numbers, by first appearance. Ids are taken as build_source
  // takes them: a variable's as the e-match has it, the others canonical (a
  // variable's class merged since the match was found is then not its
  // consumer's child there either, and the occurrence is refused for that).
  std::vector<ClassId>& seen = seen_;
  seen.clear();
  auto number = [&](ClassId c) {
    if (c < 0) return int64_t(-1);  // an absent projection
    auto it = std::find(seen.begin(), seen.end(), c);
    if (it != seen.end()) return int64_t(it - seen.begin());
    seen.push_back(c);
    return int64_t(seen.size() - 1);
  };
  const Pattern& p = r.source;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const PatternNode& pn = p.nodes[i];
    if (pn.kind == PatternKind::variable) {
      const ClassId c = m.variables[pn.variable];
      k.words.push_back(number(c));
      if (c < 0) continue;
      const TensorDesc& d = eg.eclass(c).descs[0];
      k.words.push_back(d.shape.rank());
      for (int dim = 0; dim < d.shape.rank(); ++dim) k.words.push_back(d.shape[dim]);
      k.words.push_back(d.splits_id);
      continue;
    }
    const NodeIndex n = m.nodes[i];
    const ENode& e = eg.node(n);
    k.params.push_back(n);
    k.words.push_back(-2 - int64_t(e.children.size()));  // separates the operators' entries
    for (ClassId child : e.children) k.words.push_back(number(eg.find(child)));
    const ClassId own = eg.class_of(n);
    if (pn.rule_shapes.size() == 1) {
      k.words.push_back(number(own));
    } else {
      for (int port = 0; port < int(pn.rule_shapes.size()); ++port)
        k.words.push_back(number(eg.projection(own, port).value_or(-1)));
    }
  }
}

size_t RefusalCache::Hash::operator()(const Key& k) const {
  uint64_t h = hash_bytes(k.words.data(), k.words.size() * sizeof(int64_t), 0x51ed270b27a3c1d5ULL);
  for (NodeIndex n : k.params) h = params_hash(eg->op_of(n), eg->node(n).params, h);
  return size_t(h);
}

bool RefusalCache::Equal::operator()(const Key& a, const Key& b) const {
  if (a.words != b.words || a.params.size() != b.params.size()) return false;
  for (size_t i = 0; i < a.params.size(); ++i) {
    const ENode &x = eg->node(a.params[i]), &y = eg->node(b.params[i]);
    if (x.op != y.op || !params_equal(x.op, x.params, y.params)) return false;
  }
  return true;
}

bool RefusalCache::refused(const EGraph& eg, const DirectedRule& r, const EMatch& m) {
  key(eg, r, m, last_);
  const bool hit = set_.count(last_) > 0;
  hits_ += hit;
  return hit;
}

}  // namespace superopt::egraph
