// The formats a graph's tensors arrive in and the format conversions the CPU
// executor makes between them, worked out as CpuGraph plans them but without
// allocating or folding anything: what a node is measured with (issue 34,
// item 1: costs of what runs) and the reorders a graph's cost includes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

// The descriptor a tensor arrives in when the executor runs the graph:
// row-major for inputs, folded weights, views and reference kernels; else what
// its producer's kernel, built for its own inputs' arrival formats, leaves (a
// fused group's output: the fused primitive's).
class ArrivalFormats {
 public:
  ArrivalFormats(KernelCache& cache, const Graph& g, const std::vector<bool>& weight_only);

  memory::desc operator()(TensorRef t);
  // The kernel of `id` (with `post`: of the fused group it leads) on its inputs' arrival formats.
  const NodeKernel& kernel(NodeId id, const std::vector<TensorRef>& inputs, const PostOps* post);
  const FusionPlan& fusions() const { return plan_; }

 private:
  memory::desc compute(TensorRef t);

  KernelCache& cache_;
  const Graph& g_;
  const std::vector<bool>& weight_only_;
  FusionPlan plan_;
  std::map<std::pair<NodeId, int>, memory::desc> memo_;
};

// One reorder step a run makes: tensor `tensor` from `from` into `to`.
struct Conversion {
  TensorRef tensor;
  memory::desc from, to;
};

// Every reorder step CpuGraph plans for g, in order (weights are converted once,
// at load, and are not among them); CpuGraph::num_reorders() of the same graph.
std::vector<Conversion> planned_conversions(KernelCache& cache, const Graph& g,
                                            const std::vector<bool>& weight_only);
// The same with formats worked out beforehand (or shared with other lookups on
// the same graph: the cpu cost model makes one ArrivalFormats per graph).
std::vector<Conversion> planned_conversions(ArrivalFormats& arrival, const Graph& g,
                                            const std::vector<bool>& weight_only);

// The cost-table key of a conversion: "reorder||SHAPE|FROM>TO" with each
// format as its strides and inner blocks, e.g. "s..:8:1+b1x8".
std::string conversion_signature(const Graph& g, const Conversion& c);

}  // namespace superopt::cpu
