// The operator table and per-operator shape inference and costs (parameters are
// compared, hashed and printed in operator_params.cc).
#include "runtime/core/operator_registry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "runtime/core/error.h"
#include "runtime/core/imported_ops.h"

namespace superopt {
namespace registry_detail {
bool fail(ShapeCheck& c, std::string why) {
  c.fits = false;
  c.why = std::move(why);
  return false;
}
}  // namespace registry_detail

namespace {

constexpr uint32_t bit(Param p) {
  return 1u << static_cast<int>(p);
}
constexpr uint32_t kConvParams = bit(Param::stride) | bit(Param::padding) | bit(Param::activation);
constexpr uint32_t kPoolParams = bit(Param::kernel) | bit(Param::stride) | bit(Param::padding);

// Indexed by OpType; the static_assert below keeps it in step with the enum.
constexpr OpInfo kOps[] = {
    {"input", 0, 0, 1, false, bit(Param::shape), "graph input"},
    {"weight", 0, 0, 1, false, bit(Param::shape), "trained weight (data optional)"},
    {"C_pool", 0, 0, 1, false, bit(Param::shape), "average-pooling kernel [C,1,kh,kw] of 1/(kh*kw)"},
    {"I_conv", 0, 0, 1, false, bit(Param::shape), "identity convolution kernel [C,C/g,kh,kw]"},
    {"I_matmul", 0, 0, 1, false, bit(Param::shape), "identity matrix [...,n,n]"},
    {"I_ewmul", 0, 0, 1, false, bit(Param::shape), "tensor of ones"},
    {"ewadd", 2, 2, 1, true, 0, "element-wise addition (broadcasting)"},
    {"ewmul", 2, 2, 1, true, 0, "element-wise multiplication (broadcasting)"},
    {"smul", 2, 2, 1, false, 0, "tensor times a one-element tensor"},
    {"transpose", 1, 1, 1, false, bit(Param::perm), "permute dimensions"},
    {"matmul", 2, 2, 1, false, 0, "batched matrix multiplication"},
    {"conv2d", 2, 3, 1, false, kConvParams, "grouped 2-D convolution, NCHW, with an optional bias [O]"},
    {"enlarge", 1, 1, 1, false, bit(Param::kernel), "pad a kernel with zeros to a larger size"},
    {"merge_groups", 1, 1, 1, false, bit(Param::groups) | bit(Param::into),
     "grouped kernel for fewer, larger groups (block-diagonal)"},
    {"relu", 1, 1, 1, false, 0, "rectified linear unit"},
    {"pool_avg", 1, 1, 1, false, kPoolParams, "average pooling (padding counts as zeros)"},
    {"pool_max", 1, 1, 1, false, kPoolParams, "max pooling"},
    {"concat", 2, kMaxInputs, 1, false, bit(Param::axis), "concatenation along an axis"},
    {"split", 1, 1, 2, false, bit(Param::axis), "undo the most recent concat on an axis",
     View::when_leading_ones},
    {"sigmoid", 1, 1, 1, false, 0, "logistic function"},
    {"tanh", 1, 1, 1, false, 0, "hyperbolic tangent"},
    {"batchnorm", 5, 5, 1, false, bit(Param::epsilon), "inference batch norm: x, scale, bias, mean, var"},
    {"reshape", 1, 1, 1, false, bit(Param::shape), "same elements, new shape", View::always},
    {"softmax", 1, 1, 1, false, bit(Param::axis), "softmax along an axis"},
    {"ewsub", 2, 2, 1, false, 0, "element-wise subtraction (broadcasting)", View::never, true},
    {"ewdiv", 2, 2, 1, false, 0, "element-wise division (broadcasting)", View::never, true},
    {"sqrt", 1, 1, 1, false, 0, "square root", View::never, true},
    {"erf", 1, 1, 1, false, 0, "error function", View::never, true},
    {"clip", 1, 1, 1, false, bit(Param::limits), "clamp to [lo, hi]", View::never, true},
    {"pad", 1, 1, 1, false, bit(Param::pads) | bit(Param::value), "pad the last two dimensions with a value",
     View::never, true},
    {"slice", 1, 1, 1, false, bit(Param::axis) | bit(Param::range), "elements [begin, end) along an axis",
     View::never, true},
    {"reduce_mean", 1, 1, 1, false, bit(Param::axes), "mean over some axes, kept as size 1", View::never,
     true},
    {"layer_norm", 3, 3, 1, false, bit(Param::axis) | bit(Param::epsilon),
     "layer normalization over the dimensions from axis on: x, scale, bias", View::never, true},
    {"hardsigmoid", 1, 1, 1, false, 0, "clip(x / 6 + 1/2, 0, 1)", View::never, true},
    {"hardswish", 1, 1, 1, false, 0, "x * hardsigmoid(x)"},
    {"silu", 1, 1, 1, false, 0, "x * sigmoid(x)"},
    {"gelu", 1, 1, 1, false, 0, "x * (1 + erf(x / sqrt(2))) / 2"},
    {"relu6", 1, 1, 1, false, 0, "min(max(x, 0), 6)"},
    {"expand", 1, 1, 1, false, bit(Param::shape), "broadcast to a shape", View::never, true},
    {"resize", 1, 1, 1, false, bit(Param::shape), "bilinear resize of the last two dimensions (half-pixel)",
     View::never, true},
    {"exp", 1, 1, 1, false, 0, "exponential", View::never, true},
    {"linear", 3, 3, 1, false, bit(Param::activation), "act(x W + b): x [..., K], W [K, N], b [N]"},
    {"opaque", 0, kMaxInputs, 1, false, bit(Param::shape), "unknown operator, never rewritten"},
};
static_assert(std::size(kOps) == kNumOpTypes);

constexpr std::string_view kParamNames[] = {"shape",      "perm",  "kernel",  "stride", "padding",
                                            "activation", "axis",  "epsilon", "groups", "into",
                                            "pads",       "value", "limits",  "range",  "axes"};
static_assert(std::size(kParamNames) == kNumParams);

std::string shapes_str(std::span<const TensorDesc* const> inputs) {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) s += ", ";
    s += inputs[i]->shape.str();
  }
  return s;
}

using registry_detail::fail;

const SplitTree kNoSplits;

// The split tree an element-wise result inherits for one dimension.
SplitTree merge_tree(const SplitTree& a, bool a_broadcast, const SplitTree& b, bool b_broadcast) {
  if (a_broadcast) return b;
  if (b_broadcast || a == b) return a;
  return kNoSplits;
}

bool infer_broadcast(std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const Shape &a = in[0]->shape, &b = in[1]->shape;
  int rank = std::max(a.rank(), b.rank());
  Shape s;
  SplitTrees trees{};
  for (int i = 0; i < rank; ++i) s.push_back(1);
  for (int i = 0; i < rank; ++i) {
    int ia = i - (rank - a.rank()), ib = i - (rank - b.rank());
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) return fail(c, "shapes do not broadcast");
    s.set(i, std::max(da, db));
    const SplitTree& ta = ia >= 0 ? in[0]->split(ia) : kNoSplits;
    const SplitTree& tb = ib >= 0 ? in[1]->split(ib) : kNoSplits;
    trees[i] = merge_tree(ta, da != s[i] || ia < 0, tb, db != s[i] || ib < 0);
  }
  out.shape = s;
  out.set_splits(trees);
  return true;
}

bool require_rank(std::span<const TensorDesc* const> in, int index, int rank, ShapeCheck& c) {
  if (in[index]->shape.rank() != rank)
    return fail(c, "input " + std::to_string(index) + " must have rank " + std::to_string(rank));
  return true;
}

bool infer_source(OpType op, const OpParams& p, TensorDesc& out, ShapeCheck& c) {
  if (!p.shape.all_positive()) return fail(c, "shape " + p.shape.str() + " has a non-positive dimension");
  switch (op) {
    case OpType::c_pool:
      if (p.shape.rank() != 4 || p.shape[1] != 1)
        return fail(c, "shape " + p.shape.str() + " is not a depthwise kernel [C,1,kh,kw]");
      break;
    case OpType::i_conv:
      if (p.shape.rank() != 4 || p.shape[2] % 2 == 0 || p.shape[3] % 2 == 0)
        return fail(c, "shape " + p.shape.str() + " is not a kernel [C,C/g,kh,kw] with odd kh, kw");
      if (p.shape[0] % p.shape[1] != 0)
        return fail(c, "shape " + p.shape.str() + ": output channels are not a multiple of dim 1");
      break;
    case OpType::i_matmul:
      if (p.shape.rank() < 2 || p.shape.back(0) != p.shape.back(1))
        return fail(c, "shape " + p.shape.str() + " is not square in its last two dimensions");
      break;
    default:
      break;
  }
  out.shape = p.shape;
  return true;
}

bool infer_transpose(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out,
                     ShapeCheck& c) {
  const Shape& s = in[0]->shape;
  int rank = s.rank();
  std::array<int, kMaxRank> perm{};
  int given = 0;
  while (given < kMaxRank && p.perm[given] >= 0) ++given;
  if (given && given != rank)
    return fail(c, "perm has " + std::to_string(given) + " entries, input rank is " + std::to_string(rank));
  bool seen[kMaxRank] = {};
  for (int i = 0; i < rank; ++i) {
    perm[i] = given ? p.perm[i] : rank - 1 - i;
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
      return fail(c, "perm is not a permutation of the input's dimensions");
    seen[perm[i]] = true;
  }
  SplitTrees trees{};
  for (int i = 0; i < rank; ++i) {
    out.shape.push_back(s[perm[i]]);
    trees[i] = in[0]->split(perm[i]);
  }
  out.set_splits(trees);
  return true;
}

bool infer_matmul(std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const TensorDesc &a = *in[0], &b = *in[1];
  int ra = a.shape.rank(), rb = b.shape.rank();
  if (ra < 2 || rb < 2) return fail(c, "inputs must have rank 2 or more");
  if (a.shape.back(0) != b.shape.back(1)) return fail(c, "inner dimensions differ");
  const TensorDesc& batch = ra >= rb ? a : b;
  if (ra != rb && std::min(ra, rb) != 2)
    return fail(c, "batch dimensions differ (one input may be a plain matrix)");
  SplitTrees trees{};
  for (int i = 0; i + 2 < batch.shape.rank(); ++i) {
    if (ra == rb && a.shape[i] != b.shape[i]) return fail(c, "batch dimensions differ");
    out.shape.push_back(batch.shape[i]);
    trees[i] = (ra == rb && a.split(i) != b.split(i)) ? kNoSplits : batch.split(i);
  }
  int r = out.shape.rank();
  out.shape.push_back(a.shape.back(1));
  out.shape.push_back(b.shape.back(0));
  trees[r] = a.split(ra - 2);
  trees[r + 1] = b.split(rb - 1);
  out.set_splits(trees);
  return true;
}

// A linear layer: x [..., K] times a matrix W [K, N], plus a bias [N]; x's leading
// dimensions are rows (a rank-2 W is shared by every batch, as in matmul).
bool infer_linear(std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  if (!require_rank(in, 1, 2, c) || !require_rank(in, 2, 1, c)) return false;
  if (in[0]->shape.rank() < 2) return fail(c, "input 0 must have rank 2 or more");
  if (!infer_matmul(in.first(2), out, c)) return false;
  if (in[2]->shape[0] != in[1]->shape[1])
    return fail(c, "bias " + in[2]->shape.str() + " is not one value per output column (" +
                       std::to_string(in[1]->shape[1]) + ")");
  return true;
}

bool check_stride(const OpParams& p, ShapeCheck& c) {
  if (p.stride_h <= 0 || p.stride_w <= 0) return fail(c, "stride must be positive");
  return true;
}

bool infer_conv2d(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  if (!require_rank(in, 0, 4, c) || !require_rank(in, 1, 4, c) || !check_stride(p, c)) return false;
  const Shape &x = in[0]->shape, &w = in[1]->shape;
  if (x[1] % w[1] != 0)
    return fail(c, "input channels " + std::to_string(x[1]) + " are not a multiple of the weight's " +
                       std::to_string(w[1]) + " channels per group");
  int64_t groups = x[1] / w[1];
  if (w[0] % groups != 0)
    return fail(c, "output channels " + std::to_string(w[0]) + " are not a multiple of " +
                       std::to_string(groups) + " groups");
  if (p.padding == Padding::valid && (x[2] < w[2] || x[3] < w[3]))
    return fail(c, "kernel larger than the input with valid padding");
  // ONNX's Conv B: one value per output channel, added before the activation.
  if (in.size() == 3 && !(in[2]->shape.rank() == 1 && in[2]->shape[0] == w[0]))
    return fail(c, "bias " + in[2]->shape.str() + " is not one value per output channel (" +
                       std::to_string(w[0]) + ")");
  out.shape = Shape{x[0], w[0], window(x[2], w[2], p.stride_h, p.padding).out,
                    window(x[3], w[3], p.stride_w, p.padding).out};
  out.set_splits({in[0]->split(0), in[1]->split(0)});
  return true;
}

bool infer_enlarge(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  if (!require_rank(in, 0, 4, c)) return false;
  const Shape& w = in[0]->shape;
  if (p.kernel_h < w[2] || p.kernel_w < w[3])
    return fail(c, "target kernel " + std::to_string(p.kernel_h) + "x" + std::to_string(p.kernel_w) +
                       " is smaller than the kernel");
  if ((p.kernel_h - w[2]) % 2 || (p.kernel_w - w[3]) % 2)
    return fail(c, "kernel cannot be centred in " + std::to_string(p.kernel_h) + "x" +
                       std::to_string(p.kernel_w) + " (sizes differ by an odd amount)");
  out.shape = Shape{w[0], w[1], p.kernel_h, p.kernel_w};
  out.set_splits({in[0]->split(0), in[0]->split(1)});
  return true;
}

// The block placement depends on the kernel's groups, which only the convolution
// reading it knows: shape inference checks that the parameters fit the kernel, and
// the rewrite that introduces the operator derives them from that convolution.
bool infer_merge_groups(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out,
                        ShapeCheck& c) {
  if (!require_rank(in, 0, 4, c)) return false;
  const Shape& w = in[0]->shape;
  if (p.groups < 1 || p.into < 1 || p.groups % p.into != 0)
    return fail(c, "groups " + std::to_string(p.groups) + " cannot be merged into " + std::to_string(p.into) +
                       " (into must divide groups)");
  if (w[0] % p.groups != 0)
    return fail(c, "output channels " + std::to_string(w[0]) + " are not a multiple of " +
                       std::to_string(p.groups) + " groups");
  out.shape = Shape{w[0], w[1] * (p.groups / p.into), w[2], w[3]};
  out.set_splits({in[0]->split(0)});
  return true;
}

bool infer_pool(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  if (!require_rank(in, 0, 4, c) || !check_stride(p, c)) return false;
  if (p.kernel_h <= 0 || p.kernel_w <= 0) return fail(c, "kernel must be positive");
  const Shape& x = in[0]->shape;
  if (p.padding == Padding::valid && (x[2] < p.kernel_h || x[3] < p.kernel_w))
    return fail(c, "window larger than the input with valid padding");
  out.shape = Shape{x[0], x[1], window(x[2], p.kernel_h, p.stride_h, p.padding).out,
                    window(x[3], p.kernel_w, p.stride_w, p.padding).out};
  out.set_splits({in[0]->split(0), in[0]->split(1)});
  return true;
}

bool check_axis(const OpParams& p, std::span<const TensorDesc* const> in, ShapeCheck& c) {
  if (p.axis < 0 || p.axis >= in[0]->shape.rank())
    return fail(c, "axis " + std::to_string(p.axis) + " out of range for rank " +
                       std::to_string(in[0]->shape.rank()));
  return true;
}

bool infer_concat(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  if (!check_axis(p, in, c)) return false;
  out = *in[0];
  SplitTrees trees = in[0]->splits();
  for (size_t k = 1; k < in.size(); ++k) {
    const TensorDesc& next = *in[k];
    if (next.shape.rank() != out.shape.rank()) return fail(c, "inputs have different ranks");
    for (int i = 0; i < out.shape.rank(); ++i) {
      if (i == p.axis) continue;
      if (next.shape[i] != out.shape[i])
        return fail(c, "inputs differ in dimension " + std::to_string(i) + " other than axis " +
                           std::to_string(p.axis));
      if (next.split(i) != trees[i]) trees[i] = kNoSplits;
    }
    trees[p.axis] =
        SplitTree::concat(trees[p.axis], static_cast<int32_t>(out.shape[p.axis]), next.split(p.axis));
    int64_t joined = out.shape[p.axis] + next.shape[p.axis];
    if (joined > std::numeric_limits<int32_t>::max()) return fail(c, "result too large along the axis");
    out.shape.set(p.axis, joined);
  }
  out.set_splits(trees);
  return true;
}

bool infer_split(const OpParams& p, std::span<const TensorDesc* const> in, std::span<TensorDesc> out,
                 ShapeCheck& c) {
  if (!check_axis(p, in, c)) return false;
  const SplitTree& tree = in[0]->split(p.axis);
  if (tree.empty()) return fail(c, "no concatenation on axis " + std::to_string(p.axis) + " to undo");
  auto [left, right] = tree.split();
  out[0] = *in[0];
  out[1] = *in[0];
  out[0].shape.set(p.axis, tree.split_point());
  out[1].shape.set(p.axis, in[0]->shape[p.axis] - tree.split_point());
  out[0].set_split(p.axis, left);
  out[1].set_split(p.axis, right);
  return true;
}

bool infer_batchnorm(std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  const Shape& x = in[0]->shape;
  if (x.rank() < 2) return fail(c, "input must have rank 2 or more (N, C, ...)");
  for (int i = 1; i < 5; ++i)
    if (in[i]->shape != Shape{x[1]})
      return fail(c, "scale, bias, mean and var must have shape " + Shape{x[1]}.str());
  out = *in[0];
  return true;
}

bool infer_reshape(const OpParams& p, std::span<const TensorDesc* const> in, TensorDesc& out, ShapeCheck& c) {
  if (!p.shape.all_positive() || p.shape.num_elements() != in[0]->shape.num_elements())
    return fail(c, "cannot reshape to " + p.shape.str());
  if (p.shape == in[0]->shape)
    out = *in[0];
  else
    out.shape = p.shape;
  return true;
}

}  // namespace

const OpInfo& op_info(OpType op) {
  return kOps[static_cast<int>(op)];
}
std::string_view op_name(OpType op) {
  return op_info(op).name;
}

std::optional<OpType> op_from_name(std::string_view name) {
  for (int i = 0; i < kNumOpTypes; ++i)
    if (kOps[i].name == name) return static_cast<OpType>(i);
  return std::nullopt;
}

std::string_view param_name(Param p) {
  return kParamNames[static_cast<int>(p)];
}
std::string_view padding_name(Padding p) {
  return p == Padding::same ? "same" : "valid";
}
namespace {
constexpr std::array<std::string_view, kNumActivations> kActivationNames = {
    "none", "relu", "sigmoid", "silu", "hardswish", "gelu", "relu6"};
}  // namespace

std::string_view activation_name(Activation a) {
  return kActivationNames[static_cast<size_t>(a)];
}
std::optional<Activation> activation_from_name(std::string_view name) {
  for (size_t i = 0; i < kActivationNames.size(); ++i)
    if (kActivationNames[i] == name) return static_cast<Activation>(i);
  return std::nullopt;
}
std::optional<OpType> activation_op(Activation a) {
  switch (a) {
    case Activation::none:
      return std::nullopt;
    case Activation::relu:
      return OpType::relu;
    case Activation::sigmoid:
      return OpType::sigmoid;
    case Activation::silu:
      return OpType::silu;
    case Activation::hardswish:
      return OpType::hardswish;
    case Activation::gelu:
      return OpType::gelu;
    case Activation::relu6:
      return OpType::relu6;
  }
  return std::nullopt;
}
std::optional<Activation> activation_of(OpType op) {
  for (int i = 1; i < kNumActivations; ++i)
    if (activation_op(static_cast<Activation>(i)) == op) return static_cast<Activation>(i);
  return std::nullopt;
}

bool is_constant(OpType op) {
  return op == OpType::c_pool || op == OpType::i_conv || op == OpType::i_matmul || op == OpType::i_ewmul;
}

bool is_view(OpType op, const OpParams& params, const Shape& input) {
  switch (op_info(op).view) {
    case View::never:
      return false;
    case View::always:
      return true;
    case View::when_leading_ones:
      for (int i = 0; i < params.axis; ++i)
        if (input[i] != 1) return false;
      return true;
  }
  return false;
}

Window window(int64_t in, int64_t kernel, int64_t stride, Padding padding) {
  if (padding == Padding::valid) return {(in - kernel) / stride + 1, 0};
  int64_t out = (in + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - in, 0);
  return {out, total / 2};
}

int64_t conv_groups(const Shape& input, const Shape& weight) {
  return input[1] / weight[1];
}

namespace {

// The shape rules of every operator, one dispatch: false (and c says why) when
// the inputs do not fit.
bool infer_checked(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
                   std::span<TensorDesc> out, ShapeCheck& c) {
  const OpInfo& info = op_info(op);
  if (static_cast<int>(in.size()) < info.min_inputs || static_cast<int>(in.size()) > info.max_inputs)
    return fail(c, "takes " + std::to_string(info.min_inputs) +
                       (info.max_inputs != info.min_inputs ? " to " + std::to_string(info.max_inputs) : "") +
                       " inputs, got " + std::to_string(in.size()));
  if (static_cast<int>(out.size()) != info.num_outputs)
    return fail(c, "has " + std::to_string(info.num_outputs) + " outputs");
  for (TensorDesc& o : out) o = TensorDesc{};
  switch (op) {
    case OpType::input:
    case OpType::weight:
    case OpType::c_pool:
    case OpType::i_conv:
    case OpType::i_matmul:
    case OpType::i_ewmul:
      return infer_source(op, p, out[0], c);
    case OpType::ewadd:
    case OpType::ewmul:
    case OpType::ewsub:
    case OpType::ewdiv:
      return infer_broadcast(in, out[0], c);
    case OpType::smul:
      if (in[1]->shape.num_elements() != 1) return fail(c, "second input must have one element");
      out[0] = *in[0];
      return true;
    case OpType::transpose:
      return infer_transpose(p, in, out[0], c);
    case OpType::matmul:
      return infer_matmul(in, out[0], c);
    case OpType::linear:
      return infer_linear(in, out[0], c);
    case OpType::conv2d:
      return infer_conv2d(p, in, out[0], c);
    case OpType::enlarge:
      return infer_enlarge(p, in, out[0], c);
    case OpType::merge_groups:
      return infer_merge_groups(p, in, out[0], c);
    case OpType::pool_avg:
    case OpType::pool_max:
      return infer_pool(p, in, out[0], c);
    case OpType::concat:
      return infer_concat(p, in, out[0], c);
    case OpType::split:
      return infer_split(p, in, out, c);
    case OpType::relu:
    case OpType::sigmoid:
    case OpType::tanh:
    case OpType::sqrt:
    case OpType::erf:
    case OpType::exp:
    case OpType::clip:
    case OpType::hardsigmoid:
    case OpType::hardswish:
    case OpType::silu:
    case OpType::gelu:
    case OpType::relu6:
      out[0] = *in[0];
      return true;
    case OpType::softmax:
      if (!check_axis(p, in, c)) return false;
      out[0] = *in[0];
      return true;
    case OpType::batchnorm:
      return infer_batchnorm(in, out[0], c);
    case OpType::reshape:
      return infer_reshape(p, in, out[0], c);
    case OpType::pad:
    case OpType::slice:
    case OpType::reduce_mean:
    case OpType::layer_norm:
    case OpType::expand:
    case OpType::resize:
      return infer_reshaping_import(op, p, in, out[0], c);
    case OpType::opaque:
      if (!p.shape.all_positive())
        return fail(c, "output shape " + p.shape.str() + " has a non-positive dimension");
      out[0].shape = p.shape;
      return true;
  }
  return true;
}

}  // namespace

ShapeCheck try_infer_outputs(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
                             std::span<TensorDesc> out) {
  ShapeCheck c;
  infer_checked(op, p, in, out, c);
  return c;
}

std::string shape_error(OpType op, std::span<const TensorDesc* const> in, const std::string& why) {
  std::string msg = std::string(op_name(op)) + ": " + why;
  if (!in.empty()) msg += " (inputs " + shapes_str(in) + ")";
  return msg;
}

void infer_outputs(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
                   std::span<TensorDesc> out) {
  ShapeCheck c;
  if (!infer_checked(op, p, in, out, c)) throw Error(shape_error(op, in, c.why));
}

OpCost op_cost(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
               std::span<const TensorDesc> out) {
  OpCost c;
  const OpInfo& info = op_info(op);
  if (info.is_source() && op != OpType::opaque) return c;  // weights and constants live in memory
  if (op == OpType::reshape) return c;                     // a view
  for (const TensorDesc* t : in) c.bytes_read += t->shape.num_elements() * kBytesPerElement;
  for (const TensorDesc& t : out) c.bytes_written += t.shape.num_elements() * kBytesPerElement;
  int64_t n = out[0].shape.num_elements();
  switch (op) {
    case OpType::matmul: {
      int64_t k = in[0]->shape.back(0);
      c.flops = 2 * n * k;
      break;
    }
    case OpType::linear:
      c.flops = 2 * n * in[0]->shape.back(0) + n + (p.activation != Activation::none ? n : 0);
      break;
    case OpType::conv2d: {
      const Shape& w = in[1]->shape;
      c.flops =
          2 * n * w[1] * w[2] * w[3] + (p.activation != Activation::none ? n : 0) + (in.size() == 3 ? n : 0);
      break;
    }
    case OpType::pool_avg:
    case OpType::pool_max:
      c.flops = n * p.kernel_h * p.kernel_w;
      break;
    case OpType::ewadd:
    case OpType::ewmul:
    case OpType::smul:
    case OpType::relu:
    case OpType::opaque:
    case OpType::ewsub:
    case OpType::ewdiv:
    case OpType::sqrt:
      c.flops = n;
      break;
    case OpType::clip:
    case OpType::hardsigmoid:
    case OpType::relu6:
      c.flops = 2 * n;
      break;
    case OpType::hardswish:
      c.flops = 3 * n;
      break;
    case OpType::silu:
    case OpType::gelu:
      c.flops = 5 * n;
      break;
    case OpType::layer_norm:
      c.flops = 5 * n;  // mean, variance, normalize, scale, shift
      break;
    case OpType::resize:
      c.flops = 4 * n;  // four taps per output element
      break;
    case OpType::reduce_mean:
      c.flops = in[0]->shape.num_elements();
      break;
    case OpType::sigmoid:
    case OpType::erf:
    case OpType::exp:
    case OpType::tanh:
      c.flops = 4 * n;
      break;
    case OpType::batchnorm:
      c.flops = 2 * n;
      break;
    case OpType::softmax:
      c.flops = 3 * n;
      break;
    default:  // data movement: transpose, enlarge, merge_groups, concat, split, pad, slice, expand
      break;
  }
  return c;
}

}  // namespace superopt
