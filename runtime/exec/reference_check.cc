// The checks executors share (see reference_check.h).
#include "runtime/exec/reference_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "runtime/core/arith.h"
#include "runtime/core/kernels.h"

namespace superopt {

double relative_error(const Tensor<float>& got, const Tensor<double>& want) {
  if (got.shape != want.shape) return std::numeric_limits<double>::infinity();
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < want.size(); ++i) {
    if (std::isinf(want[i]) && got[i] == want[i])
      continue;  // the same infinity (an attention mask's -inf): exact
    if (!std::isfinite(want[i]) || !std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

std::vector<Tensor<double>> held_inputs(const Graph& g, NodeId id,
                                        const std::function<Tensor<float>(TensorRef)>& download) {
  std::vector<Tensor<double>> inputs;
  for (TensorRef t : g.node(id).inputs()) {
    Tensor<float> held = download(t);
    inputs.emplace_back(held.shape, std::vector<double>(held.data.begin(), held.data.end()));
  }
  return inputs;
}

std::vector<Tensor<double>> reference_outputs(const Node& n, const std::vector<Tensor<double>>& inputs) {
  std::vector<const Tensor<double>*> ptrs;
  for (const Tensor<double>& t : inputs) ptrs.push_back(&t);
  RealArith<double> ar;
  return run_op(ar, n.op, n.params, std::span<const Tensor<double>* const>(ptrs),
                std::span<const TensorDesc>(n.output_array.data(), size_t(n.num_outputs())));
}

}  // namespace superopt
