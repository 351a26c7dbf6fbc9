// The e-graph: e-classes of equal tensors (or of a multi-output operator's
// tuple of outputs), e-nodes over (operator, parameters, child e-classes),
// hash-consing, union-find and rebuilding (congruence closure). The API
// follows egg's EGraph: add, find, merge, rebuild.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "runtime/core/fixed_vector.h"
#include "runtime/core/graph.h"

namespace superopt::egraph {

using ClassId = int32_t;
using NodeIndex = int32_t;  // an e-node, by the order added

// An operator applied to e-classes. A multi-output operator (split) is an
// e-node of a tuple class; its tensors are `project` e-nodes (port >= 0) of
// that class, each in a tensor class, so that every tensor class has one
// descriptor (shape and split trees) and the shape checks of the matcher apply.
struct ENode {
  OpType op = OpType::input;
  int8_t port = -1;   // >= 0: a projection, output `port` of the tuple class children[0]
  int32_t leaf = -1;  // inputs, weights and opaque operators: the seed graph's node id
  OpParams params;    // compared with params_equal (the operator's own parameters)
  std::vector<ClassId> children;

  bool is_projection() const { return port >= 0; }
};

struct EClass {
  std::vector<NodeIndex> nodes;    // its e-nodes (children canonical after rebuild)
  std::vector<NodeIndex> parents;  // e-nodes with this class as a child (may repeat)
  // One descriptor per output: one for a tensor class, two for a tuple class.
  FixedVector<TensorDesc, kMaxOutputs> descs;
  bool weight_only = false;  // one of its e-nodes computes from weights and constants alone
  uint64_t ops = 0;          // bit op: an e-node of that operator is in the class
};

class EGraph {
 public:
  // Adds an e-node (its children made canonical) or finds its equal; nullopt
  // when its children do not fit the operator (shape inference fails).
  std::optional<ClassId> add(ENode node);
  // The canonical class of a class id (union-find with path halving).
  ClassId find(ClassId c) const;
  // Declares two classes equal; false when they already were or cannot be:
  // classes with different descriptors are never merged (an e-class has one
  // shape, and a split reads its input's split tree).
  bool merge(ClassId a, ClassId b);
  // Restores the invariants after merges: every e-node's children canonical,
  // the hash-cons keyed by them, congruent e-nodes' classes merged. Returns the
  // number of merges it made.
  int rebuild();

  const EClass& eclass(ClassId c) const { return classes_[find(c)]; }
  const ENode& node(NodeIndex n) const { return nodes_[n]; }
  // An e-node's operator and port, from a dense array: e-matching filters
  // parents and class members by operator, and an ENode (with its parameters)
  // is a cache line or more to load for one byte.
  OpType op_of(NodeIndex n) const { return tags_[n].op; }
  bool is_projection(NodeIndex n) const { return tags_[n].port >= 0; }
  int port_of(NodeIndex n) const { return tags_[n].port; }
  ClassId class_of(NodeIndex n) const { return find(node_class_[n]); }
  // Whether n is one of the e-nodes its class lists: after rebuild a congruent
  // duplicate is not (extraction chooses among the listed ones only).
  bool listed(NodeIndex n) const;
  // The class of an e-node equal to `node`, if there is one (children made canonical).
  std::optional<ClassId> lookup(ENode node) const;
  // The class of projection `port` of tuple class c, if added.
  std::optional<ClassId> projection(ClassId c, int port) const;
  const std::vector<NodeIndex>& nodes_of(OpType op) const { return by_op_[static_cast<int>(op)]; }

  int num_nodes() const { return int(nodes_.size()); }
  int num_classes() const { return live_classes_; }
  // Every canonical class id.
  std::vector<ClassId> class_ids() const;
  // Merges refused because the descriptors differed (a rule's two sides gave
  // different split trees).
  int64_t refused_merges() const { return refused_merges_; }

 private:
  struct Hash {
    size_t operator()(const ENode& n) const;
  };
  struct Equal {
    bool operator()(const ENode& a, const ENode& b) const;
  };
  void canonicalize(ENode& n) const;
  std::optional<FixedVector<TensorDesc, kMaxOutputs>> infer(const ENode& n) const;
  void update_weight_only(ClassId c);

  std::vector<ENode> nodes_;
  struct Tag {
    OpType op;
    int8_t port;
  };
  std::vector<Tag> tags_;  // per e-node: nodes_[n].op and .port
  std::vector<ClassId> node_class_;
  std::vector<EClass> classes_;
  mutable std::vector<ClassId> parent_;  // union-find
  std::unordered_map<ENode, NodeIndex, Hash, Equal> memo_;
  std::vector<std::vector<NodeIndex>> by_op_ = std::vector<std::vector<NodeIndex>>(kNumOpTypes);
  std::vector<ClassId> dirty_;  // classes merged since the last rebuild
  int live_classes_ = 0;
  int64_t refused_merges_ = 0;
};

}  // namespace superopt::egraph
