// Whole-graph evaluation with the reference kernels, in any arithmetic, and seeded random
// values for a graph's inputs and weights.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/tensor.h"

namespace superopt {

// The values of a source node (an input or a weight); must have the node's shape.
template <class A>
using SourceValues = std::function<Tensor<typename A::Value>(const Graph&, NodeId)>;

// Called before each operator (not a source) is computed, with the number of
// operators computed so far; it may throw to stop the evaluation (the numerical
// check's deadline), which then frees what it holds.
using BeforeOperator = std::function<void(int64_t operators_done)>;

// Evaluates every node in topological order and returns the graph outputs in
// order. Constants and operators are computed; inputs and weights come from
// `sources`. Throws Error on a cycle, on a source value of the wrong shape, and on
// a node whose stored shapes no longer follow from its inputs (an edited graph
// without infer_shapes()). Intermediate tensors are freed after their last use.
//
// Instantiated for ModArith, RealArith<double>, RealArith<float> and SymbolicArith
// (include runtime/core/arith_z3.h and link superopt_symbolic to use the last).
template <class A>
std::vector<Tensor<typename A::Value>> evaluate(const Graph& g, const A& ar, const SourceValues<A>& sources,
                                                const BeforeOperator& before_operator = {});

// From shapes alone, before anything is allocated: whether evaluate() of g with
// values of value_bytes each fits in the memory budget (memory_budget.h), the
// tensors live at each step counted as evaluate() frees them. Throws Error naming
// the node where the budget is exceeded. evaluate() checks this itself.
void check_evaluation_memory(const Graph& g, int64_t value_bytes);

// Seeded random values for inputs and weights: uniform in the arithmetic's domain,
// drawn in row-major order from a generator seeded by (seed, the source's name), so
// that two graphs over the same names get the same values whatever their node ids.
// A weight given with data uses that data when A is a RealArith. `ar` is copied.
template <class A>
SourceValues<A> random_sources(const A& ar, uint64_t seed);

}  // namespace superopt
