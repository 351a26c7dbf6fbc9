// The graph the generator is building, evaluated under every renaming of the
// interchangeable sources it uses, kept up to date along the depth-first
// search. Two graphs that compute one function up to a renaming have the
// same smallest fingerprint over these renamings (the class key), so pairing
// finds rules whose sides name their inputs differently.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "enum/graph_code.h"
#include "enum/opset.h"
#include "enum/renaming.h"
#include "runtime/core/tensor.h"

namespace superopt::enumeration {

// A canonical graph uses a prefix x1..xk of each interchange class, and a
// graph computing the same function up to renaming uses the same prefixes
// (when it reads all of its sources), so the renamings that matter are the
// permutations of each used prefix: k! per class, the identity first.
class RenamingOrbit {
 public:
  using Values = Tensor<uint64_t>;

  // `sources`: the generator's modular source values, in opset order;
  // `values` and `hashes`: the generator's own, per tensor id, which are the
  // identity renaming's (the orbit reads them, never writes).
  RenamingOrbit(const Opset& opset, std::vector<Values> sources, int max_ops,
                const std::vector<Values>& values, const std::vector<uint64_t>& hashes);

  // Renamings of the current graph; renaming(0) is the identity.
  int size() const { return static_cast<int>(level().renamings.size()); }
  const Renaming& renaming(int p) const { return level().renamings[p]; }
  // Content hash of tensor `t` (an operator output) under renaming p >= 1;
  // the identity's hashes are the generator's own.
  uint64_t hash(int p, int t) const { return p == 0 ? hashes_[t] : level().hashes[p - 1][t - num_sources_]; }
  // Structure hash (tensor_structure_hashes) of tensor `t` under renaming p.
  uint64_t structure(int p, int t) const { return level().structures[p][t - num_sources_]; }

  // Operator k (the last of `code`) was appended, with output descriptors
  // `outputs`; `used` counts each class's used sources afterwards. Evaluates
  // it under every renaming but the identity; when it made a class's used
  // prefix longer than one, the renamings grow and every operator is
  // evaluated again under the new ones. A tensor whose structure under one
  // renaming equals its structure under an earlier one (the renaming leaves
  // its inputs alone, or swaps a commutative operator's) shares that value
  // instead of being evaluated again.
  void push(const GraphCode& code, std::span<const TensorDesc> outputs, const std::vector<int>& used);
  // Undoes the push of operator k (the last).
  void pop(int k);

 private:
  struct Level {
    int created_by = -1;                      // the operator whose push made this level
    std::vector<int> used;                    // per class, its used prefix (0 and 1 alike: no permutation)
    std::vector<Renaming> renamings;          // identity first
    std::vector<std::vector<Values>> values;  // [p - 1][t - num_sources], when evaluated
    std::vector<std::vector<const Values*>> value;  // [p - 1][t - num_sources]: own or shared
    std::vector<std::vector<uint64_t>> hashes;      // [p - 1][t - num_sources]
    std::vector<std::vector<uint64_t>> structures;  // [p][t - num_sources], the identity too
  };
  const Level& level() const { return levels_[top_]; }
  void build_renamings(Level& l) const;
  void evaluate(Level& l, const GraphCode& code, int k, int p);
  const Values& input(const Level& l, int p, int t) const;
  uint64_t input_structure(const Level& l, int p, int t) const;

  const Opset& opset_;
  const int num_sources_;
  const int max_ops_;
  std::vector<Values> sources_;
  const std::vector<Values>& identity_values_;
  const std::vector<uint64_t>& hashes_;
  std::vector<std::vector<uint8_t>> members_;   // per class, its sources in index order
  std::vector<std::vector<TensorDesc>> descs_;  // per operator, its output descriptors
  std::vector<Level> levels_;                   // reused: at most one per operator, plus the first
  int top_ = 0;
};

}  // namespace superopt::enumeration
