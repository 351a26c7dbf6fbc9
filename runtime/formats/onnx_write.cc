// Our graph as an ONNX ModelProto: one or a few ONNX nodes per operator, in
// topological order, and the model checked with onnx::checker before it leaves.
#include "runtime/formats/onnx_write.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/kernels.h"

namespace superopt {
namespace {

class Writer {
 public:
  Writer(const Graph& g, onnx::GraphProto& out) : g_(g), out_(out) {}

  void write(const std::vector<std::string>& output_names);

 private:
  std::string fresh(const std::string& base);
  const std::string& name(TensorRef t) const { return names_.at(t.node)[t.port]; }
  onnx::NodeProto& node(const std::string& type, std::vector<std::string> inputs,
                        std::vector<std::string> outputs);
  std::string ints(const std::vector<int64_t>& values, const std::string& base);
  std::string scalar(float value, const std::string& base);
  void initializer(const std::string& name, const Shape& shape, const float* data);
  void value_info(onnx::ValueInfoProto& v, const std::string& name, const Shape& shape);
  void write_source(NodeId id);
  void write_operator(NodeId id);
  void write_gelu(const std::string& x, const std::string& y);
  void write_activation(Activation a, const std::string& x, const std::string& y);
  void write_window(onnx::NodeProto& n, const Node& node, const Shape& in, int64_t kh, int64_t kw);

  const Graph& g_;
  onnx::GraphProto& out_;
  std::set<std::string> used_;
  std::vector<std::vector<std::string>> names_;
};

void add_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

void add_int(onnx::NodeProto& n, const std::string& name, int64_t value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void add_string(onnx::NodeProto& n, const std::string& name, const std::string& value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

void add_float(onnx::NodeProto& n, const std::string& name, float value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

std::string Writer::fresh(const std::string& base) {
  std::string name = base.empty() ? "t" : base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

onnx::NodeProto& Writer::node(const std::string& type, std::vector<std::string> inputs,
                              std::vector<std::string> outputs) {
  onnx::NodeProto& n = *out_.add_node();
  n.set_op_type(type);
  n.set_name(fresh(outputs[0] + "/" + type));
  for (const std::string& s : inputs) n.add_input(s);
  for (const std::string& s : outputs) n.add_output(s);
  return n;
}

void Writer::initializer(const std::string& name, const Shape& shape, const float* data) {
  onnx::TensorProto& t = *out_.add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int k = 0; k < shape.rank(); ++k) t.add_dims(shape[k]);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(data), shape.num_elements() * sizeof(float)));
}

std::string Writer::ints(const std::vector<int64_t>& values, const std::string& base) {
  onnx::TensorProto& t = *out_.add_initializer();
  t.set_name(fresh(base));
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return t.name();
}

std::string Writer::scalar(float value, const std::string& base) {
  std::string name = fresh(base);
  initializer(name, Shape{}, &value);
  return name;
}

void Writer::value_info(onnx::ValueInfoProto& v, const std::string& name, const Shape& shape) {
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  auto* s = t->mutable_shape();
  for (int k = 0; k < shape.rank(); ++k) s->add_dim()->set_dim_value(shape[k]);
}

// Inputs stay inputs; weights with data and TASO's constants become initializers;
// weights without data become inputs the caller must feed.
void Writer::write_source(NodeId id) {
  const Node& n = g_.node(id);
  const std::string& name = names_[id][0];
  const Shape& shape = n.output(0).shape;
  if (n.op == OpType::input) return value_info(*out_.add_input(), name, shape);
  if (n.op == OpType::weight) {
    if (const std::vector<float>* data = g_.weight_data(id)) return initializer(name, shape, data->data());
    return value_info(*out_.add_input(), name, shape);
  }
  Tensor<double> c = make_constant(RealArith<double>(), n.op, shape);
  std::vector<float> values(c.data.begin(), c.data.end());
  initializer(name, shape, values.data());
}

// Explicit pads of our SAME or VALID windows over an NCHW input.
void Writer::write_window(onnx::NodeProto& n, const Node& node, const Shape& in, int64_t kh, int64_t kw) {
  const OpParams& p = node.params;
  std::vector<int64_t> begin, end;
  const int64_t kernel[2] = {kh, kw}, stride[2] = {p.stride_h, p.stride_w};
  for (int k = 0; k < 2; ++k) {
    const Window w = window(in[2 + k], kernel[k], stride[k], p.padding);
    const int64_t total = std::max<int64_t>((w.out - 1) * stride[k] + kernel[k] - in[2 + k], 0);
    begin.push_back(w.pad_before);
    end.push_back(p.padding == Padding::valid ? 0 : total - w.pad_before);
  }
  add_ints(n, "strides", {stride[0], stride[1]});
  add_ints(n, "pads", {begin[0], begin[1], end[0], end[1]});
}

// The nodes of an element-wise activation (a convolution's, or the operator's).
void Writer::write_activation(Activation a, const std::string& x, const std::string& y) {
  switch (a) {
    case Activation::none:
      node("Identity", {x}, {y});
      return;
    case Activation::relu:
      node("Relu", {x}, {y});
      return;
    case Activation::sigmoid:
      node("Sigmoid", {x}, {y});
      return;
    case Activation::hardswish:
      node("HardSwish", {x}, {y});
      return;
    case Activation::silu: {  // as PyTorch exports SiLU; the importer reads the pattern back as silu
      const std::string s = fresh(y + "/sigmoid");
      node("Sigmoid", {x}, {s});
      node("Mul", {x, s}, {y});
      return;
    }
    case Activation::gelu:  // as PyTorch exports it; the importer reads the pattern back as gelu
      write_gelu(x, y);
      return;
    case Activation::relu6:
      node("Clip", {x, scalar(0.f, y + "/min"), scalar(6.f, y + "/max")}, {y});
      return;
  }
}

// x * 0.5 * (1 + erf(x / sqrt(2))), the nodes PyTorch's exporter writes.
void Writer::write_gelu(const std::string& x, const std::string& y) {
  const std::string scaled = fresh(y + "/scaled"), e = fresh(y + "/erf"), plus = fresh(y + "/plus_one"),
                    times = fresh(y + "/times_x");
  node("Div", {x, scalar(static_cast<float>(std::sqrt(2.0)), y + "/sqrt2")}, {scaled});
  node("Erf", {scaled}, {e});
  node("Add", {e, scalar(1.0f, y + "/one")}, {plus});
  node("Mul", {x, plus}, {times});
  node("Mul", {times, scalar(0.5f, y + "/half")}, {y});
}

void Writer::write_operator(NodeId id) {
  const Node& n = g_.node(id);
  const OpParams& p = n.params;
  std::vector<std::string> in;
  for (TensorRef t : n.inputs()) in.push_back(name(t));
  const std::string& y = names_[id][0];
  const Shape& x = n.num_inputs ? g_.shape(n.inputs()[0]) : Shape{};
  static const std::map<OpType, std::string> kSimple = {
      {OpType::ewadd, "Add"},     {OpType::ewsub, "Sub"},
      {OpType::ewmul, "Mul"},     {OpType::ewdiv, "Div"},
      {OpType::tanh, "Tanh"},     {OpType::erf, "Erf"},
      {OpType::sqrt, "Sqrt"},     {OpType::exp, "Exp"},
      {OpType::matmul, "MatMul"}, {OpType::batchnorm, "BatchNormalization"}};
  if (std::optional<Activation> a = activation_of(n.op)) return write_activation(*a, in[0], y);
  if (auto s = kSimple.find(n.op); s != kSimple.end()) {
    onnx::NodeProto& o = node(s->second, in, {y});
    if (n.op == OpType::batchnorm) add_float(o, "epsilon", p.epsilon);
    return;
  }
  switch (n.op) {
    case OpType::smul: {
      std::string s = in[1];
      if (g_.shape(n.inputs()[1]).rank() > x.rank())
        node("Reshape", {in[1], ints({}, y + "/scalar_shape")}, {s = fresh(y + "/scalar")});
      node("Mul", {in[0], s}, {y});
      return;
    }
    case OpType::transpose: {
      std::array<int, kMaxRank> perm = kernels::resolve_perm(p.perm, x.rank());
      add_ints(node("Transpose", in, {y}), "perm",
               std::vector<int64_t>(perm.begin(), perm.begin() + x.rank()));
      return;
    }
    case OpType::conv2d: {
      const Shape& w = g_.shape(n.inputs()[1]);
      const std::string conv_out = p.activation != Activation::none ? fresh(y + "/conv") : y;
      onnx::NodeProto& o = node("Conv", in, {conv_out});
      add_ints(o, "kernel_shape", {w[2], w[3]});
      add_int(o, "group", conv_groups(x, w));
      write_window(o, n, x, w[2], w[3]);
      if (p.activation != Activation::none) write_activation(p.activation, conv_out, y);
      return;
    }
    case OpType::linear: {  // MatMul, Add and the activation: what PyTorch exports for a Linear
      const std::string product = fresh(y + "/matmul");
      const std::string sum = p.activation != Activation::none ? fresh(y + "/bias") : y;
      node("MatMul", {in[0], in[1]}, {product});
      node("Add", {product, in[2]}, {sum});
      if (p.activation != Activation::none) write_activation(p.activation, sum, y);
      return;
    }
    case OpType::pool_max:
    case OpType::pool_avg: {
      onnx::NodeProto& o = node(n.op == OpType::pool_max ? "MaxPool" : "AveragePool", in, {y});
      add_ints(o, "kernel_shape", {p.kernel_h, p.kernel_w});
      if (n.op == OpType::pool_avg) add_int(o, "count_include_pad", 1);
      write_window(o, n, x, p.kernel_h, p.kernel_w);
      return;
    }
    case OpType::enlarge: {
      const Shape& out = n.output(0).shape;
      const int64_t top = (out[2] - x[2]) / 2, left = (out[3] - x[3]) / 2;
      node("Pad",
           {in[0], ints({0, 0, top, left, 0, 0, out[2] - x[2] - top, out[3] - x[3] - left}, y + "/pads")},
           {y});
      return;
    }
    case OpType::pad: {
      std::vector<int64_t> pads(2 * x.rank(), 0);
      pads[x.rank() - 2] = p.pads[0];
      pads[2 * x.rank() - 2] = p.pads[1];
      pads[x.rank() - 1] = p.pads[2];
      pads[2 * x.rank() - 1] = p.pads[3];
      node("Pad", {in[0], ints(pads, y + "/pads"), scalar(p.value, y + "/value")}, {y});
      return;
    }
    case OpType::concat:
      add_int(node("Concat", in, {y}), "axis", p.axis);
      return;
    case OpType::split: {
      const std::string& y1 = names_[id][1];
      add_int(
          node("Split", {in[0], ints({n.output(0).shape[p.axis], n.output(1).shape[p.axis]}, y + "/sizes")},
               {y, y1}),
          "axis", p.axis);
      return;
    }
    case OpType::reshape: {
      std::vector<int64_t> dims;
      for (int k = 0; k < p.shape.rank(); ++k) dims.push_back(p.shape[k]);
      node("Reshape", {in[0], ints(dims, y + "/shape")}, {y});
      return;
    }
    case OpType::softmax:
      add_int(node("Softmax", in, {y}), "axis", p.axis);
      return;
    case OpType::clip:
      node("Clip",
           {in[0], std::isinf(p.lo) ? std::string() : scalar(p.lo, y + "/min"),
            std::isinf(p.hi) ? std::string() : scalar(p.hi, y + "/max")},
           {y});
      return;
    case OpType::slice:
      node("Slice",
           {in[0], ints({p.begin}, y + "/starts"), ints({p.end}, y + "/ends"), ints({p.axis}, y + "/axes")},
           {y});
      return;
    case OpType::reduce_mean: {
      std::vector<int64_t> axes;
      for (int k = 0; k < x.rank(); ++k)
        if (p.axes & (1u << k)) axes.push_back(k);
      onnx::NodeProto& o = node("ReduceMean", in, {y});
      add_ints(o, "axes", axes);
      add_int(o, "keepdims", 1);
      return;
    }
    case OpType::merge_groups: {
      const std::vector<float>* data = g_.weight_data(n.inputs()[0].node);
      if (g_.node(n.inputs()[0].node).op != OpType::weight || !data)
        throw Error("merge_groups " + y +
                    ": only a weight with data can be written as ONNX (its merged values)");
      RealArith<double> ar;
      Tensor<double> w(x, std::vector<double>(data->begin(), data->end()));
      Tensor<double> merged = kernels::merge_groups(ar, p, w, n.output(0).shape);
      std::vector<float> values(merged.data.begin(), merged.data.end());
      initializer(y, n.output(0).shape, values.data());
      return;
    }
    case OpType::layer_norm: {
      onnx::NodeProto& o = node("LayerNormalization", in, {y});
      add_int(o, "axis", p.axis);
      add_float(o, "epsilon", p.epsilon);
      return;
    }
    case OpType::hardsigmoid: {
      onnx::NodeProto& o = node("HardSigmoid", in, {y});
      add_float(o, "alpha", static_cast<float>(1.0 / 6.0));  // read back as 1/6 exactly
      add_float(o, "beta", 0.5f);
      return;
    }
    case OpType::expand: {
      std::vector<int64_t> dims;
      for (int k = 0; k < p.shape.rank(); ++k) dims.push_back(p.shape[k]);
      node("Expand", {in[0], ints(dims, y + "/shape")}, {y});
      return;
    }
    case OpType::resize: {
      std::vector<int64_t> dims;
      for (int k = 0; k < p.shape.rank(); ++k) dims.push_back(p.shape[k]);
      onnx::NodeProto& o = node("Resize", {in[0], "", "", ints(dims, y + "/sizes")}, {y});
      add_string(o, "mode", "linear");
      add_string(o, "coordinate_transformation_mode", "half_pixel");  // = PyTorch's at every size
      return;
    }
    default:
      throw Error(std::string(op_name(n.op)) + " " + y + ": no ONNX equivalent");
  }
}

void Writer::write(const std::vector<std::string>& output_names) {
  if (!output_names.empty() && output_names.size() != g_.outputs().size())
    throw Error("ONNX export: " + std::to_string(output_names.size()) + " output names for " +
                std::to_string(g_.outputs().size()) + " outputs");
  std::vector<std::string> wanted;
  for (size_t k = 0; k < g_.outputs().size(); ++k)
    wanted.push_back(output_names.empty() ? tensor_label(g_, g_.outputs()[k]) : output_names[k]);
  std::set<std::string> reserved(wanted.begin(), wanted.end());
  // Inputs keep their names; other tensors get their node's name where it is free.
  names_.resize(g_.num_nodes());
  std::optional<std::vector<NodeId>> order = g_.topological_order();
  if (!order) throw Error("ONNX export: the graph has a cycle");
  for (NodeId id : *order) {
    const Node& n = g_.node(id);
    for (int port = 0; port < n.num_outputs(); ++port) {
      // Appending, not operator+: GCC 12 warns falsely (-Wrestrict) on "t" + string.
      std::string base = n.name.empty() ? std::string("t").append(std::to_string(id)) : n.name.str();
      if (port) base.append("_").append(std::to_string(port));
      if (n.op != OpType::input && reserved.count(base)) base += "_value";
      names_[id].push_back(fresh(base));
    }
  }
  // Each output names the tensor computing it, or an Identity when that is a source or taken.
  std::vector<std::pair<TensorRef, std::string>> identities;
  std::set<std::pair<NodeId, int>> renamed;
  std::vector<std::string> final_names = wanted;
  std::set<std::string> listed;  // each graph output once, so a repeated one gets an Identity
  for (size_t k = 0; k < wanted.size(); ++k) {
    TensorRef t = g_.outputs()[k];
    const bool source = op_info(g_.node(t.node).op).is_source();
    if (!source && !renamed.count({t.node, t.port}) && !used_.count(wanted[k])) {
      used_.erase(names_[t.node][t.port]);
      names_[t.node][t.port] = wanted[k];
      used_.insert(wanted[k]);
      renamed.insert({t.node, t.port});
    } else if (names_[t.node][t.port] != wanted[k] || listed.count(wanted[k])) {
      identities.push_back({t, final_names[k] = fresh(wanted[k])});
    }
    listed.insert(final_names[k]);
  }
  for (NodeId id : *order) {
    if (op_info(g_.node(id).op).is_source() && g_.node(id).op != OpType::opaque)
      write_source(id);
    else
      write_operator(id);
  }
  for (const auto& [t, alias] : identities) node("Identity", {name(t)}, {alias});
  for (size_t k = 0; k < wanted.size(); ++k)
    value_info(*out_.add_output(), final_names[k], g_.shape(g_.outputs()[k]));
}

// Weight-only operators whose weights all have data, computed once in double: ONNX
// receives the optimizer's weights (enlarged, concatenated, merged, folded) as
// initializers. Consumers keep their descriptors (split trees included): the writer
// reads only shapes, which do not change.
Graph with_computed_weights(const Graph& g) {
  std::vector<bool> fixed = weight_only_nodes(g);
  std::vector<char> known(g.num_nodes(), 0);
  const std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("ONNX export: the graph has a cycle");
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    bool ok = n.op != OpType::weight || g.weight_data(id) != nullptr;
    for (TensorRef t : n.inputs()) ok = ok && known[t.node];
    known[id] = ok;
  }
  std::vector<TensorRef> frontier;
  for (TensorRef t : weight_only_frontier(g, fixed))
    if (g.node(t.node).num_inputs > 0 && known[t.node]) frontier.push_back(t);
  if (frontier.empty()) return g;
  Graph values = g;
  values.set_outputs(frontier);
  values.remove_unused();
  RealArith<double> ar;
  std::vector<Tensor<double>> results = evaluate(values, ar, random_sources(ar, 0));
  Graph out = g;
  for (size_t k = 0; k < frontier.size(); ++k) {
    std::string name = "computed_" + std::to_string(k);
    while (out.find(name)) name += "_";
    NodeId w = out.add_weight(name, g.shape(frontier[k]),
                              std::vector<float>(results[k].data.begin(), results[k].data.end()));
    out.replace_uses(frontier[k], {w, 0});
  }
  out.remove_unused();
  return out;
}

// LayerNormalization and HardSwish came with opsets 17 and 14.
bool needs_opset_17(const Graph& g) {
  for (NodeId id = 0; id < g.num_nodes(); ++id)
    if (const Node& n = g.node(id);
        n.op == OpType::layer_norm || n.op == OpType::hardswish ||
        ((n.op == OpType::conv2d || n.op == OpType::linear) && n.params.activation == Activation::hardswish))
      return true;
  return false;
}

}  // namespace

namespace {

onnx::ModelProto onnx_model(const Graph& g, const std::vector<std::string>& output_names,
                            std::string_view graph_name) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("superopt");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(needs_opset_17(g) ? 17 : kOnnxExportOpset);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name(graph_name.empty() ? "superopt" : std::string(graph_name));
  const Graph computed = with_computed_weights(g);
  Writer(computed, graph).write(output_names);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    std::string why = e.what();
    throw Error("ONNX export: the model fails onnx::checker: " + why.substr(0, why.find('\n')));
  }
  return model;
}

std::string serialized(const onnx::ModelProto& model) {
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    throw Error("ONNX export: the model is too large to serialize (2 GB)");
  return bytes;
}

// Moves each initializer's raw data into `data` as ONNX external data (the
// tensor names `location`, its offset and length), freeing it in the model.
void move_initializers_out(onnx::GraphProto& graph, const std::string& location, std::string& data) {
  for (onnx::TensorProto& t : *graph.mutable_initializer()) {
    if (!t.has_raw_data() || t.raw_data().empty()) continue;
    auto entry = [&](const char* key, const std::string& value) {
      auto* e = t.add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    entry("location", location);
    entry("offset", std::to_string(data.size()));
    entry("length", std::to_string(t.raw_data().size()));
    data += t.raw_data();
    std::string().swap(*t.mutable_raw_data());
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
  }
}

}  // namespace

std::string onnx_model_bytes(const Graph& g, const std::vector<std::string>& output_names,
                             std::string_view graph_name) {
  return serialized(onnx_model(g, output_names, graph_name));
}

OnnxModelFiles onnx_model_files(const Graph& g, const std::string& data_location,
                                const std::vector<std::string>& output_names, std::string_view graph_name,
                                size_t external_above_bytes) {
  onnx::ModelProto model = onnx_model(g, output_names, graph_name);
  OnnxModelFiles files;
  if (model.ByteSizeLong() > external_above_bytes)
    move_initializers_out(*model.mutable_graph(), data_location, files.data);
  files.model = serialized(model);
  return files;
}

}  // namespace superopt
