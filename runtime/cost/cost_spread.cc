// The spread of a difference of two graphs' measured costs.
#include "runtime/cost/cost_spread.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "runtime/core/graph_analysis.h"

namespace superopt {

double entry_spread_ms(const CostEntry& entry) {
  return entry.spread_recorded() ? entry.spread_ms : kAssumedRelativeSpread * entry.cost_ms;
}

CostUnitCounts count_cost_units(const Graph& g, CostModel& model) {
  const std::vector<bool> weight_only = weight_only_nodes(g);  // cost 0: precomputed at load time
  CostUnitCounts counts;
  for (CostUnit& u : model.graph_units(g, weight_only)) {
    CostUnitCounts::Count& c = counts.by_signature[std::move(u.signature)];
    ++c.count;
    c.spread_ms = u.spread_ms;
  }
  return counts;
}

double difference_spread_ms(const CostUnitCounts& a, const CostUnitCounts& b) {
  double variance = 0;
  auto add = [&](const CostUnitCounts::Count& mine, const CostUnitCounts& other,
                 const std::string& signature) {
    auto it = other.by_signature.find(signature);
    const int unmatched = mine.count - (it == other.by_signature.end() ? 0 : it->second.count);
    if (unmatched <= 0) return;  // the other graph runs it as often (or more: counted from there)
    variance += unmatched * mine.spread_ms * mine.spread_ms;
  };
  for (const auto& [signature, c] : a.by_signature) add(c, b, signature);
  for (const auto& [signature, c] : b.by_signature) add(c, a, signature);
  return std::sqrt(variance);
}

double difference_spread_ms(const Graph& a, const Graph& b, CostModel& model) {
  if (!model.measures()) return 0;
  return difference_spread_ms(count_cost_units(a, model), count_cost_units(b, model));
}

bool cheaper_beyond_noise(double cost_a_ms, const Graph& a, double cost_b_ms, const Graph& b,
                          CostModel& model) {
  if (!(cost_a_ms < cost_b_ms)) return false;
  if (!model.measures()) return true;
  return cost_b_ms - cost_a_ms > difference_spread_ms(a, b, model);
}

bool cheaper_beyond_noise(double cost_a_ms, const Graph& a, double cost_b_ms, const CostUnitCounts& b_units,
                          CostModel& model) {
  if (!(cost_a_ms < cost_b_ms)) return false;
  if (!model.measures()) return true;
  return cost_b_ms - cost_a_ms > difference_spread_ms(count_cost_units(a, model), b_units);
}

}  // namespace superopt
