// Runs one graph node on the GPU: the dispatch from a registry operator to a
// cuDNN, cuBLAS or hand-written kernel call, shared by the executor and the op timer.
#pragma once

#include <span>
#include <string>

#include "runtime/core/graph.h"
#include "runtime/exec/cuda/gpu_context.h"
#include "runtime/exec/cuda/gpu_kernels.h"

namespace superopt::cuda {

// Enqueues node `id` of g on ctx's stream, reading `inputs` (one device pointer
// per input) and writing `outputs` (one per output port, float32, row-major).
// `key` is the node's op_signature (it keys the algorithm cache); col_major
// stores matmul operands and result column-major. Returns the algorithm used
// ("cudnn:...", "cublas:...", "kernel:NAME"). Throws Error for operators that
// have no GPU kernel (sources, constants, enlarge, opaque: weight-only parts
// are folded on the CPU before a graph reaches the GPU).
std::string launch_node(GpuContext& ctx, const Graph& g, NodeId id, std::span<const float* const> inputs,
                        std::span<float* const> outputs, const std::string& key, bool col_major = false);

// The call parameters launch_node derives from a node's shapes and parameters
// (exposed so that CPU tests can check them against the reference kernels).
StridedShape binary_shape(const Shape& a, const Shape& b, const Shape& out);
StridedShape transpose_shape(const OpParams& p, const Shape& in, const Shape& out);
ConvShape conv_shape(const OpParams& p, const Shape& x, const Shape& w, const Shape& y);
PoolShape pool_shape(const OpParams& p, const Shape& x, const Shape& y);
MatmulShape matmul_shape(const Shape& a, const Shape& b, const Shape& out, bool col_major);

// Element offset of each output of a node that is a view of its input
// (reshape; split along an axis with only size-1 dimensions before it), or
// false when the node computes new data.
bool view_offsets(const Graph& g, NodeId id, std::span<int64_t> offsets);

}  // namespace superopt::cuda
