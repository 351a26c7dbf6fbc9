// TASO's pruning of candidate rules (section 4, Table 3): input renaming and common subgraphs.
#pragma once

#include <functional>
#include <vector>

#include "enum/candidates.h"
#include "enum/opset.h"

namespace superopt::enumeration {

// Equal for rules that are one rule under a renaming of interchangeable
// sources, in either direction (source and target swapped). Keeping the
// first rule of each key is TASO's input-renaming pruning.
uint64_t renaming_key(const CandidateRule& rule, const Opset& opset);

// Whether tensor `source_tensor` of a rule's source equals tensor
// `target_tensor` of its target (same shape, same values).
using TensorEquality = std::function<bool(int source_tensor, int target_tensor)>;

// True when a smaller rule implies this one: source and target share an
// operator applied to the same graph inputs (a common subgraph at the inputs),
// or every output of both comes from the same operator whose inputs differ in
// at most one position, and the differing inputs are themselves equal (a
// common subgraph containing all outputs). Without that last test,
// conv(x, enlarge(k)) = conv(x, k) (and conv(x, merge_groups(k))) would be
// dropped as implied by enlarge(k) = k, which is no rule at all (the shapes
// differ), and so would relu(relu(x)) = relu(x). Invariant under renaming, so
// it commutes with the renaming pruning.
bool has_common_subgraph(const CandidateRule& rule, const Opset& opset, const TensorEquality& equal);

}  // namespace superopt::enumeration
