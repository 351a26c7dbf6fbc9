// What every executor's --check shares: the error measure, and the reference
// operator run in double on the inputs as the backend holds them (a kernel's
// own error, without the compounding through the graph).
#pragma once

#include <functional>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/tensor.h"

namespace superopt {

// max|got - want| / max|want|; infinite when either side has a value that is not finite.
double relative_error(const Tensor<float>& got, const Tensor<double>& want);

// Node id's inputs as the backend holds them (`download`), in double.
std::vector<Tensor<double>> held_inputs(const Graph& g, NodeId id,
                                        const std::function<Tensor<float>(TensorRef)>& download);

// Node n's outputs from the reference kernel in double, on the given inputs.
std::vector<Tensor<double>> reference_outputs(const Node& n, const std::vector<Tensor<double>>& inputs);

}  // namespace superopt
