// Renamings of interchangeable sources: renamed codes, structural hashes that
// see through operator order and commutative input order, and the one naming
// a rule is stored under.
#pragma once

#include <cstdint>
#include <vector>

#include "enum/candidates.h"
#include "enum/graph_code.h"
#include "enum/opset.h"

namespace superopt::enumeration {

// rename[s] is the source that takes source s's place; one entry per opset source.
using Renaming = std::vector<uint8_t>;

// The code with every source s read as rename[s].
GraphCode rename_sources(const GraphCode& code, int num_sources, const Renaming& rename);
void rename_sources_into(const GraphCode& code, int num_sources, const Renaming& rename, GraphCode& out);

// Structural hash of every tensor of a code (ids as in GraphCode): sources by
// their id after `rename` (none: as they are), an operator by its variant and
// its inputs' hashes, a commutative operator's inputs unordered.
std::vector<uint64_t> tensor_structure_hashes(const GraphCode& code, const Opset& opset,
                                              const Renaming* rename = nullptr);

// Equal for codes that are one graph over the same source names, whatever
// their operator order and the order of commutative inputs (the outputs'
// structure hashes as a multiset; a code has no duplicated computation, so
// they determine it).
uint64_t structure_hash(const GraphCode& code, const Opset& opset);

// Renames a rule's sources so that each interchange class is first used in
// index order, reading the target and then the source. The target is a
// renaming of a canonical generator code, so it becomes that code again; the
// rule is stored under this naming whatever naming it was found under.
void name_canonically(CandidateRule& rule, const Opset& opset);

}  // namespace superopt::enumeration
