// Inference preprocessing after the search: operators computed from weights and
// constants alone become new weights holding their values, when every weight
// they read has data (weights without data are only known at load time, so
// those operators stay; the cost models count them as free either way). Values
// that carry split trees (a concatenation of weights) stay too: a weight has none.
#pragma once

#include "runtime/core/graph.h"

namespace superopt::search {

struct Folded {
  Graph graph;
  int operators = 0;  // operators folded away
  int weights = 0;    // new weights holding their values
};

Folded fold_precomputed(const Graph& g);

}  // namespace superopt::search
