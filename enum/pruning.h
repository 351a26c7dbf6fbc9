// TASO's pruning of candidate rules (section 4, Table 3): input renaming and common subgraphs.
#pragma once

#include <vector>

#include "enum/candidates.h"
#include "enum/opset.h"

namespace superopt {

// Keeps the first of every set of rules that are one rule under a renaming of
// interchangeable sources, in either direction (source and target swapped).
std::vector<CandidateRule> prune_input_renamings(const Opset& opset, std::vector<CandidateRule> rules);

// Drops rules that a smaller rule implies: source and target share an
// operator applied to the same graph inputs (a common subgraph at the inputs),
// or every output of both comes from the same operator whose inputs differ in
// at most one position (a common subgraph containing all outputs).
std::vector<CandidateRule> prune_common_subgraphs(const Opset& opset, std::vector<CandidateRule> rules);

}  // namespace superopt
