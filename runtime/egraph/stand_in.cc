// Stand-ins for e-classes in scratch graphs (see stand_in.h).
#include "runtime/egraph/stand_in.h"

namespace superopt::egraph {

TensorRef stand_in(Graph& scratch, const TensorDesc& desc, const std::string& name) {
  const Shape& shape = desc.shape;
  for (int dim = 0; desc.has_splits() && dim < shape.rank(); ++dim) {
    const SplitTree& tree = desc.split(dim);
    if (tree.empty() || tree.split_point() <= 0 || tree.split_point() >= shape[dim]) continue;
    Shape left = shape, right = shape;
    left.set(dim, tree.split_point());
    right.set(dim, shape[dim] - tree.split_point());
    TensorRef a{scratch.add_input(name + "_a", left), 0};
    TensorRef b{scratch.add_input(name + "_b", right), 0};
    OpParams p;
    p.axis = dim;
    return {scratch.add(OpType::concat, {a, b}, p), 0};
  }
  return {scratch.add_input(name, shape), 0};
}

}  // namespace superopt::egraph
