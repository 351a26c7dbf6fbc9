// The graph generator: enumerates every canonical graph of up to N operators
// over an opset, evaluating incrementally in modular arithmetic and
// fingerprinting each (TASO Algorithm 1, step 1, with each graph made once).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "enum/graph_code.h"
#include "enum/opset.h"

namespace superopt::enumeration {

// Hash of one tensor's shape and contents, and the symmetric combination of
// output hashes into a graph's fingerprint (independent of output order).
uint64_t tensor_hash(const Shape& shape, std::span<const uint64_t> values);
uint64_t combine_output_hashes(std::vector<uint64_t> hashes);

struct GeneratorCounts {
  uint64_t graphs = 0;          // canonical graphs visited
  uint64_t aligned = 0;         // their aligned codes (GeneratedGraph): graphs plus extra structures
  uint64_t renamings = 0;       // renamings evaluated to find the class keys, the identities included
  uint64_t not_canonical = 0;   // appends refused: another order of the same graph
  uint64_t renamed_inputs = 0;  // appends refused: interchangeable inputs out of order
  uint64_t duplicate_computation = 0;
  uint64_t duplicate_values = 0;  // appends refused: an output equals a tensor already present
};

// A graph as the generator hands it out; valid only during the visit.
// `fingerprint` is the graph's under its own naming. `class_key` is the
// smallest fingerprint over the renamings of its used interchangeable sources
// (RenamingOrbit): graphs equal up to a renaming share it. `aligned` holds the
// renamings of `code` whose fingerprint is the class key, one per distinct
// graph: usually one; more when the function has a symmetry the graph does
// not (x3 + (x1 + x2) renamed to x1 + (x2 + x3)), which pairs the graph with
// its own renamings.
struct GeneratedGraph {
  uint64_t fingerprint;
  const GraphCode& code;
  uint64_t class_key;
  std::span<const GraphCode> aligned;
};
using GraphVisitor = std::function<void(const GeneratedGraph&)>;
// Whether a visited graph may be extended by more operators.
using ExtendFilter = std::function<bool(const GeneratedGraph&)>;

// Canonical (orderly) generation: a sequence of operators is generated only if
// it is the smallest topological order of its graph under a fixed total order
// of operator trees, so reorderings of independent operators are made once;
// interchangeable sources are first used in index order; commutative inputs
// are ordered; an operator equal to one already present (duplicated
// computation) is refused, and so is one whose output equals a tensor already
// present (TASO: the graph is a longer way of writing a smaller one).
class Generator {
 public:
  // `order_inputs` false turns off the index-order rule for interchangeable
  // sources (every renaming is then generated), to measure or test it; class
  // keys then see only the renamings of index-ordered prefixes.
  Generator(const Opset& opset, int max_ops, uint64_t seed, bool order_inputs = true);
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // The work units of a run: every canonical code of exactly `depth`
  // operators (depth <= max_ops), in generation order. Graphs with fewer
  // operators belong to the unit with an empty prefix.
  std::vector<GraphCode> prefixes(int depth);

  // Visits the graphs of one work unit: with an empty prefix, every graph of
  // 1 to `depth` - 1 operators; otherwise the prefix and every canonical graph
  // extending it, up to max_ops operators.
  void run_unit(const GraphCode& prefix, int depth, const GraphVisitor& visit);

  const GeneratorCounts& counts() const { return counts_; }

  // Only graphs the filter accepts are extended (Quartz's RepGen keeps
  // representatives); a graph at max_ops is never asked. Applies to
  // prefixes() and run_unit() alike, so a unit below a refused graph is empty.
  void set_extend_filter(ExtendFilter filter);

 private:
  struct State;
  std::unique_ptr<State> state_;
  GeneratorCounts counts_;
};

}  // namespace superopt::enumeration
