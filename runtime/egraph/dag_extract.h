// Greedy extraction that sees sharing: each class keeps the set of classes its
// cheapest e-node needs (with their costs), and an e-node's cost is the sum
// over the union of its children's sets, so a subgraph two classes share is
// counted once (the "greedy DAG" extractor of extraction-gym, after Tensat's
// observation that tree costs double-count shared work, section 5).
#pragma once

#include <vector>

#include "runtime/egraph/extract.h"

namespace superopt::egraph {

// Like greedy_extract, but an e-node's candidate cost is that of the DAG its
// children's chosen sets form, each class counted once; an e-node whose
// children's sets hold its own class (a cycle through it) is not a candidate.
// Stops at max_set_entries summed over the sets computed (returning the best
// choice so far, which may leave classes unchosen; build_graph then refuses
// it), so that the extractor's work stays bounded on large e-graphs.
Extraction dag_greedy_extract(const EGraph& eg, const std::vector<double>& cost_ms,
                              const std::vector<ClassId>& roots, int64_t max_set_entries = 400'000'000);

}  // namespace superopt::egraph
