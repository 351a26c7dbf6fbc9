// A hash of the graph that runs after inference preprocessing: everything
// computed from weights and constants alone is one precomputed tensor, known
// by its shape and the sources it reads. Rewrites that only rearrange such
// load-time work (enlarge a 3x3 kernel to 3x3, transpose a weight twice) keep
// this hash, and the search skips them: they would make endless equal-cost plateaus.
#pragma once

#include <cstdint>

#include "runtime/core/graph.h"

namespace superopt::search {

uint64_t preprocessed_hash(const Graph& g);

}  // namespace superopt::search
