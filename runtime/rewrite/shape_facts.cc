// A rule's family of shapes (see shape_facts.h).
#include "runtime/rewrite/shape_facts.h"

#include <algorithm>

namespace superopt {

ShapeFacts shape_facts(const Graph& side, const Node& n) {
  ShapeFacts f;
  for (int port = 0; port < n.num_outputs(); ++port)
    f.output_ranks.push_back(static_cast<int8_t>(n.output(port).shape.rank()));
  auto inputs = n.inputs();
  if (n.op == OpType::conv2d) {
    const Shape &x = side.shape(inputs[0]), &w = side.shape(inputs[1]);
    f.groups = conv_groups(x, w);
    f.depthwise = f.groups > 1 && w[1] == 1;
  }
  if ((n.op == OpType::ewadd || n.op == OpType::ewmul) && inputs.size() == 2)
    f.same_shape_inputs = side.shape(inputs[0]) == side.shape(inputs[1]);
  if (n.op == OpType::ewmul || n.op == OpType::smul)
    f.one_element_inputs = !inputs.empty() && std::all_of(inputs.begin(), inputs.end(), [&](TensorRef t) {
      return side.shape(t).num_elements() == 1;
    });
  if ((n.op == OpType::c_pool || n.op == OpType::i_conv) && n.output(0).shape.rank() == 4) {
    f.kernel_h = n.output(0).shape[2];
    f.kernel_w = n.output(0).shape[3];
  }
  return f;
}

bool shapes_fit(const ShapeFacts& f, const Graph& g, const Node& n) {
  if (n.num_outputs() != int(f.output_ranks.size())) return false;
  for (int port = 0; port < n.num_outputs(); ++port)
    if (n.output(port).shape.rank() != f.output_ranks[port]) return false;
  auto inputs = n.inputs();
  if (n.op == OpType::conv2d) {
    const Shape &x = g.shape(inputs[0]), &w = g.shape(inputs[1]);
    int64_t groups = conv_groups(x, w);
    if (f.any_group_multiple) {
      if (groups % f.groups != 0) return false;
    } else if (f.depthwise ? !(w[1] == 1 && groups == x[1]) : groups != f.groups) {
      return false;
    }
  }
  if (f.same_shape_inputs && g.shape(inputs[0]) != g.shape(inputs[1])) return false;
  if (n.op == OpType::ewmul || n.op == OpType::smul) {
    bool one = std::all_of(inputs.begin(), inputs.end(),
                           [&](TensorRef t) { return g.shape(t).num_elements() == 1; });
    // The general symbol's axioms hold for one-element tensors too; not the reverse.
    if (f.one_element_inputs && !one) return false;
  }
  if (f.kernel_h > 0) {
    const Shape& s = n.output(0).shape;
    if (s[2] != f.kernel_h || s[3] != f.kernel_w) return false;
  }
  return true;
}

}  // namespace superopt
