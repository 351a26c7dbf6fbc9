// The spread of a difference of two graphs' measured costs.
#include "runtime/cost/cost_spread.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "runtime/core/graph_analysis.h"

namespace superopt {
namespace {

// Each entry a graph's cost adds (CostModel::graph_units), with how often it
// occurs and its spread.
struct SignatureCount {
  int count = 0;
  double spread_ms = 0;
};
using SignatureCounts = std::map<std::string, SignatureCount>;

SignatureCounts signature_counts(const Graph& g, CostModel& model) {
  const std::vector<bool> weight_only = weight_only_nodes(g);  // cost 0: precomputed at load time
  SignatureCounts counts;
  for (CostUnit& u : model.graph_units(g, weight_only)) {
    SignatureCount& c = counts[std::move(u.signature)];
    ++c.count;
    c.spread_ms = u.spread_ms;
  }
  return counts;
}

}  // namespace

double entry_spread_ms(const CostEntry& entry) {
  return entry.spread_recorded() ? entry.spread_ms : kAssumedRelativeSpread * entry.cost_ms;
}

double difference_spread_ms(const Graph& a, const Graph& b, CostModel& model) {
  if (!model.measures()) return 0;
  const SignatureCounts in_a = signature_counts(a, model), in_b = signature_counts(b, model);
  double variance = 0;
  auto add = [&](const SignatureCount& mine, const SignatureCounts& other, const std::string& signature) {
    auto it = other.find(signature);
    const int unmatched = mine.count - (it == other.end() ? 0 : it->second.count);
    if (unmatched <= 0) return;  // the other graph runs it as often (or more: counted from there)
    variance += unmatched * mine.spread_ms * mine.spread_ms;
  };
  for (const auto& [signature, c] : in_a) add(c, in_b, signature);
  for (const auto& [signature, c] : in_b) add(c, in_a, signature);
  return std::sqrt(variance);
}

bool cheaper_beyond_noise(double cost_a_ms, const Graph& a, double cost_b_ms, const Graph& b,
                          CostModel& model) {
  if (!(cost_a_ms < cost_b_ms)) return false;
  if (!model.measures()) return true;
  return cost_b_ms - cost_a_ms > difference_spread_ms(a, b, model);
}

}  // namespace superopt
