// Executes two graphs on the same small symbolic tensors (the z3::expr reference
// kernels) and decides whether their outputs are equal in real arithmetic.
#pragma once

#include <z3++.h>

#include <optional>
#include <string>

#include "runtime/core/graph.h"

namespace superopt::verify {

enum class Comparison : uint8_t { equal, differ, unknown };

struct SymbolicComparison {
  Comparison result = Comparison::unknown;
  int output = -1;       // differ: the first output that differs
  int64_t element = -1;  // and the element in it (row-major)
  std::string detail;    // differ or unknown: what was found
};

// Weights symbolic like inputs, or exact random integers: then every output is
// linear in the inputs when the graph is linear in them, which Z3's simplifier
// decides at once, where products of symbolic weights and inputs can take it
// minutes (a random integer instance is the Schwartz-Zippel test for weights).
enum class SymbolicWeights : uint8_t { symbolic, random_integers };

// Evaluates both graphs with SymbolicArith on sources drawn from one seed (equal
// names get equal variables) and compares outputs k of a and b. Non-linear
// functions (relu, sigmoid, ...) are uninterpreted, so `equal` means equal for
// every such function. Each element is first compared by Z3's simplifier; what
// it cannot decide goes to the solver within timeout_ms (timeout_ms 0 with
// symbolic weights: no solver, `unknown` instead). Output shapes that differ
// give `differ`. Throws Error when a graph cannot be evaluated.
SymbolicComparison compare_symbolically(z3::context& ctx, const Graph& a, const Graph& b, unsigned timeout_ms,
                                        SymbolicWeights weights = SymbolicWeights::symbolic);

// The shapes of a graph's inputs and weights, "x=2x4 w=4x4", for reports.
std::string source_shapes(const Graph& g);

}  // namespace superopt::verify
