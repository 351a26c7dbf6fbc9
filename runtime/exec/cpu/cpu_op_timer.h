// Measures one node's operator alone on the CPU backend over rotating buffers:
// the cost behind a signature in a CPU cost table (TASO section 5).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_table.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cpu/cpu_arrival.h"
#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

// Median of `repeats` timed runs after `warmup` untimed ones, and their
// interquartile range (the entry's spread_ms). The operator's
// primitives run as the executor runs them; inputs arrive in the formats the
// primitive asks for (the reorders a graph may need before it are not part of
// the operator). Inputs hold uniform values in [0.5, 1.5) (positive, so
// batchnorm variances are valid); several buffer sets rotate so that caches
// stay cold-ish.
CostEntry measure_node(KernelCache& cache, const Graph& g, NodeId id, const std::vector<bool>& weight_only,
                       int warmup, int repeats);

// The same for a fused group (fusion.h) as the executor runs it: one primitive
// with the bias, sum and eltwise post-ops (the residual's copy into the
// destination is not part of it). The cost behind fused_signature(g, f).
// One reorder step of a graph (cpu_arrival.h), the cost behind conversion_signature.
CostEntry measure_conversion(const Conversion& c, int warmup, int repeats);

CostEntry measure_fusion(KernelCache& cache, const Graph& g, const Fusion& f,
                         const std::vector<bool>& weight_only, int warmup, int repeats);

// Both with the graph's arrival formats worked out beforehand (one
// ArrivalFormats per graph serves every node measured in it).
CostEntry measure_node(ArrivalFormats& arrival, const Graph& g, NodeId id, int warmup, int repeats);
CostEntry measure_fusion(ArrivalFormats& arrival, const Graph& g, const Fusion& f, int warmup, int repeats);

// Runs run() `warmup` times, then `repeats` times, each timed alone (wall clock,
// steady); returns each timed run's milliseconds.
std::vector<double> time_runs_ms(int warmup, int repeats, const std::function<void(int)>& run);

}  // namespace superopt::cpu
