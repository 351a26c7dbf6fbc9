// One graph node as oneDNN primitives: the dispatch from a registry operator to
// convolution, matmul, pooling, eltwise, binary, batch normalization, softmax,
// concat and reorder primitives, for inputs in given memory formats. Semantics
// follow runtime/core/kernels.h; operators with no primitive here (opaque, and
// operators added to the registry later) run the reference kernel instead.
#pragma once

#include <array>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/fusion.h"

namespace superopt::cpu {

using dnnl::memory;

// How a primitive call reads or writes one of the node's tensors.
struct Binding {
  int arg = 0;          // DNNL_ARG_*
  bool output = false;  // a node output, else a node input
  int index = 0;        // which input or output port
  // Another descriptor over the same buffer (a rank change, a sub-tensor, a
  // permuted view); unset: the tensor's own descriptor.
  std::optional<memory::desc> view;
};

struct PrimitiveCall {
  dnnl::primitive primitive;
  std::vector<Binding> bindings;
};

// A node compiled for inputs in given formats. The executor reorders each input
// into inputs[i] (once for folded weights, per run for activations) and
// allocates each output as outputs[port].
struct NodeKernel {
  std::vector<memory::desc> inputs;
  std::vector<memory::desc> outputs;
  std::vector<PrimitiveCall> calls;  // run in order
  std::string algorithm;             // "onednn:<implementation>,...", "host:pad" or "reference:<operator>"
  bool reference = false;            // no primitive: run_reference() on plain tensors (pad's copy, or the
                                     // reference kernel: algorithm "reference:...")
};

// A unary operator as one oneDNN eltwise algorithm (relu, sigmoid, tanh, clip,
// hardswish, silu, gelu, sqrt), or nullopt (hardsigmoid takes two).
struct EltwiseStep {
  dnnl::algorithm algorithm;
  float alpha = 0, beta = 0;
};
std::optional<EltwiseStep> eltwise_step(OpType op, const OpParams& p);
inline std::optional<EltwiseStep> eltwise_step(const Node& n) {
  return eltwise_step(n.op, n.params);
}

// What a convolution runs besides itself, when the executor fuses its
// followers (runtime/cost/fusion.h): a bias (a third input, [C] or broadcast as
// [1,C,1,1]), a sum post-op (the destination holds the residual before the
// call) and an eltwise post-op, in that order.
struct PostOps {
  bool bias = false;
  bool sum = false;
  std::optional<EltwiseStep> activation;
  // A leading pad folded into the window's padding (rows before and after,
  // columns before and after): the kernel reads the pad's input.
  std::optional<std::array<int32_t, 4>> pad;
  std::string key() const;
};

// A fused group's kernel inputs (the producer's, its source the leading pad's
// input when there is one, then the bias) and post ops; throws Error when its
// activation has no single eltwise algorithm.
std::vector<TensorRef> fused_inputs(const Graph& g, const Fusion& f);
PostOps fused_post_ops(const Graph& g, const Fusion& f);

// A kernel whose inputs and outputs are row-major (operators that address
// elements by position), without calls yet.
NodeKernel plain_kernel(const Graph& g, const Node& n);

// Row-major float32 descriptor of a shape (a rank-0 shape as one element).
memory::desc plain_desc(const Shape& shape);
memory::desc plain_desc(const memory::dims& dims);
memory::dims dims_of(const Shape& shape);

// The operators whose primitives take a destination descriptor of their own
// (build_kernel's `dst`): convolution, pooling, binary.
bool takes_destination(OpType op);

// Builds the kernel of node `id`. given[i] is the descriptor input i has now;
// weight[i] says input i is prepared once (folded), so the primitive may ask
// for any format. `dst`: the output must be written in exactly this
// descriptor (a slice of a concat's buffer, cpu_concat.h); only
// takes_destination operators take one (oneDNN 2.6's eltwise and batch
// normalization have no destination of their own). Throws Error when oneDNN
// rejects the operator.
NodeKernel build_kernel(const Graph& g, NodeId id, std::span<const memory::desc> given,
                        std::span<const bool> weight, const PostOps* post = nullptr,
                        const memory::desc* dst = nullptr);

// The reference kernel of node `id` in float on plain row-major buffers (one
// per input and per output port), for operators with no primitive; pad as a
// fill and row copies.
void run_reference(const Graph& g, NodeId id, std::span<const float* const> inputs,
                   std::span<float* const> outputs);

// Kernels cached per operator signature and input formats: equal nodes (the
// repeated blocks of a model, a re-measured signature) share one primitive.
class KernelCache {
 public:
  // `post`: a convolution with fused followers (given then holds the bias third);
  // `dst`: the output's fixed descriptor (build_kernel).
  const NodeKernel& get(const Graph& g, NodeId id, std::span<const memory::desc> given,
                        std::span<const bool> weight, const PostOps* post = nullptr,
                        const memory::desc* dst = nullptr);
  size_t size() const { return kernels_.size(); }

 private:
  int format_id(const memory::desc& d);
  std::map<std::string, NodeKernel> kernels_;
  std::vector<memory::desc> formats_;  // distinct descriptors, numbered for the key
};

}  // namespace superopt::cpu
