// graph_copy_bytes(): a graph copy's size from its node and edge counts.
#include "search/graph_bytes.h"

#include <memory>

namespace superopt::search {
namespace {

// The search's own per-graph records: the shared_ptr's control block, the
// seen set's entry, a queue entry and the step history.
constexpr int64_t kBookkeepingBytes = 256;

}  // namespace

int64_t graph_copy_bytes(const Graph& g) {
  int64_t weights_with_data = 0;
  for (const Node& n : g.nodes()) weights_with_data += n.data >= 0;
  return int64_t(sizeof(Graph)) + int64_t(g.nodes().size()) * int64_t(sizeof(Node)) +
         int64_t(g.outputs().size()) * int64_t(sizeof(TensorRef)) +
         weights_with_data * int64_t(sizeof(std::shared_ptr<const std::vector<float>>)) + kBookkeepingBytes;
}

}  // namespace superopt::search
