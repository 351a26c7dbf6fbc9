// The operator registry: for every operator its name, parameters, arity, shape
// inference (with TASO's split trees), FLOP count and bytes moved. One place.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "runtime/core/shape.h"
#include "runtime/core/split_tree_table.h"

namespace superopt {

enum class OpType : uint8_t {
  // Graph sources: their shape is a parameter, they have no inputs.
  input,
  weight,
  // TASO's constant tensors (Table 1); their shape is a parameter.
  c_pool,    // C_pool(k): depthwise kernel [C,1,kh,kw] of 1/(kh*kw)
  i_conv,    // I_conv(k): identity convolution kernel [C,C/g,kh,kw]
  i_matmul,  // I_matmul: identity matrix [..., n, n]
  i_ewmul,   // I_ewmul: all ones
  // TASO's tensor operators (Table 1).
  ewadd,
  ewmul,
  smul,  // tensor times a one-element tensor
  transpose,
  matmul,   // batched
  conv2d,   // grouped; groups = input channels / weight dim 1
  enlarge,  // pad a kernel with zeros, centred, to a larger kernel size
  // A grouped kernel rewritten for fewer, larger groups (block-diagonal with zeros),
  // so that conv2d(x, w) with `groups` groups equals conv2d(x, merge_groups(w)) with
  // `into` groups (TASO's merge_gconv).
  merge_groups,
  relu,
  pool_avg,
  pool_max,
  concat,  // two or more inputs
  split,   // two outputs, at the most recent concat point on the axis
  // What real models need beyond TASO's set.
  sigmoid,
  tanh,
  batchnorm,  // inference: x, scale, bias, mean, var
  reshape,
  softmax,
  // What imported (ONNX) models need; no rule contains them (OpInfo::from_import).
  ewsub,
  ewdiv,
  sqrt,
  erf,
  clip,         // clamp to [lo, hi]
  pad,          // pad the last two dimensions with a value
  slice,        // elements [begin, end) along an axis
  reduce_mean,  // mean over the axes set in a mask, keeping them as size 1
  // What the torchvision zoo needs (issue 36); imported only, like the operators above.
  layer_norm,   // x, scale, bias: normalized over the dimensions from axis on
  hardsigmoid,  // PyTorch's: clip(x / 6 + 1/2, 0, 1)
  hardswish,    // x * hardsigmoid(x)
  silu,         // x * sigmoid(x) (swish)
  gelu,         // x * (1 + erf(x / sqrt(2))) / 2
  relu6,        // min(max(x, 0), 6): MobileNetV2's activation (ONNX Clip(x, 0, 6))
  expand,       // broadcast to the shape parameter (NumPy rules)
  resize,       // bilinear to the shape parameter, half-pixel centres (PyTorch's align_corners=False)
  exp,          // e^x (Swin V2's logit scale: a weight-only subgraph, folded in double at load)
  // A linear layer (PyTorch's Linear, ONNX's Gemm with a bias; issue 36): act(x W + b)
  // with x [..., K], W [K, N], b [N], the matmul, bias add and activation that
  // oneDNN's post-ops and cuBLASLt's epilogues run as one.
  linear,
  opaque,  // anything unknown: carried through, never rewritten
};
inline constexpr int kNumOpTypes = static_cast<int>(OpType::opaque) + 1;
inline constexpr int kMaxInputs = 8;
inline constexpr int kMaxOutputs = 2;

enum class Padding : uint8_t { same, valid };
// A convolution's fused activation: none, or one of the element-wise operators
// (activation_op). Stored as its index in rule databases and in the verifier's
// integer encoding (verify/param_ints.cc), so new ones go at the end.
enum class Activation : uint8_t { none, relu, sigmoid, silu, hardswish, gelu, relu6 };
inline constexpr int kNumActivations = static_cast<int>(Activation::relu6) + 1;

// The parameters an operator may take; OpInfo::params says which ones it does.
enum class Param : uint8_t {
  shape,
  perm,
  kernel,
  stride,
  padding,
  activation,
  axis,
  epsilon,
  groups,
  into,
  pads,
  value,
  limits,
  range,
  axes
};
inline constexpr int kNumParams = static_cast<int>(Param::axes) + 1;

// All parameters of all operators in one flat value type, so that nodes stay
// trivially copyable. Parameters an operator does not take keep their defaults.
struct OpParams {
  Shape shape;  // sources, constants, opaque: the output; reshape, expand, resize: target
  std::array<int8_t, kMaxRank> perm = {-1, -1, -1, -1, -1, -1};  // transpose: output dim i is
                                                                 // input dim perm[i]; unset (-1): reverse
  int32_t kernel_h = 0, kernel_w = 0;  // pooling window; enlarge: target kernel size
  int32_t stride_h = 1, stride_w = 1;  // conv2d, pooling
  int32_t axis = 0;                    // concat, split, softmax, layer_norm (non-negative after parsing)
  Padding padding = Padding::same;
  Activation activation = Activation::none;
  float epsilon = 1e-5f;  // batchnorm, layer_norm
  // merge_groups: the kernel's number of groups in the convolution it feeds, and the
  // number of groups after merging (divides groups). Both are parameters, not a count,
  // because the kernel's shape alone does not tell its groups (that needs the
  // convolution's input channels), and so that an axiom can name the merged
  // convolution's groups by a variable (the axiom language has no arithmetic).
  int32_t groups = 1, into = 1;
  // pad: rows added before and after, columns added before and after (last two dimensions).
  std::array<int32_t, 4> pads = {0, 0, 0, 0};
  float value = 0;  // pad: the value of the added elements (-inf for max pooling)
  // clip: the bounds; an infinite bound does not clamp.
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  int32_t begin = 0, end = 0;  // slice: the elements [begin, end) along axis
  uint8_t axes = 0;            // reduce_mean: bit i set reduces dimension i
};

// Whether an operator's outputs are views of its first input (no kernel runs,
// no memory moves): reshape always; split when its parts are contiguous slices,
// i.e. every dimension before the axis is 1 (channels at batch 1). A split
// elsewhere copies.
enum class View : uint8_t { never, always, when_leading_ones };

struct OpInfo {
  std::string_view name;
  int min_inputs = 0;
  int max_inputs = 0;
  int num_outputs = 1;
  bool commutative = false;  // the two inputs may be exchanged
  uint32_t param_mask = 0;   // bit i set: takes Param(i)
  std::string_view summary;
  View view = View::never;
  // Only imported models use it: the generator never enumerates it, so no rule
  // contains it and the verifier has no axioms about it.
  bool from_import = false;

  bool takes(Param p) const { return param_mask & (1u << static_cast<int>(p)); }
  bool is_source() const { return min_inputs == 0 && max_inputs == 0; }
};

const OpInfo& op_info(OpType op);
std::string_view op_name(OpType op);
std::optional<OpType> op_from_name(std::string_view name);
std::string_view param_name(Param p);
std::string_view padding_name(Padding p);
std::string_view activation_name(Activation a);
std::optional<Activation> activation_from_name(std::string_view name);
// The element-wise operator an activation applies (none: no operator), and back.
std::optional<OpType> activation_op(Activation a);
std::optional<Activation> activation_of(OpType op);
bool is_constant(OpType op);  // TASO's constant tensors

// Whether an operator with these parameters, reading an input of this shape,
// produces views of it (see View).
bool is_view(OpType op, const OpParams& params, const Shape& input);

// Compare and hash only the parameters the operator takes.
bool params_equal(OpType op, const OpParams& a, const OpParams& b);
uint64_t params_hash(OpType op, const OpParams& p, uint64_t seed);
std::string params_str(OpType op, const OpParams& p);  // "stride=1x1 padding=same"

// What flows along an edge: the shape and the split tree of each dimension.
// The trees are interned out of line (split_tree_table.h): inline they made a
// descriptor 220 bytes, a node 628, and the 4-operator rule database 5 GB.
struct TensorDesc {
  Shape shape;
  uint32_t splits_id = 0;  // intern_split_trees' id; 0: no dimension has a tree

  const SplitTree& split(int dim) const { return split_trees(splits_id)[dim]; }
  const SplitTrees& splits() const { return split_trees(splits_id); }
  void set_splits(const SplitTrees& trees) { splits_id = intern_split_trees(trees); }
  void set_split(int dim, const SplitTree& tree) {
    if (tree.empty() && splits_id == 0) return;
    SplitTrees trees = splits();
    trees[dim] = tree;
    set_splits(trees);
  }
  bool has_splits() const { return splits_id != 0; }
  // Interned ids are canonical, so member-wise equality compares the trees.
  bool operator==(const TensorDesc&) const = default;
};

// Computes the output descriptors (op_info(op).num_outputs of them) from the
// inputs. Throws Error naming the operator and the offending shapes when the
// inputs do not fit.
void infer_outputs(OpType op, const OpParams& params, std::span<const TensorDesc* const> inputs,
                   std::span<TensorDesc> outputs);

// Whether inputs fit an operator and, when not, why: the text infer_outputs'
// Error carries after "OP: ".
struct ShapeCheck {
  bool fits = true;
  std::string why;
};

// infer_outputs without the throw, for callers that try many shapes and expect
// most not to fit (rule families): a throw per misfit was ~30 % of derive's CPU.
// The outputs are unspecified when the check fails.
ShapeCheck try_infer_outputs(OpType op, const OpParams& params, std::span<const TensorDesc* const> inputs,
                             std::span<TensorDesc> outputs);

// infer_outputs' message for a failed check: "OP: why (inputs SHAPES)".
std::string shape_error(OpType op, std::span<const TensorDesc* const> inputs, const std::string& why);

// Number of groups of a convolution: input channels / weight dimension 1.
int64_t conv_groups(const Shape& input, const Shape& weight);

// Output size and leading padding of one spatial dimension (TensorFlow-style
// SAME: out = ceil(in / stride), the extra padding goes after).
struct Window {
  int64_t out = 0;
  int64_t pad_before = 0;
};
Window window(int64_t in, int64_t kernel, int64_t stride, Padding padding);

inline constexpr int64_t kBytesPerElement = 4;  // float32 on the device

struct OpCost {
  int64_t flops = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
};
OpCost op_cost(OpType op, const OpParams& params, std::span<const TensorDesc* const> inputs,
               std::span<const TensorDesc> outputs);

}  // namespace superopt
