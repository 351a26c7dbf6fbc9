// The import state: binding ONNX names, turning constants into weights, attributes.
#include "runtime/formats/onnx_importer.h"

#include <limits>

#include "runtime/core/error.h"

namespace superopt::onnx_import {

const Value* Importer::find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

bool Importer::has_input(const onnx::NodeProto& n, int i) const {
  return i < n.input_size() && !n.input(i).empty();
}

const Value& Importer::input(const onnx::NodeProto& n, int i) const {
  if (!has_input(n, i)) throw Error("input " + std::to_string(i) + " is missing");
  const Value* v = find(n.input(i));
  if (!v) throw Error("input '" + n.input(i) + "' is not produced by any node");
  return *v;
}

const Constant* Importer::constant_input(const onnx::NodeProto& n, int i) const {
  return input(n, i).constant.get();
}

TensorRef Importer::tensor_input(const onnx::NodeProto& n, int i) {
  const Value& v = input(n, i);
  if (v.tensor) return *v.tensor;
  return weight(v.constant, n.input(i));
}

std::vector<int64_t> Importer::input_dims(const onnx::NodeProto& n, int i) const {
  const Value& v = input(n, i);
  if (v.constant) return v.constant->dims;
  const Shape& s = graph_.shape(*v.tensor);
  std::vector<int64_t> dims;
  for (int k = 0; k < s.rank(); ++k) dims.push_back(s[k]);
  return dims;
}

// Exporters name values like "/layer1/conv/Conv_output_0": '/' cannot name an HDF5
// dataset (graph run --dump) and ':' separates a port in graph files, so both become
// '.', without the leading one. Inputs keep their names (the model's interface).
std::string Importer::unique_name(const std::string& given) {
  std::string base = given.size() > 1 && given[0] == '/' ? given.substr(1) : given;
  for (char& c : base)
    if (c == '/' || c == ':') c = '.';
  std::string name = base.empty() ? "const" : base;
  for (int k = 1; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_.insert(name);
  return name;
}

TensorRef Importer::weight(const std::shared_ptr<const Constant>& c, const std::string& name,
                           std::optional<Shape> shape) {
  const Shape s = shape ? *shape : c->shape();
  auto key = std::make_pair(c.get(), s.str());
  if (auto it = weights_.find(key); it != weights_.end()) return it->second;
  if (!c->is_real) throw Error("'" + name + "' holds integers where a real tensor is needed");
  if (s.num_elements() != c->size())
    throw Error("'" + name + "' has " + std::to_string(c->size()) + " values, not " + s.str());
  TensorRef t{graph_.add_weight(unique_name(c->name.empty() ? name : c->name), s, c->reals), 0};
  weights_[key] = t;
  return t;
}

TensorRef Importer::weight(Constant c, const std::string& name, std::optional<Shape> shape) {
  if (!c.is_real) {
    c.is_real = true;
    for (int64_t v : c.ints) c.reals.push_back(static_cast<float>(v));
    c.ints.clear();
  }
  const Shape s = shape ? *shape : c.shape();
  if (s.num_elements() != c.size())
    throw Error("'" + name + "' has " + std::to_string(c.size()) + " values, not " + s.str());
  return {graph_.add_weight(unique_name(name), s, std::move(c.reals)), 0};
}

TensorRef Importer::emit(OpType op, std::vector<TensorRef> inputs, const OpParams& p,
                         const std::string& name) {
  if (op == OpType::concat && inputs.size() > kMaxInputs) {
    // Ours takes at most kMaxInputs: concatenate in groups, then the groups.
    std::vector<TensorRef> groups;
    for (size_t k = 0; k < inputs.size(); k += kMaxInputs) {
      std::vector<TensorRef> part(inputs.begin() + k,
                                  inputs.begin() + std::min(inputs.size(), k + kMaxInputs));
      groups.push_back(part.size() == 1 ? part[0] : emit(op, part, p));
    }
    return emit(op, groups, p, name);
  }
  std::string label = name.empty() ? std::string() : unique_name(name);
  return {graph_.add(op, inputs, p, label), 0};
}

void Importer::set_output(const onnx::NodeProto& n, int i, Constant c) {
  c.name = n.output(i);
  bind(n.output(i), {std::nullopt, std::make_shared<const Constant>(std::move(c))});
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool has_attr(const onnx::NodeProto& n, const std::string& name) {
  return find_attr(n, name) != nullptr;
}

namespace {
const onnx::AttributeProto* typed_attr(const onnx::NodeProto& n, const std::string& name,
                                       onnx::AttributeProto::AttributeType type) {
  const onnx::AttributeProto* a = find_attr(n, name);
  if (a && a->type() != type)
    throw Error("attribute '" + name + "' has type " + onnx::AttributeProto::AttributeType_Name(a->type()) +
                ", expected " + onnx::AttributeProto::AttributeType_Name(type));
  return a;
}
}  // namespace

int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  const auto* a = typed_attr(n, name, onnx::AttributeProto::INT);
  return a ? a->i() : fallback;
}

float attr_float(const onnx::NodeProto& n, const std::string& name, float fallback) {
  const auto* a = typed_attr(n, name, onnx::AttributeProto::FLOAT);
  return a ? a->f() : fallback;
}

std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback) {
  const auto* a = typed_attr(n, name, onnx::AttributeProto::STRING);
  return a ? a->s() : fallback;
}

std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = typed_attr(n, name, onnx::AttributeProto::INTS);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<int64_t>> ints_from(const Importer& im, const onnx::NodeProto& n, int i,
                                              const std::string& attr) {
  if (im.has_input(n, i)) {
    const Constant* c = im.constant_input(n, i);
    if (!c) throw Error("input " + std::to_string(i) + " ('" + n.input(i) + "') must be known at import");
    return as_ints(*c, "input " + std::to_string(i));
  }
  return attr_ints(n, attr);
}

std::vector<int64_t> checked_int32(std::vector<int64_t> values, const std::string& what) {
  for (int64_t v : values)
    if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min())
      throw Error(what + " value " + std::to_string(v) + " is out of range (a 32-bit integer)");
  return values;
}

int normalize_axis(int64_t axis, int rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(a);
}

}  // namespace superopt::onnx_import
