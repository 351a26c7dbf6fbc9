// Small helpers the oneDNN kernel builders share (cpu_kernels.cc, cpu_matmul.cc):
// descriptors, broadcast dimensions, post-ops and the implementation's name.
#pragma once

#include <string>

#include "runtime/exec/cpu/cpu_kernels.h"

namespace superopt::cpu {

// An f32 descriptor whose format the primitive chooses.
memory::desc any_desc(const memory::dims& dims);
// The dimensions of a shape with leading ones up to `rank` (NumPy broadcasting aligns right).
memory::dims padded_dims(const Shape& s, int rank);
// oneDNN's name of the implementation a primitive descriptor picked (its kernel text).
std::string impl_text(const dnnl::primitive_desc_base& pd);
// The post-ops of fused followers: the node's own activation `own` first, then
// the sum (a residual add), then the followers' activation.
dnnl::primitive_attr post_ops_attr(const PostOps& post, Activation own = Activation::none);

}  // namespace superopt::cpu
