// Refusing invalid ONNX models before their import (see onnx_validate.h): our
// own checks first, for messages that name the value; then the ONNX library's
// checker and strict shape inference for the rest of what ONNX calls invalid.
#include "runtime/formats/onnx_validate.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "runtime/core/error.h"

namespace superopt::onnx_import {
namespace {

std::string node_label(const onnx::NodeProto& n) {
  return "'" + (n.name().empty() ? (n.output_size() ? n.output(0) : std::string("?")) : n.name()) + "'";
}

std::string type_name(int elem_type) {
  return onnx::TensorProto::DataType_Name(onnx::TensorProto::DataType(elem_type));
}

// A declared shape as text: static sizes, symbolic ones by name, unknown ones as '?'.
std::string declared_shape(const onnx::TensorShapeProto& s) {
  if (s.dim_size() == 0) return "scalar";
  std::string text;
  for (const auto& d : s.dim()) {
    if (!text.empty()) text += 'x';
    text += d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "?";
  }
  return text;
}

std::string dims_text(const onnx::TensorProto& t) {
  if (t.dims_size() == 0) return "scalar";
  std::string text;
  for (int64_t d : t.dims()) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

// An input that an initializer of the same name gives a value (IR version 3
// lists every initializer as an input) must declare what the initializer holds.
void check_shadowed_input(const onnx::ValueInfoProto& in, const onnx::TensorProto& init) {
  if (!in.type().has_tensor_type()) return;
  const auto& t = in.type().tensor_type();
  if (t.has_elem_type() && t.elem_type() != init.data_type())
    throw Error("input '" + in.name() + "' is declared " + type_name(t.elem_type()) +
                " but the initializer of that name holds " + type_name(init.data_type()));
  if (!t.has_shape()) return;
  bool same = t.shape().dim_size() == init.dims_size();
  for (int k = 0; same && k < init.dims_size(); ++k)
    same = !t.shape().dim(k).has_dim_value() || t.shape().dim(k).dim_value() == init.dims(k);
  if (!same)
    throw Error("input '" + in.name() + "' is declared " + declared_shape(t.shape()) +
                " but the initializer of that name is " + dims_text(init));
}

// The first line of a message from the ONNX library (some run to several).
std::string first_line(const char* what) {
  std::string text = what;
  return text.substr(0, text.find('\n'));
}

// onnx::checker::check_model(model) with the model's folder for external data
// (the library's in-memory overload looks for it in the working folder).
void run_checker(const onnx::ModelProto& model, const std::string& model_dir) {
  namespace checker = onnx::checker;
  if (model.ir_version() <= 0) throw Error("not a valid ONNX model (no IR version)");
  if (model.ir_version() > onnx::IR_VERSION)
    throw Error("IR version " + std::to_string(model.ir_version()) + " is newer than this ONNX library's (" +
                std::to_string(onnx::IR_VERSION) + ")");
  checker::CheckerContext context;
  context.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const auto& o : model.opset_import()) opsets[o.domain()] = static_cast<int>(o.version());
  context.set_opset_imports(opsets);
  context.set_model_dir(model_dir + "/");  // joined with each location as text
  checker::LexicalScopeContext scope;
  checker::check_graph(model.graph(), context, scope);
  if (context.get_ir_version() >= 8) checker::check_model_local_functions(model, context, scope);
}

}  // namespace

void check_unique_names(const onnx::GraphProto& g) {
  std::unordered_map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& t : g.initializer())
    if (!initializers.emplace(t.name(), &t).second)
      throw Error("two initializers are named '" + t.name() + "'");
  std::unordered_set<std::string> inputs;
  for (const auto& in : g.input()) {
    if (!inputs.insert(in.name()).second) throw Error("input '" + in.name() + "' is listed twice");
    if (auto it = initializers.find(in.name()); it != initializers.end())
      check_shadowed_input(in, *it->second);
  }
  std::unordered_map<std::string, const onnx::NodeProto*> producer;
  for (const auto& n : g.node())
    for (const std::string& out : n.output()) {
      if (out.empty()) continue;  // an optional output left out
      if (inputs.count(out) || initializers.count(out))
        throw Error("node " + node_label(n) + " (" + n.op_type() + ") writes '" + out + "', which is also " +
                    (inputs.count(out) ? "a graph input" : "an initializer"));
      auto [it, fresh] = producer.emplace(out, &n);
      if (!fresh)
        throw Error("two nodes write '" + out + "': " + node_label(*it->second) + " (" +
                    it->second->op_type() + ") and " + node_label(n) + " (" + n.op_type() + ")");
    }
}

// Kahn's algorithm over value names, keeping file order among ready nodes.
void sort_nodes(onnx::GraphProto& g) {
  const int n = g.node_size();
  std::unordered_set<std::string> given;
  for (const auto& t : g.initializer()) given.insert(t.name());
  for (const auto& in : g.input()) given.insert(in.name());
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const std::string& out : g.node(i).output())
      if (!out.empty()) producer[out] = i;
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> readers(n);
  for (int i = 0; i < n; ++i)
    for (const std::string& in : g.node(i).input()) {
      if (in.empty()) continue;
      if (auto p = producer.find(in); p != producer.end()) {
        ++waiting[i];
        readers[p->second].push_back(i);
      } else if (!given.count(in)) {
        throw Error("node " + node_label(g.node(i)) + " (" + g.node(i).op_type() + ") reads '" + in +
                    "', which no node, input or initializer gives");
      }
    }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (!waiting[i]) ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int r : readers[i])
      if (--waiting[r] == 0) ready.push(r);
  }
  if (static_cast<int>(order.size()) != n)
    for (int i = 0; i < n; ++i)
      if (waiting[i])
        throw Error("the graph has a cycle through node " + node_label(g.node(i)) + " (" +
                    g.node(i).op_type() + ")");
  // Move the nodes into that order without copying them.
  std::vector<onnx::NodeProto*> nodes(n);
  g.mutable_node()->ExtractSubrange(0, n, nodes.data());
  for (int i : order) g.mutable_node()->AddAllocated(nodes[i]);
}

void check_with_onnx_checker(onnx::ModelProto& model, const std::string& model_dir) {
  // The checker asks every graph output for a shape; ONNX allows leaving them
  // out (later checkers do too): those are set aside meanwhile.
  onnx::GraphProto& g = *model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> declared, shaped;
  for (const auto& o : g.output())
    if (!o.type().has_tensor_type() || o.type().tensor_type().has_shape()) *shaped.Add() = o;
  declared.Swap(g.mutable_output());
  g.mutable_output()->Swap(&shaped);
  try {
    run_checker(model, model_dir);
  } catch (const std::exception& e) {
    g.mutable_output()->Swap(&declared);
    throw Error("not a valid ONNX model (onnx::checker: " + first_line(e.what()) + ")");
  }
  g.mutable_output()->Swap(&declared);
}

onnx::ModelProto inference_copy(const onnx::ModelProto& model) {
  onnx::ModelProto copy;
  copy.set_ir_version(model.ir_version());
  *copy.mutable_opset_import() = model.opset_import();
  *copy.mutable_functions() = model.functions();
  const onnx::GraphProto& g = model.graph();
  onnx::GraphProto& c = *copy.mutable_graph();
  c.set_name(g.name());
  *c.mutable_node() = g.node();
  *c.mutable_input() = g.input();
  *c.mutable_value_info() = g.value_info();
  // Outputs untyped: inference types them, check_declared_outputs compares.
  for (const auto& o : g.output()) c.add_output()->set_name(o.name());
  for (const onnx::TensorProto& t : g.initializer()) {
    // Inference reads the values of small tensors (shapes, axes, scales); the
    // weights' are left out, so that the copy costs little.
    const size_t bytes = t.raw_data().size() + 4 * size_t(t.float_data_size() + t.int32_data_size()) +
                         8 * size_t(t.double_data_size() + t.int64_data_size() + t.uint64_data_size());
    if (bytes <= kInferenceDataBytes) {
      *c.add_initializer() = t;
      continue;
    }
    onnx::TensorProto& k = *c.add_initializer();
    k.set_name(t.name());
    k.set_data_type(t.data_type());
    *k.mutable_dims() = t.dims();
  }
  return copy;
}

void check_with_onnx_inference(onnx::ModelProto& copy) {
  const onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/false);
  try {
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    throw Error("not a valid ONNX model (shape inference: " + first_line(e.what()) + ")");
  }
}

void check_declared_outputs(const std::vector<onnx::ValueInfoProto>& declared, const Graph& graph) {
  for (size_t i = 0; i < declared.size() && i < graph.outputs().size(); ++i) {
    const onnx::ValueInfoProto& o = declared[i];
    if (!o.type().has_tensor_type()) throw Error("output '" + o.name() + "' is not a tensor");
    const auto& t = o.type().tensor_type();
    if (t.has_elem_type() && t.elem_type() != onnx::TensorProto::FLOAT &&
        t.elem_type() != onnx::TensorProto::DOUBLE)
      throw Error("output '" + o.name() + "' is declared " + type_name(t.elem_type()) +
                  ", but ours is real (float and double are supported)");
    if (!t.has_shape()) continue;
    const Shape& ours = graph.shape(graph.outputs()[i]);
    bool same = t.shape().dim_size() == ours.rank();
    for (int k = 0; same && k < ours.rank(); ++k)
      same = !t.shape().dim(k).has_dim_value() || t.shape().dim(k).dim_value() == ours[k];
    if (!same)
      throw Error("output '" + o.name() + "' is declared " + declared_shape(t.shape()) + ", but computes " +
                  ours.str());
  }
}

}  // namespace superopt::onnx_import
