// TASO's pruning of candidate rules (section 4, Table 3): input renaming and common subgraphs.
#pragma once

#include <vector>

#include "enum/candidates.h"
#include "enum/opset.h"

namespace superopt {

// Equal for rules that are one rule under a renaming of interchangeable
// sources, in either direction (source and target swapped). Keeping the
// first rule of each key is TASO's input-renaming pruning.
uint64_t renaming_key(const CandidateRule& rule, const Opset& opset);

// True when a smaller rule implies this one: source and target share an
// operator applied to the same graph inputs (a common subgraph at the inputs),
// or every output of both comes from the same operator whose inputs differ in
// at most one position, with equal shapes there (a common subgraph containing all
// outputs; differing shapes are no smaller rule, as in conv(x, k) =
// conv(x, enlarge(k))). Invariant
// under renaming, so it commutes with the renaming pruning.
bool has_common_subgraph(const CandidateRule& rule, const Opset& opset);

}  // namespace superopt
