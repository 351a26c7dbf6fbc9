// Concat written in place (issue 34, item 2): where the producers of a
// concat's inputs can write straight into slices (oneDNN sub-memories) of the
// concat's buffer, they do and no concat primitive runs; an input whose
// producer cannot is copied into its slice by one reorder. This file decides,
// from the graph and the formats tensors arrive in, without any buffers: the
// same answer for the executor (CpuGraph) and for the cost side.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

// The kernel that would write a concat input: a node alone, or a fused group's
// convolution with its post ops (the input is then the group's last output).
struct PartWriter {
  NodeId node = -1;               // the node whose kernel runs (a group's producer)
  std::vector<TensorRef> inputs;  // the kernel's inputs (a group's: fused_inputs)
  std::optional<PostOps> post;    // set for a fused group
};

// Structure only: the producer of input `input` of concat `concat` may write
// into the concat's buffer. The input is read by nothing else (this concat
// reads it once; not a graph output), its producer runs (not weight-only, not
// a graph input, not a view) and is a convolution (alone or ending a fused
// group), a pooling or a binary operator: the primitives of oneDNN 2.6 that
// take a destination descriptor of their own (eltwise and batch normalization
// write in their source's descriptor, so they cannot write a strided slice).
std::optional<PartWriter> part_writer(const Graph& g, NodeId concat, int input,
                                      const std::vector<bool>& weight_only, const FusionPlan& fusions);

// How a concat runs in place: its buffer's descriptor, the sub-memory each
// input fills, and whether the input's producer writes it (else a reorder
// copies it in at the concat's place).
struct ConcatInPlace {
  memory::desc layout;
  std::vector<memory::desc> parts;
  std::vector<int64_t> offsets;  // elements from the buffer's start to where parts[i] begins
  std::vector<bool> written;
  std::vector<PartWriter> writers;  // per input; meaningful where written
};

// The predicate the executor and the cost side share: how concat `id` runs in
// place, or nullopt when it runs as a concat primitive (today's copy). In
// place when
//  - the concat's buffer keeps the format the concat primitive would give it
//    for its inputs' arrival formats (so its readers see no change; blocked
//    nChw8c/16c only where every part's channel offset is a whole block, else
//    row-major);
//  - the axis is the channel axis of a 4-D tensor, or, in row-major order,
//    an axis with every dimension before it 1 (each part one contiguous slice);
//  - at least one input's producer (part_writer) builds with the slice as its
//    destination and gets the same implementation and input formats as
//    without it (oneDNN refusing or falling back to a slower kernel for the
//    strided destination keeps the copy).
// `arrival`: the format each tensor arrives in (cpu_arrival.h's ArrivalFormats).
// Builds kernels through `cache` (those the executor then reuses).
std::optional<ConcatInPlace> concat_in_place(KernelCache& cache, const Graph& g, NodeId id,
                                             const std::vector<bool>& weight_only, const FusionPlan& fusions,
                                             const std::function<memory::desc(TensorRef)>& arrival);

}  // namespace superopt::cpu
