// The e-graph's invariants: hash-consing of canonical e-nodes, union-find over
// classes, and a rebuild that re-canonicalizes every e-node until no two
// congruent e-nodes sit in different classes.
#include "runtime/egraph/egraph.h"

#include <algorithm>

#include "runtime/core/hashing.h"

namespace superopt::egraph {

namespace {

// Model inputs vary at run time; everything else computed from weights and
// constants alone is computed once at load time.
bool may_be_weight_only(const ENode& n) {
  return n.is_projection() || n.op != OpType::input;
}

}  // namespace

size_t EGraph::Hash::operator()(const ENode& n) const {
  uint64_t h = hash_combine(uint64_t(n.op) * 131 + uint64_t(n.port + 1), uint64_t(int64_t(n.leaf)));
  if (!n.is_projection()) h = params_hash(n.op, n.params, h);
  for (ClassId c : n.children) h = hash_combine(h, uint64_t(c));
  return size_t(h);
}

bool EGraph::Equal::operator()(const ENode& a, const ENode& b) const {
  return a.op == b.op && a.port == b.port && a.leaf == b.leaf && a.children == b.children &&
         (a.is_projection() || params_equal(a.op, a.params, b.params));
}

ClassId EGraph::find(ClassId c) const {
  while (parent_[c] != c) {
    parent_[c] = parent_[parent_[c]];
    c = parent_[c];
  }
  return c;
}

void EGraph::canonicalize(ENode& n) const {
  for (ClassId& c : n.children) c = find(c);
}

bool EGraph::listed(NodeIndex n) const {
  const std::vector<NodeIndex>& nodes = eclass(class_of(n)).nodes;
  return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
}

std::optional<ClassId> EGraph::lookup(ENode node) const {
  canonicalize(node);
  auto it = memo_.find(node);
  if (it == memo_.end()) return std::nullopt;
  return find(node_class_[it->second]);
}

std::optional<ClassId> EGraph::projection(ClassId c, int port) const {
  ENode p;
  p.op = OpType::input;
  p.port = int8_t(port);
  p.children = {c};
  return lookup(std::move(p));
}

// The descriptors of a new e-node's outputs, from its children's.
std::optional<FixedVector<TensorDesc, kMaxOutputs>> EGraph::infer(const ENode& n) const {
  FixedVector<TensorDesc, kMaxOutputs> out;
  if (n.is_projection()) {
    const EClass& tuple = classes_[find(n.children[0])];
    if (n.port >= int(tuple.descs.size())) return std::nullopt;
    out.push_back(tuple.descs[n.port]);
    return out;
  }
  if (op_info(n.op).is_source()) {
    TensorDesc d;
    d.shape = n.params.shape;
    out.push_back(d);
    return out;
  }
  std::array<const TensorDesc*, kMaxInputs> in{};
  for (size_t i = 0; i < n.children.size(); ++i) {
    const EClass& c = classes_[find(n.children[i])];
    if (c.descs.size() != 1) return std::nullopt;  // a tuple read as a tensor
    in[i] = &c.descs[0];
  }
  std::array<TensorDesc, kMaxOutputs> descs{};
  const int outputs = op_info(n.op).num_outputs;
  if (!try_infer_outputs(n.op, n.params, std::span(in.data(), n.children.size()),
                         std::span(descs.data(), outputs))
           .fits)
    return std::nullopt;
  for (int i = 0; i < outputs; ++i) out.push_back(descs[i]);
  return out;
}

std::optional<ClassId> EGraph::add(ENode node) {
  canonicalize(node);
  if (auto it = memo_.find(node); it != memo_.end()) return find(node_class_[it->second]);
  if (int(node.children.size()) > kMaxInputs) return std::nullopt;
  std::optional<FixedVector<TensorDesc, kMaxOutputs>> descs = infer(node);
  if (!descs) return std::nullopt;
  const NodeIndex index = NodeIndex(nodes_.size());
  const ClassId c = ClassId(classes_.size());
  EClass cls;
  cls.nodes.push_back(index);
  cls.descs = *descs;
  cls.ops = uint64_t(1) << static_cast<int>(node.op);
  bool weight_only = may_be_weight_only(node);
  for (ClassId child : node.children) {
    classes_[child].parents.push_back(index);
    weight_only = weight_only && classes_[child].weight_only;
  }
  cls.weight_only = weight_only;
  by_op_[static_cast<int>(node.op)].push_back(index);
  classes_.push_back(std::move(cls));
  parent_.push_back(c);
  node_class_.push_back(c);
  memo_.emplace(node, index);
  tags_.push_back({node.op, node.port});
  nodes_.push_back(std::move(node));
  ++live_classes_;
  return c;
}

bool EGraph::merge(ClassId a, ClassId b) {
  a = find(a);
  b = find(b);
  if (a == b) return false;
  if (!(classes_[a].descs.size() == classes_[b].descs.size())) return ++refused_merges_, false;
  for (size_t i = 0; i < classes_[a].descs.size(); ++i)
    if (!(classes_[a].descs[i] == classes_[b].descs[i])) return ++refused_merges_, false;
  if (classes_[a].nodes.size() < classes_[b].nodes.size()) std::swap(a, b);
  EClass& into = classes_[a];
  EClass& from = classes_[b];
  into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
  into.parents.insert(into.parents.end(), from.parents.begin(), from.parents.end());
  into.weight_only = into.weight_only || from.weight_only;
  into.ops |= from.ops;
  from = EClass{};
  parent_[b] = a;
  --live_classes_;
  dirty_.push_back(a);
  return true;
}

int EGraph::rebuild() {
  int merges = 0;
  for (bool again = !dirty_.empty(); again;) {
    again = false;
    memo_.clear();
    for (NodeIndex i = 0; i < NodeIndex(nodes_.size()); ++i) {
      canonicalize(nodes_[i]);
      auto [it, inserted] = memo_.emplace(nodes_[i], i);
      if (!inserted && merge(node_class_[it->second], node_class_[i])) {
        ++merges;
        again = true;  // congruence: the merged classes' parents may now be equal
      }
    }
  }
  dirty_.clear();
  // Each class lists its distinct e-nodes (the hash-cons' representatives) again.
  for (ClassId c = 0; c < ClassId(classes_.size()); ++c) {
    classes_[c].nodes.clear();
    classes_[c].parents.clear();
    classes_[c].ops = 0;
    classes_[c].weight_only = false;
  }
  for (auto& list : by_op_) list.clear();
  std::vector<NodeIndex> reps;
  reps.reserve(memo_.size());
  for (const auto& entry : memo_) reps.push_back(entry.second);
  std::sort(reps.begin(), reps.end());
  for (NodeIndex i : reps) {
    EClass& cls = classes_[find(node_class_[i])];
    cls.nodes.push_back(i);
    cls.ops |= uint64_t(1) << static_cast<int>(nodes_[i].op);
    by_op_[static_cast<int>(nodes_[i].op)].push_back(i);
    for (ClassId child : nodes_[i].children) classes_[child].parents.push_back(i);
  }
  // Weight-only classes, as a fixpoint: an e-node is weight-only once all its children are.
  std::vector<int> remaining(nodes_.size(), 0);
  std::vector<ClassId> work;
  for (NodeIndex i : reps) {
    remaining[i] = int(nodes_[i].children.size());
    if (remaining[i] == 0 && may_be_weight_only(nodes_[i])) work.push_back(find(node_class_[i]));
  }
  while (!work.empty()) {
    ClassId c = work.back();
    work.pop_back();
    if (classes_[c].weight_only) continue;
    classes_[c].weight_only = true;
    for (NodeIndex p : classes_[c].parents)
      if (--remaining[p] == 0 && may_be_weight_only(nodes_[p])) work.push_back(find(node_class_[p]));
  }
  return merges;
}

std::vector<ClassId> EGraph::class_ids() const {
  std::vector<ClassId> ids;
  for (ClassId c = 0; c < ClassId(classes_.size()); ++c)
    if (parent_[c] == c) ids.push_back(c);
  return ids;
}

}  // namespace superopt::egraph
