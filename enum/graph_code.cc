// Encoding, decoding and conversion of generator graph codes.
#include "enum/graph_code.h"

#include "runtime/core/error.h"

namespace superopt::enumeration {
namespace {

int arity(const Opset& opset, int variant) {
  return opset.operators[variant].arity();
}

}  // namespace

void GraphCode::append_bytes(std::string& out) const {
  out.push_back(static_cast<char>(ops.size()));
  for (const CodeOp& op : ops) {
    out.push_back(static_cast<char>(op.variant));
    for (int i = 0; i < op.num_inputs; ++i) out.push_back(static_cast<char>(op.inputs[i]));
  }
}

GraphCode GraphCode::from_bytes(std::span<const uint8_t> bytes, const Opset& opset) {
  auto bad = [] { throw Error("graph code does not match the operator set"); };
  if (bytes.empty() || bytes[0] > kMaxCodeOps) bad();
  GraphCode code;
  size_t at = 1;
  for (int k = 0; k < bytes[0]; ++k) {
    if (at >= bytes.size() || bytes[at] >= opset.operators.size()) bad();
    CodeOp op;
    op.variant = bytes[at++];
    op.num_inputs = static_cast<uint8_t>(arity(opset, op.variant));
    if (op.num_inputs > kMaxCodeInputs || at + op.num_inputs > bytes.size()) bad();
    for (int i = 0; i < op.num_inputs; ++i) op.inputs[i] = bytes[at++];
    code.ops.push_back(op);
  }
  if (at != bytes.size()) bad();
  return code;
}

std::vector<int> code_outputs(const GraphCode& code, const Opset& opset) {
  int num_sources = static_cast<int>(opset.sources.size());
  std::vector<char> read(num_sources + 2 * code.ops.size(), 0);
  for (const CodeOp& op : code.ops)
    for (int i = 0; i < op.num_inputs; ++i) read[op.inputs[i]] = 1;
  std::vector<int> outputs;
  for (size_t k = 0; k < code.ops.size(); ++k) {
    int ports = op_info(opset.operators[code.ops[k].variant].op).num_outputs;
    for (int port = 0; port < ports; ++port) {
      int id = op_output_id(num_sources, static_cast<int>(k), port);
      if (!read[id]) outputs.push_back(id);
    }
  }
  return outputs;
}

Graph code_to_graph(const GraphCode& code, const Opset& opset, const std::vector<int>* outputs) {
  int num_sources = static_cast<int>(opset.sources.size());
  Graph g;
  std::vector<TensorRef> tensor(num_sources + 2 * code.ops.size());
  auto source = [&](int id) {
    if (tensor[id].node >= 0) return tensor[id];
    return tensor[id] = {add_source(g, opset.sources[id]), 0};
  };
  for (size_t k = 0; k < code.ops.size(); ++k) {
    const CodeOp& op = code.ops[k];
    const OpsetOperator& variant = opset.operators[op.variant];
    std::vector<TensorRef> inputs;
    for (int i = 0; i < op.num_inputs; ++i) {
      int id = op.inputs[i];
      if (id >= static_cast<int>(tensor.size())) throw Error("graph code reads an unknown tensor");
      inputs.push_back(id < num_sources ? source(id) : tensor[id]);
      if (inputs.back().node < 0) throw Error("graph code reads a tensor before it is computed");
    }
    NodeId n = g.add(variant.op, inputs, variant.params);
    for (int port = 0; port < op_info(variant.op).num_outputs; ++port)
      tensor[op_output_id(num_sources, static_cast<int>(k), port)] = {n, port};
  }
  std::vector<int> ids = outputs ? *outputs : code_outputs(code, opset);
  for (int id : ids) g.add_output(id < num_sources ? source(id) : tensor[id]);
  return g;
}

NodeId add_source(Graph& g, const OpsetSource& s) {
  return s.kind == OpType::input ? g.add_input(s.name, s.shape) : g.add_weight(s.name, s.shape);
}

std::string code_str(const GraphCode& code, const Opset& opset) {
  int num_sources = static_cast<int>(opset.sources.size());
  std::string s;
  for (size_t k = 0; k < code.ops.size(); ++k) {
    const CodeOp& op = code.ops[k];
    const OpsetOperator& variant = opset.operators[op.variant];
    if (k) s += "; ";
    s += std::string(op_name(variant.op)) + "(";
    for (int i = 0; i < op.num_inputs; ++i) {
      int id = op.inputs[i];
      if (i) s += ", ";
      if (id < num_sources) {
        s += opset.sources[id].name;
      } else {
        s.append("#").append(std::to_string((id - num_sources) / 2));
        if ((id - num_sources) % 2) s.append(":1");
      }
    }
    s += ")";
    std::string params = params_str(variant.op, variant.params);
    if (!params.empty()) s += "[" + params + "]";
  }
  return s;
}

}  // namespace superopt::enumeration
