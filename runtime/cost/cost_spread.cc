// The spread of a difference of two graphs' measured costs.
#include "runtime/cost/cost_spread.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "runtime/core/graph_analysis.h"

namespace superopt {
namespace {

// Each running operator's signature, with how often it occurs and one node that has it.
struct SignatureCount {
  int count = 0;
  NodeId node = -1;
};
using SignatureCounts = std::map<std::string, SignatureCount>;

SignatureCounts signature_counts(const Graph& g) {
  const std::vector<bool> weight_only = weight_only_nodes(g);  // cost 0: precomputed at load time
  SignatureCounts counts;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (weight_only[id] || runs_no_kernel(g, id)) continue;
    SignatureCount& c = counts[op_signature(g, id)];
    ++c.count;
    c.node = id;
  }
  return counts;
}

}  // namespace

double entry_spread_ms(const CostEntry& entry) {
  return entry.spread_recorded() ? entry.spread_ms : kAssumedRelativeSpread * entry.cost_ms;
}

double difference_spread_ms(const Graph& a, const Graph& b, CostModel& model) {
  if (!model.measures()) return 0;
  const SignatureCounts in_a = signature_counts(a), in_b = signature_counts(b);
  double variance = 0;
  auto add = [&](const Graph& g, const SignatureCount& mine, const SignatureCounts& other,
                 const std::string& signature) {
    auto it = other.find(signature);
    const int unmatched = mine.count - (it == other.end() ? 0 : it->second.count);
    if (unmatched <= 0) return;  // the other graph runs it as often (or more: counted from there)
    const double spread = model.node_spread_ms(g, mine.node);
    variance += unmatched * spread * spread;
  };
  for (const auto& [signature, c] : in_a) add(a, c, in_b, signature);
  for (const auto& [signature, c] : in_b) add(b, c, in_a, signature);
  return std::sqrt(variance);
}

bool cheaper_beyond_noise(double cost_a_ms, const Graph& a, double cost_b_ms, const Graph& b,
                          CostModel& model) {
  if (!(cost_a_ms < cost_b_ms)) return false;
  if (!model.measures()) return true;
  return cost_b_ms - cost_a_ms > difference_spread_ms(a, b, model);
}

}  // namespace superopt
