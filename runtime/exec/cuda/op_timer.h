// Measures one node's operator alone on the GPU with CUDA events over rotating
// buffers: the cost behind a signature in a cost table (TASO section 5).
#pragma once

#include <string>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_table.h"
#include "runtime/exec/cuda/gpu_context.h"

namespace superopt::cuda {

// Median of `repeats` timed runs after `warmup` untimed ones. Inputs hold
// uniform values in [0.5, 1.5) (positive, so batchnorm variances are valid);
// several input/output sets rotate so that caches stay cold-ish. The layout
// field of `signature` ("row"/"col") chooses matmul's layout.
CostEntry measure_node(GpuContext& ctx, const Graph& g, NodeId id, const std::string& signature, int warmup,
                       int repeats);

// The median of a list of times (sorted copy; the mean of the middle two for even sizes).
double median_ms(std::vector<double> times);
// The q-quantile (0..1) by nearest rank.
double quantile_ms(std::vector<double> times, double q);

}  // namespace superopt::cuda
