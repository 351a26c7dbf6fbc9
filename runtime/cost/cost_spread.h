// The noise of measured costs: a rewrite counts as cheaper only when the
// difference it makes is beyond the spread of the measurements behind it.
// Per-operator times measured alone vary by a few percent from run to run; the
// issue-34 measurements showed rewrites chosen for differences within that
// noise (and graphs that ran slower end to end).
#pragma once

#include <map>
#include <string>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "runtime/cost/cost_table.h"

namespace superopt {

// The spread assumed for an entry measured before tables recorded one (a
// relative IQR typical of a busy 2-core machine; quiet runs measure 1-3 %).
inline constexpr double kAssumedRelativeSpread = 0.05;

// An entry's spread_ms, or kAssumedRelativeSpread of its cost where the table
// did not record one.
double entry_spread_ms(const CostEntry& entry);

// The noise of cost(a) - cost(b) under `model`: entries both graphs' costs
// add (CostModel::graph_units: the running operators, or for a model that
// costs graphs whole its fused groups, lone operators and reorders; equal
// signatures, counted with multiplicity) have the same measured cost in both
// and cancel; the rest add their spreads in quadrature (independent
// measurements). 0 for a model that does not measure.
double difference_spread_ms(const Graph& a, const Graph& b, CostModel& model);

// A graph's cost entries (CostModel::graph_units) counted by signature, with
// each one's spread: what difference_spread_ms compares. A search comparing
// many graphs against its best keeps the best's.
struct CostUnitCounts {
  struct Count {
    int count = 0;
    double spread_ms = 0;
  };
  std::map<std::string, Count> by_signature;
};
CostUnitCounts count_cost_units(const Graph& g, CostModel& model);
double difference_spread_ms(const CostUnitCounts& a, const CostUnitCounts& b);

// Whether cost_a_ms is cheaper than cost_b_ms by more than the noise of their
// difference (a plain comparison for a model that does not measure). With
// `b_units`, b's entries counted beforehand (count_cost_units).
bool cheaper_beyond_noise(double cost_a_ms, const Graph& a, double cost_b_ms, const Graph& b,
                          CostModel& model);

bool cheaper_beyond_noise(double cost_a_ms, const Graph& a, double cost_b_ms, const CostUnitCounts& b_units,
                          CostModel& model);

}  // namespace superopt
