// A matmul node as a oneDNN matmul primitive (cpu_matmul.h).
#include "runtime/exec/cpu/cpu_matmul.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/cpu/cpu_matmul_layout.h"
#include "runtime/exec/cpu/cpu_primitives.h"

namespace superopt::cpu {
namespace {

// The dimensions a matmul runs at. A right operand broadcast over the batch (a
// weight after an attention's transpose: [128,1,768] x [768,2304]) makes
// oneDNN 2.6 run one GEMM of the batch's few rows per batch entry, reading the
// whole right operand each time (15 ms where one GEMM takes 0.9): such a
// product is one GEMM over all the left operand's rows, the same row-major
// bytes viewed as [rows, k], and its output as [rows, n]. A batch of one is
// viewed so too: as rank 3, oneDNN 2.6 packs no weight format for it and runs
// BERT's feed-forward [1,128,768] x [768,3072] about 15 % slower than as rank 2.
struct MatmulDims {
  memory::dims a, b, c;
  bool rows_merged = false;
};

MatmulDims matmul_dims(const Shape& a, const Shape& b, const Shape& c) {
  MatmulDims d{padded_dims(a, c.rank()), padded_dims(b, c.rank()), dims_of(c)};
  const size_t r = d.c.size();
  if (r <= 2 || std::any_of(d.b.begin(), d.b.end() - 2, [](int64_t x) { return x != 1; })) return d;
  const int64_t rows = std::accumulate(d.a.begin(), d.a.end() - 1, int64_t{1}, std::multiplies<>());
  return {{rows, d.a[r - 1]}, {d.b[r - 2], d.b[r - 1]}, {rows, d.c[r - 1]}, true};
}

}  // namespace

// Batched [..., m, k] x [..., k, n]; a rank-2 operand is broadcast over the
// batch (matmul_dims). A folded right operand (a weight) is packed in oneDNN's
// preferred format or transposed, whichever runs faster. With post ops, also
// the bias (input 2, broadcast as [1,...,1,n]). A linear layer is one with its
// own bias (input 2) and activation (an eltwise post-op before any sum).
NodeKernel matmul_kernel(const Graph& g, const Node& n, std::span<const memory::desc> given,
                         std::span<const bool> weight, const PostOps& post) {
  const Shape& a = g.shape(n.inputs()[0]);
  const Shape& b = g.shape(n.inputs()[1]);
  const Shape& c = n.output(0).shape;
  const MatmulDims dims = matmul_dims(a, b, c);
  const memory::dims &ad = dims.a, &bd = dims.b;
  memory::dims bias_dims(dims.c.size(), 1);
  bias_dims.back() = dims.c.back();
  const memory::desc bias = plain_desc(bias_dims);
  const bool linear = n.op == OpType::linear;
  const bool has_bias = post.bias || linear;
  const dnnl::primitive_attr attr = post_ops_attr(post, linear ? n.params.activation : Activation::none);
  auto make_with = [&](const memory::desc& weights) {
    const memory::desc out = plain_desc(dims.c);
    dnnl::matmul::desc d = has_bias ? dnnl::matmul::desc(plain_desc(ad), weights, bias, out)
                                    : dnnl::matmul::desc(plain_desc(ad), weights, out);
    return dnnl::matmul::primitive_desc(d, attr, engine());
  };
  auto make = [&](bool packed) { return make_with(packed ? any_desc(bd) : plain_desc(bd)); };
  dnnl::matmul::primitive_desc pd;
  bool packed = weight[1], transposed = false;
  try {
    pd = make(packed);
  } catch (const dnnl::error&) {
    packed = false;
    pd = make(false);
  }
  // A folded weight's layout is free at run time: time oneDNN's choice against
  // the transposed one (cpu_matmul_layout.h says why).
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < ad.size(); ++i) rows *= ad[i];
  if (packed && worth_timing_layouts(bd, rows) && pd.weights_desc() != transposed_desc(bd)) {
    const std::vector<dnnl::matmul::primitive_desc> candidates{pd, make_with(transposed_desc(bd))};
    if (fastest_matmul(candidates) == 1) pd = candidates[1], transposed = true;
  }
  NodeKernel k;
  k.inputs = {plain_desc(a), packed ? pd.weights_desc() : plain_desc(b)};
  k.outputs = {plain_desc(c)};
  PrimitiveCall call{
      dnnl::matmul(pd),
      {{DNNL_ARG_SRC, false, 0, plain_desc(ad)},
       {DNNL_ARG_WEIGHTS, false, 1, packed ? std::optional<memory::desc>() : plain_desc(bd)},
       {DNNL_ARG_DST, true, 0, dims.rows_merged ? plain_desc(dims.c) : std::optional<memory::desc>()}}};
  if (has_bias) {
    k.inputs.push_back(plain_desc(given[2].dims()));
    call.bindings.push_back({DNNL_ARG_BIAS, false, 2, bias});
  }
  k.calls.push_back(std::move(call));
  k.algorithm = "onednn:matmul:";
  k.algorithm.append(impl_text(pd))
      .append(dims.rows_merged ? "+rows_merged" : "")
      .append(linear ? "+own_bias" : "")
      .append(linear && n.params.activation != Activation::none
                  ? "+" + std::string(activation_name(n.params.activation))
                  : "")
      .append(transposed ? "+transposed_weights"
              : packed   ? "+packed_weights"
                         : "")
      .append(post.key());
  return k;
}

}  // namespace superopt::cpu
