// The state of one ONNX import, shared by the operator mappers: every ONNX value
// name bound to a tensor of our graph or to a constant known at import, node
// attributes, and the emitting of our operators. Internal to runtime/formats.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/formats/onnx_constant.h"

namespace superopt::onnx_import {

// What an ONNX name stands for: a tensor of the graph, or a known constant
// (shared, so that Identity aliases of a large initializer cost nothing).
struct Value {
  std::optional<TensorRef> tensor;
  std::shared_ptr<const Constant> constant;
};

class Importer {
 public:
  Importer(Graph& graph, int opset) : graph_(graph), opset_(opset) {}

  int opset() const { return opset_; }
  Graph& graph() { return graph_; }
  void bind(const std::string& name, Value v) { values_[name] = std::move(v); }
  const Value* find(const std::string& name) const;
  // Marks a name as taken by a source, so that new weights avoid it.
  void reserve_name(const std::string& name) { used_names_.insert(name); }

  // Node inputs. An absent optional input has an empty name.
  bool has_input(const onnx::NodeProto& n, int i) const;
  const Value& input(const onnx::NodeProto& n, int i) const;
  const Constant* constant_input(const onnx::NodeProto& n, int i) const;
  // Input i as a tensor: constants become weights with their data.
  TensorRef tensor_input(const onnx::NodeProto& n, int i);
  // The shape of input i, known for tensors and constants alike.
  std::vector<int64_t> input_dims(const onnx::NodeProto& n, int i) const;
  int input_rank(const onnx::NodeProto& n, int i) const { return int(input_dims(n, i).size()); }

  // A constant as a weight of the given shape (its own by default), made once per
  // constant and shape; the weight is named after `name`.
  TensorRef weight(const std::shared_ptr<const Constant>& c, const std::string& name,
                   std::optional<Shape> shape = std::nullopt);
  TensorRef weight(Constant c, const std::string& name, std::optional<Shape> shape = std::nullopt);

  // Adds one of our operators; `name` is the ONNX output it produces, or empty
  // for an intermediate step of a mapping.
  TensorRef emit(OpType op, std::vector<TensorRef> inputs, const OpParams& p = {},
                 const std::string& name = {});
  // Binds output i of the node.
  void set_output(const onnx::NodeProto& n, int i, TensorRef t) { bind(n.output(i), {t, nullptr}); }
  void set_output(const onnx::NodeProto& n, int i, Constant c);

 private:
  std::string unique_name(const std::string& base);

  Graph& graph_;
  int opset_;
  std::unordered_map<std::string, Value> values_;
  std::set<std::string> used_names_;
  // Weights already made from a constant, by constant and shape.
  std::map<std::pair<const Constant*, std::string>, TensorRef> weights_;
};

// Node attributes, with defaults; throw Error when present with the wrong type.
int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
float attr_float(const onnx::NodeProto& n, const std::string& name, float fallback);
std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback);
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name);
bool has_attr(const onnx::NodeProto& n, const std::string& name);
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);

// ONNX Slice's clamping of [start, end) with a step along an axis of length dim.
void slice_bounds(int64_t dim, int64_t step, int64_t& start, int64_t& end);

// A Slice node's starts, ends, axes and steps (inputs 1-4, or attributes in
// older opsets), of one length; axes default to 0, 1, ... and steps to 1.
struct SliceArgs {
  std::vector<int64_t> starts, ends, axes, steps;
};
SliceArgs slice_args(const Importer& im, const onnx::NodeProto& n);

// ONNX's integers are 64-bit, ours 32-bit: VALUES are returned when each fits
// int32, else Error "WHAT value N is out of range" (WHAT: "attribute 'pads'").
std::vector<int64_t> checked_int32(std::vector<int64_t> values, const std::string& what);

// An axis as ONNX gives it (negative counts from the back), checked against the rank.
int normalize_axis(int64_t axis, int rank);

// Integers given by input i (opsets that moved them there) or else by an attribute;
// nullopt when neither is present. Throws Error when the input is not a constant.
std::optional<std::vector<int64_t>> ints_from(const Importer& im, const onnx::NodeProto& n, int i,
                                              const std::string& attr);

// One mapper per ONNX operator type; each binds every output of the node it reads.
// Folders run when every input of a node is a constant (shape computations) and
// produce constants; mappers run otherwise and emit our operators.
using Mapper = std::function<void(Importer&, const onnx::NodeProto&)>;
using MapperTable = std::unordered_map<std::string, Mapper>;
void add_folders(MapperTable& table);         // onnx_fold.cc
void add_mask_folders(MapperTable& table);    // onnx_fold_masks.cc: Where, Mod, Not, ScatterND
void add_tensor_mappers(MapperTable& table);  // onnx_ops_tensor.cc: element-wise, reshaping
void add_layer_mappers(MapperTable& table);   // onnx_ops_layer.cc: conv, pooling, gemm, matmul
void add_zoo_mappers(MapperTable& table);     // onnx_ops_zoo.cc: layer norm, hard activations, expand, resize
void add_einsum_mapper(MapperTable& table);   // onnx_einsum.cc: batched matrix products

// Canonicalization after the mappers (onnx_activations.cc): x * sigmoid(x),
// x * hardsigmoid(x) and PyTorch's erf form of GELU become silu, hardswish, gelu.
void fuse_activations(Graph& g);
// (onnx_batchnorm_fold.cc): a batchnorm after a convolution with a constant
// kernel, its only reader, becomes the convolution with a rescaled kernel and
// a bias add, both weight-only subgraphs of the original weights.
void fold_batchnorms(Graph& g);
// How many node inputs read each node, plus 2 for a graph output (never folded
// away): the canonicalizations below fold only what one reader reads.
std::vector<int> reader_counts(const Graph& g);  // onnx_batchnorm_fold.cc
// An add of a bias after the operator that produces the other operand, which
// can become that operator's own bias input: `biased` is the operator that takes
// the producer's first two inputs and the bias (reshaped to one value per channel).
struct BiasAdd {
  NodeId producer;
  TensorRef bias;
  OpType biased;
  OpParams params;
};
using BiasAddMatch = std::function<std::optional<BiasAdd>(
    const Graph&, const Node& add, const std::vector<int>& readers, const std::vector<bool>& weight_only)>;
// (onnx_conv_bias.cc) Each add `match` accepts becomes its biased operator, the
// bias reshaped to [channels] where it is not already.
void take_bias_adds(Graph& g, const BiasAddMatch& match);
// (onnx_conv_bias.cc): a per-channel weight-only add after a convolution (a
// Conv's B, a folded batchnorm's shift) becomes the convolution's bias input.
void take_conv_biases(Graph& g);
// (onnx_linear.cc): a row bias add after a product by a constant matrix (a
// Linear's, a Gemm's C) becomes one linear layer, linear(x, W, b).
void take_linear_biases(Graph& g);

}  // namespace superopt::onnx_import
