// The split trees of a tensor's dimensions, kept out of line: a tensor
// descriptor carries a 4-byte id into a process-wide interned table, so that
// graph nodes stay small (a rule database holds millions of them) and
// trivially copyable. Almost every tensor has no split trees: that is id 0.
#pragma once

#include <array>
#include <cstdint>

#include "runtime/core/shape.h"
#include "runtime/core/split_tree.h"

namespace superopt {

using SplitTrees = std::array<SplitTree, kMaxRank>;  // one per dimension

// Equal arrays get equal ids within a process (so ids compare as the arrays
// do); 0 for all empty. The id is not stable across processes: hashes and
// files use the trees themselves. Thread-safe; entries are never removed.
uint32_t intern_split_trees(const SplitTrees& trees);
// The array behind an id from intern_split_trees; the reference stays valid.
const SplitTrees& split_trees(uint32_t id);
// How many distinct non-empty arrays this process has interned.
size_t num_interned_split_trees();

}  // namespace superopt
