// The anchor test of many rules at once. Every iteration tries every rule
// filed under an e-node's operator and parameters at that e-node (sru, taso-3:
// 3.7 million anchor tries in four iterations, most refused at once), and
// each try touched the rule's own pattern, a cache miss or two. Rules whose
// anchors ask the same of an e-node (operator, parameters, inputs: which are
// the same tensor, their ranks, the operator producing each) share a
// signature; an anchor e-node is tested once per signature, from a compact
// array, and the rules of a refused signature are skipped without touching them.
// The test is exactly the e-matcher's at its first node (ematch.cc: try_node
// with nothing bound), so skipping loses no occurrence.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/egraph/egraph.h"
#include "runtime/rewrite/pattern.h"

namespace superopt::egraph {

class AnchorFilter {
 public:
  // One signature per distinct anchor among the patterns (rules' sources).
  explicit AnchorFilter(const std::vector<const Pattern*>& patterns);
  int signature(int pattern) const { return signature_of_[pattern]; }
  // Starts the tests of one anchor e-node (forgets the previous one's answers).
  void reset(const EGraph& eg, NodeIndex anchor);
  // Whether the e-matcher's first node accepts the anchor for patterns of signature s.
  bool accepts(int s) {
    if (stamp_[s] != generation_) stamp_[s] = generation_, answer_[s] = test(signatures_[s]);
    return answer_[s];
  }
  int num_signatures() const { return int(signatures_.size()); }

 private:
  struct Signature {
    const PatternNode* node = nullptr;  // a representative (parameters)
    int8_t inputs = 0;
    std::array<int8_t, kMaxInputs> same{};      // the first input reading the same tensor
    std::array<int8_t, kMaxInputs> rank{};      // the input tensor's rank in the rule
    std::array<int8_t, kMaxInputs> produced{};  // the single-output operator producing it, or -1
  };
  static Signature signature_of(const Pattern& p);
  static bool same_signature(const Signature& a, const Signature& b);
  bool test(const Signature& s) const;

  std::vector<Signature> signatures_;
  std::vector<int> signature_of_;
  std::vector<uint32_t> stamp_;
  std::vector<char> answer_;
  uint32_t generation_ = 0;
  const EGraph* eg_ = nullptr;
  NodeIndex anchor_ = -1;
};

}  // namespace superopt::egraph
