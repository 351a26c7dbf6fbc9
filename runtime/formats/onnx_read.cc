// The ONNX import driver: parse the file, check the opset, read initializers and
// inputs, order the nodes, map each through onnx_fold.cc, onnx_ops_tensor.cc and
// onnx_ops_layer.cc, and bind the outputs.
#include "runtime/formats/onnx_read.h"

#include <fcntl.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <unordered_map>

#include "runtime/core/error.h"
#include "runtime/core/regular_file.h"
#include "runtime/formats/json_text.h"
#include "runtime/formats/onnx_importer.h"
#include "runtime/formats/onnx_validate.h"

namespace superopt {
namespace {

using namespace onnx_import;

// Protobuf's own limit for one message.
constexpr uint64_t kMaxOnnxModelBytes = (uint64_t(1) << 31) - 1;

onnx::ModelProto parse_model(const std::string& path) {
  // A regular file only, of at most 2 GiB: a FIFO or /dev/zero is refused at once.
  const int fd = open_regular_file(path, kMaxOnnxModelBytes, "an ONNX model");
  onnx::ModelProto model;
  bool ok;
  {
    google::protobuf::io::FileInputStream stream(fd);
    ok = model.ParseFromZeroCopyStream(&stream);
  }
  ::close(fd);
  if (!ok) throw Error("not an ONNX model (the protobuf data is truncated or malformed)");
  if (!model.has_graph() || model.graph().output_size() == 0)
    throw Error("not an ONNX model (no graph outputs)");
  return model;
}

int default_opset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      if (o.version() < kMinOnnxOpset || o.version() > kMaxOnnxOpset)
        throw Error("opset " + std::to_string(o.version()) + " is not supported (opsets " +
                    std::to_string(kMinOnnxOpset) + " to " + std::to_string(kMaxOnnxOpset) + " are)");
      return static_cast<int>(o.version());
    }
  throw Error("the model imports no opset of the default ONNX domain");
}

std::string node_label(const onnx::NodeProto& n) {
  return "'" + (n.name().empty() ? (n.output_size() ? n.output(0) : std::string("?")) : n.name()) + "'";
}

Shape input_shape(const onnx::ValueInfoProto& in, const OnnxImportOptions& options) {
  const std::string& name = in.name();
  if (!in.type().has_tensor_type()) throw Error("input '" + name + "' is not a tensor");
  const auto& t = in.type().tensor_type();
  if (t.elem_type() != onnx::TensorProto::FLOAT && t.elem_type() != onnx::TensorProto::DOUBLE)
    throw Error("input '" + name + "' has element type " +
                onnx::TensorProto::DataType_Name(onnx::TensorProto::DataType(t.elem_type())) +
                " (float and double are supported)");
  const auto& dims = t.shape().dim();
  for (const auto& [given, shape] : options.input_shapes) {
    if (given != name) continue;
    if (t.has_shape() && shape.rank() != dims.size())
      throw Error("--input-shape " + name + "=" + shape.str() + ": the model gives it rank " +
                  std::to_string(dims.size()));
    for (int k = 0; k < shape.rank() && t.has_shape(); ++k)
      if (dims[k].has_dim_value() && dims[k].dim_value() != shape[k])
        throw Error("--input-shape " + name + "=" + shape.str() + ": dimension " + std::to_string(k) +
                    " is " + std::to_string(dims[k].dim_value()) + " in the model");
    return shape;
  }
  if (!t.has_shape()) throw Error("input '" + name + "' has no shape (give --input-shape " + name + "=...)");
  Shape s;
  if (dims.size() > kMaxRank) throw Error("input '" + name + "' has rank above 6");
  for (const auto& d : dims) {
    if (!d.has_dim_value() || d.dim_value() <= 0)
      throw Error("input '" + name + "' has a dynamic dimension" +
                  (d.has_dim_param() ? " '" + d.dim_param() + "'" : std::string()) + " (give --input-shape " +
                  name + "=DIMS, e.g. 1x3x224x224)");
    s.push_back(d.dim_value());
  }
  return s;
}

const MapperTable& folders() {
  static const MapperTable t = [] {
    MapperTable m;
    add_folders(m);
    add_mask_folders(m);
    return m;
  }();
  return t;
}

const MapperTable& mappers() {
  static const MapperTable t = [] {
    MapperTable m;
    add_tensor_mappers(m);
    add_layer_mappers(m);
    add_zoo_mappers(m);
    add_einsum_mapper(m);
    return m;
  }();
  return t;
}

// An operator neither folded nor mapped, or from another domain, is named as
// unsupported before ONNX's checker calls an unknown one invalid.
void check_supported(const onnx::NodeProto& n, int opset) {
  const std::string node =
      "node " + node_label(n) + " (" + n.op_type() + ", opset " + std::to_string(opset) + ")";
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    throw Error("unsupported operator '" + n.domain() + "." + n.op_type() + "' (" + node + ")");
  if (!folders().count(n.op_type()) && !mappers().count(n.op_type()))
    throw Error("unsupported operator '" + n.op_type() + "' (node " + node_label(n) + ", opset " +
                std::to_string(opset) + ")");
}

void import_node(Importer& im, const onnx::NodeProto& n) {
  const std::string where =
      "node " + node_label(n) + " (" + n.op_type() + ", opset " + std::to_string(im.opset()) + "): ";
  bool all_constant = true;
  for (int i = 0; i < n.input_size(); ++i)
    if (im.has_input(n, i) && !im.input(n, i).constant) all_constant = false;
  const Mapper* m = nullptr;
  if (auto f = folders().find(n.op_type()); all_constant && f != folders().end()) m = &f->second;
  if (auto f = mappers().find(n.op_type()); !m && f != mappers().end()) m = &f->second;
  // check_supported ran on every node first: what is not mapped is folded, here on values not known.
  if (!m) throw Error(where + "supported only on values known at import");
  try {
    (*m)(im, n);
  } catch (const Error& e) {
    throw Error(where + e.what());
  }
}

OnnxModel import_model(onnx::ModelProto& model, const std::string& dir, const OnnxImportOptions& options) {
  OnnxModel out;
  out.opset = default_opset(model);
  onnx::GraphProto& g = *model.mutable_graph();
  out.name = g.name();
  out.onnx_nodes = g.node_size();
  if (g.sparse_initializer_size()) throw Error("sparse initializers are not supported");
  // What ONNX calls invalid is refused before anything is read or built.
  check_unique_names(g);
  for (onnx::TensorProto& t : *g.mutable_initializer()) load_external_data(t, dir);
  for (onnx::NodeProto& n : *g.mutable_node())  // Constant's and ConstantOfShape's values
    for (onnx::AttributeProto& a : *n.mutable_attribute()) {
      if (a.has_t()) load_external_data(*a.mutable_t(), dir);
      for (onnx::TensorProto& t : *a.mutable_tensors()) load_external_data(t, dir);
    }
  sort_nodes(g);
  for (const onnx::NodeProto& n : g.node()) check_supported(n, out.opset);
  check_with_onnx_checker(model, dir);
  const std::vector<onnx::ValueInfoProto> declared(g.output().begin(), g.output().end());
  onnx::ModelProto for_inference = inference_copy(model);
  Importer im(out.graph, out.opset);
  for (onnx::TensorProto& t : *g.mutable_initializer()) {
    im.bind(t.name(), {std::nullopt, std::make_shared<const Constant>(read_tensor(t, dir))});
  }
  for (const auto& [name, shape] : options.input_shapes) {
    bool known = false;
    for (const auto& in : g.input()) known = known || in.name() == name;
    if (!known || im.find(name)) throw Error("--input-shape: the model has no input '" + name + "'");
  }
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (im.find(in.name())) continue;  // an initializer listed as an input (IR version 3)
    im.reserve_name(in.name());
    im.bind(in.name(), {TensorRef{out.graph.add_input(in.name(), input_shape(in, options)), 0}, nullptr});
  }
  for (const onnx::NodeProto& n : g.node()) import_node(im, n);
  for (const onnx::ValueInfoProto& o : g.output()) {
    const Value* v = im.find(o.name());
    if (!v) throw Error("output '" + o.name() + "' is not produced by any node");
    out.graph.add_output(v->tensor ? *v->tensor : im.weight(v->constant, o.name()));
    out.output_names.push_back(o.name());
  }
  check_with_onnx_inference(for_inference);
  check_declared_outputs(declared, out.graph);
  fuse_activations(out.graph);
  fold_batchnorms(out.graph);
  take_conv_biases(out.graph);
  take_linear_biases(out.graph);
  out.graph.remove_unused();
  return out;
}

}  // namespace

bool is_onnx_path(const std::string& spec) {
  return spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".onnx") == 0;
}

OnnxModel read_onnx_file(const std::string& path, const OnnxImportOptions& options) {
  try {
    onnx::ModelProto model = parse_model(path);
    std::string dir = std::filesystem::path(path).parent_path().string();
    return import_model(model, dir.empty() ? "." : dir, options);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw Error(path + ": out of memory while importing");
  }
}

std::pair<std::string, Shape> parse_input_shape(const std::string& text) {
  const size_t eq = text.rfind('=');
  auto bad = [&]() -> Error {
    return Error("--input-shape: expected NAME=DIMS such as x=1x3x224x224, got '" + text + "'");
  };
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) throw bad();
  Shape s;
  const char* p = text.data() + eq + 1;
  const char* end = text.data() + text.size();
  while (p < end) {
    int64_t d = 0;
    auto [next, ec] = std::from_chars(p, end, d);
    if (ec != std::errc() || d <= 0 || s.rank() == kMaxRank) throw bad();
    if (d > json::kMaxDimension)
      throw Error("--input-shape: dimension " + std::to_string(d) + " is over the limit of " +
                  std::to_string(json::kMaxDimension) + " (a 32-bit integer)");
    s.push_back(d);
    p = next;
    if (p < end && *p++ != 'x') throw bad();
    if (p == end && end[-1] == 'x') throw bad();
  }
  return {text.substr(0, eq), s};
}

}  // namespace superopt
