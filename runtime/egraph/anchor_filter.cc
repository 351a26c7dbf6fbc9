// Anchor signatures and their test (see anchor_filter.h).
#include "runtime/egraph/anchor_filter.h"

namespace superopt::egraph {

AnchorFilter::Signature AnchorFilter::signature_of(const Pattern& p) {
  Signature s;
  s.node = &p.nodes[p.match_order.front()];
  s.inputs = int8_t(s.node->inputs.size());
  s.produced.fill(-1);
  for (int j = 0; j < s.inputs && j < kMaxInputs; ++j) {
    const PatternTensor t = s.node->inputs[j];
    s.same[j] = int8_t(j);
    for (int i = 0; i < j; ++i)
      if (s.node->inputs[i] == t) {
        s.same[j] = int8_t(i);
        break;
      }
    const PatternNode& producer = p.nodes[t.node];
    s.rank[j] = int8_t(producer.rule_shapes[t.port].rank());
    if (producer.kind != PatternKind::variable && producer.rule_shapes.size() == 1)
      s.produced[j] = int8_t(producer.op);
  }
  return s;
}

bool AnchorFilter::same_signature(const Signature& a, const Signature& b) {
  const PatternNode &x = *a.node, &y = *b.node;
  if (x.op != y.op || x.kind != y.kind || a.inputs != b.inputs || a.same != b.same || a.rank != b.rank ||
      a.produced != b.produced)
    return false;
  // Parameters count where the matcher compares them (ematch.cc).
  return x.kind != PatternKind::op || x.op == OpType::transpose || x.params_id == y.params_id;
}

AnchorFilter::AnchorFilter(const std::vector<const Pattern*>& patterns) {
  signature_of_.reserve(patterns.size());
  // Signatures by operator, so that a pattern is compared with its operator's only.
  std::vector<std::vector<int>> by_op(kNumOpTypes);
  for (const Pattern* p : patterns) {
    const Signature s = signature_of(*p);
    std::vector<int>& same_op = by_op[static_cast<int>(s.node->op)];
    int found = -1;
    for (int i : same_op)
      if (same_signature(signatures_[i], s)) {
        found = i;
        break;
      }
    if (found < 0) {
      found = int(signatures_.size());
      signatures_.push_back(s);
      same_op.push_back(found);
    }
    signature_of_.push_back(found);
  }
  stamp_.assign(signatures_.size(), 0);
  answer_.assign(signatures_.size(), 0);
}

void AnchorFilter::reset(const EGraph& eg, NodeIndex anchor) {
  eg_ = &eg;
  anchor_ = anchor;
  if (++generation_ == 0) {  // wrapped: no stamp may look current
    std::fill(stamp_.begin(), stamp_.end(), 0);
    generation_ = 1;
  }
}

// ematch.cc's try_node at the first node with nothing bound: the operator's
// inputs and parameters, then the inputs bound either way round when commutative.
bool AnchorFilter::test(const Signature& s) const {
  const ENode& e = eg_->node(anchor_);
  if (eg_->is_projection(anchor_) || e.op != s.node->op || int(e.children.size()) != s.inputs) return false;
  if (s.node->kind == PatternKind::op && e.op != OpType::transpose &&
      !params_equal(e.op, e.params, s.node->params()))
    return false;
  auto binds = [&](bool swapped) {
    std::array<ClassId, kMaxInputs> actual{};
    for (int j = 0; j < s.inputs; ++j) {
      actual[j] = eg_->find(e.children[swapped ? 1 - j : j]);
      if (s.same[j] != j) {
        if (actual[j] != actual[s.same[j]]) return false;
        continue;
      }
      const EClass& c = eg_->eclass(actual[j]);
      if (c.descs.size() != 1 || c.descs[0].shape.rank() != s.rank[j]) return false;
      if (s.produced[j] >= 0 && !(c.ops & (uint64_t(1) << s.produced[j]))) return false;
    }
    return true;
  };
  const bool swap_too = op_info(e.op).commutative && eg_->find(e.children[0]) != eg_->find(e.children[1]);
  return binds(false) || (swap_too && binds(true));
}

}  // namespace superopt::egraph
