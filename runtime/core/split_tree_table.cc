// The process-wide table behind TensorDesc's split-tree id; append-only and
// thread-safe, as the symbol table is.
#include "runtime/core/split_tree_table.h"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "runtime/core/error.h"
#include "runtime/core/hashing.h"

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

struct SplitTreeTable {
  std::mutex mutex;
  std::deque<SplitTrees> trees{SplitTrees{}};  // deque: references stay valid
  std::unordered_map<SplitTrees, uint32_t, TreesHash> ids;
};

SplitTreeTable& table() {
  static SplitTreeTable* t = new SplitTreeTable;  // never destroyed: used during exit
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
  if (all_empty(trees)) return 0;  // the common case takes no lock
  SplitTreeTable& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.ids.find(trees);
  if (it != t.ids.end()) return it->second;
  if (t.trees.size() > UINT32_MAX - 1) throw Error("more distinct split trees than a 32-bit id can name");
  auto id = static_cast<uint32_t>(t.trees.size());
  t.trees.push_back(trees);
  t.ids.emplace(trees, id);
  return id;
}

const SplitTrees& split_trees(uint32_t id) {
  if (id == 0) return kNoTrees;
  SplitTreeTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.trees[id];
}

size_t num_interned_split_trees() {
  SplitTreeTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.trees.size() - 1;
}

}  // namespace superopt
