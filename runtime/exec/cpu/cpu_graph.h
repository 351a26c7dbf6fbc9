// A whole graph ready to run on the CPU through oneDNN: weight-only parts folded
// once on the CPU reference and reordered once into the formats the primitives
// want, one buffer per activation tensor in the format its producer chose
// (format_tag::any inside), reorders only where a consumer needs another
// format, views for reshape and contiguous splits, concats written in place by
// their producers (cpu_concat.h), and a run() that executes the planned steps
// in topological order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/tensor.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cpu/cpu_concat.h"
#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

class CpuGraph {
 public:
  // Inputs and weights get the seeded values of random_sources(RealArith<double>, seed)
  // rounded to float, so a CPU reference with the same seed sees the same numbers.
  CpuGraph(KernelCache& cache, const Graph& g, uint64_t seed);

  void run();
  // One tensor as a row-major float tensor: a graph input, any operator's input
  // or output, or a folded weight (for the checks).
  Tensor<float> download(TensorRef t);
  // False for a tensor inside a fused group (or an interior weight).
  bool held(TensorRef t) const;
  std::vector<Tensor<float>> outputs();
  // Primitive calls per run, reorders included (views and folded weights excluded).
  int num_launches() const { return static_cast<int>(steps_.size()); }
  // Reorders per run between formats (part of num_launches).
  int num_reorders() const { return reorders_; }
  // Folded weights equal to one folded before them, which share its buffer.
  int num_shared_weights() const { return static_cast<int>(twin_.size()); }
  // Nodes run inside a convolution or matmul primitive (bias, residual add, activation).
  int num_fused() const { return fused_nodes_; }
  // Concats run in place: their producers write slices of their buffer, no concat primitive.
  int num_concats_in_place() const { return concats_in_place_; }
  // Of their inputs, those copied into their slice by a reorder (part of num_launches,
  // not of num_reorders: they replace the concat's copy, they convert nothing).
  int num_concat_copies() const { return concat_copies_; }

 private:
  struct Step {
    dnnl::primitive primitive;
    std::unordered_map<int, dnnl::memory> args;
    std::function<void()> host;  // the reference kernel instead of a primitive
  };

  dnnl::memory allocate(const memory::desc& d);
  dnnl::memory& tensor(TensorRef t) { return tensors_[t.node][t.port]; }
  // The tensor in descriptor `want`: itself, or a reordered copy (made once for
  // folded weights, a reorder step per run otherwise); cached per tensor and format.
  dnnl::memory in_format(TensorRef t, const memory::desc& want, bool weight);
  void plan_views(NodeId id);
  void plan_node(NodeId id, const std::vector<bool>& weight_only);
  void plan_fusion(const Fusion& f, const std::vector<bool>& weight_only);
  void plan_concats(const std::vector<bool>& weight_only, const FusionPlan& fusions);
  void plan_concat_copies(NodeId id);
  // The slice of a concat's buffer tensor t is written into, or null (t gets its own buffer).
  const memory::desc* slice_of(TensorRef t) const;
  // The kernel of `id` (with `post`) writing `out`: into its concat slice where
  // one is planned and oneDNN builds it so, else into a buffer of its own (the
  // concat then copies it in; `slice` says which).
  const NodeKernel& kernel_writing(TensorRef out, NodeId id, std::span<const memory::desc> given,
                                   std::span<const bool> weights, const PostOps* post,
                                   const memory::desc*& slice);
  dnnl::memory slice_memory(TensorRef t);
  void add_calls(const NodeKernel& k, const std::vector<dnnl::memory>& ins,
                 const std::vector<dnnl::memory>& outs);

  KernelCache& cache_;
  const Graph& graph_;
  std::vector<std::vector<dnnl::memory>> tensors_;  // [node][port], in the producer's format
  std::map<std::pair<std::pair<int, int>, size_t>, dnnl::memory> converted_;
  // A folded weight equal to one folded before it, value for value, shares its
  // buffer and its converted copies: the twin each is keyed under in converted_.
  std::map<std::pair<int, int>, std::pair<int, int>> twin_;
  std::vector<memory::desc> converted_formats_;
  std::vector<Step> steps_;
  std::map<NodeId, ConcatInPlace> in_place_;                           // per concat run in place
  std::map<std::pair<int, int>, std::pair<NodeId, int>> writes_into_;  // tensor -> (concat, input)
  int reorders_ = 0;
  int fused_nodes_ = 0;
  int concats_in_place_ = 0;
  int concat_copies_ = 0;
};

}  // namespace superopt::cpu
