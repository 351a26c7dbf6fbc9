// What a search's copy of a graph costs in memory, from its nodes and edges
// alone: the search holds thousands of copies (its queue and the graphs it has
// seen), and these count against the memory budget (--max-memory).
#pragma once

#include <cstdint>

#include "runtime/core/graph.h"

namespace superopt::search {

// The bytes one copy of g holds: its nodes (which hold the edges and shapes),
// its outputs, its handles on weight data, and the search's bookkeeping for
// it. Weight data is shared by every copy and is not counted.
int64_t graph_copy_bytes(const Graph& g);

}  // namespace superopt::search
