// Candidate rules from fingerprint classes: each member is confirmed against
// the class representative by a second modular evaluation on other inputs and
// a floating-point test, and its outputs are mapped onto the representative's.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "enum/graph_code.h"
#include "enum/opset.h"
#include "runtime/core/tensor.h"

namespace superopt::enumeration {

// source.outputs[k] computes the same tensor as target.outputs[k] (tensor ids).
struct CandidateRule {
  uint64_t fingerprint = 0;
  GraphCode source;
  GraphCode target;
  std::vector<int> source_outputs;
  std::vector<int> target_outputs;
};

struct PairingCounts {
  int64_t classes = 0;               // fingerprint classes with two or more graphs
  int64_t candidates = 0;            // confirmed pairs
  int64_t split_by_second_eval = 0;  // members whose second evaluation differed
  int64_t failed_float_test = 0;     // members equal in modular but not in floating-point arithmetic
};

class CandidatePairing {
 public:
  CandidatePairing(const Opset& opset, uint64_t seed);

  // `members` share `fingerprint` and are in canonical order (code_less). Each
  // group that also agrees on the second evaluation pairs its first member
  // (the target) with every other member that passes the float test; `emit`
  // gets each rule as it is found (in member order).
  void pair(uint64_t fingerprint, const std::vector<GraphCode>& members,
            const std::function<void(CandidateRule&)>& emit);

  const PairingCounts& counts() const { return counts_; }

  // Whether tensor `ta` of `a` and tensor `tb` of `b` (ids as in GraphCode)
  // have the same shape and the same values in the second evaluation.
  bool same_tensor(const GraphCode& a, int ta, const GraphCode& b, int tb) const;

 private:
  const Opset& opset_;
  // The second evaluation's inputs, exact and real, by source index: made
  // once, since every member reads them.
  std::vector<Tensor<uint64_t>> exact_inputs_;
  std::vector<Tensor<double>> real_inputs_;
  PairingCounts counts_;
};

// The canonical order of codes within a class: fewer operators first, then bytes.
bool code_less(const GraphCode& a, const GraphCode& b);

}  // namespace superopt::enumeration
