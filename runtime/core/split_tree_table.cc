// The process-wide table behind TensorDesc's split-tree id (intern_table.h).
#include "runtime/core/split_tree_table.h"

#include "runtime/core/hashing.h"
#include "runtime/core/intern_table.h"

namespace superopt {
namespace {

struct TreesHash {
  size_t operator()(const SplitTrees& trees) const {
    uint64_t h = 0x5b1;
    for (const SplitTree& t : trees) {
      for (int k = 0; k < t.count(); ++k) h = hash_combine(h, static_cast<uint64_t>(t.point(k)) + 1);
      h = hash_combine(h, 0);
    }
    return static_cast<size_t>(h);
  }
};

using SplitTreeTable = InternTable<SplitTrees, TreesHash, std::equal_to<SplitTrees>>;

SplitTreeTable& table() {
  static SplitTreeTable* t = new SplitTreeTable(SplitTrees{});  // never destroyed: used during exit
  return *t;
}

const SplitTrees kNoTrees{};

bool all_empty(const SplitTrees& trees) {
  for (const SplitTree& t : trees)
    if (!t.empty()) return false;
  return true;
}

}  // namespace

uint32_t intern_split_trees(const SplitTrees& trees) {
  return all_empty(trees) ? 0 : table().intern(trees);  // the common case takes no lock
}

const SplitTrees& split_trees(uint32_t id) {
  return id == 0 ? kNoTrees : table().at(id);
}

size_t num_interned_split_trees() {
  return table().size() - 1;
}

}  // namespace superopt
