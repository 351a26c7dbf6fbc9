// Renamed codes, structure hashes and the canonical naming of rules.
#include "enum/renaming.h"

#include <algorithm>

#include "runtime/core/hashing.h"

namespace superopt::enumeration {

void rename_sources_into(const GraphCode& code, int num_sources, const Renaming& rename, GraphCode& out) {
  out.ops.assign(code.ops.begin(), code.ops.end());
  for (CodeOp& op : out.ops)
    for (int i = 0; i < op.num_inputs; ++i)
      if (op.inputs[i] < num_sources) op.inputs[i] = rename[op.inputs[i]];
}

GraphCode rename_sources(const GraphCode& code, int num_sources, const Renaming& rename) {
  GraphCode out;
  rename_sources_into(code, num_sources, rename, out);
  return out;
}

std::vector<uint64_t> tensor_structure_hashes(const GraphCode& code, const Opset& opset,
                                              const Renaming* rename) {
  int s = static_cast<int>(opset.sources.size());
  std::vector<uint64_t> h(s + 2 * code.ops.size(), 0);
  for (int t = 0; t < s; ++t) h[t] = hash_combine(0x50a7ce, rename ? (*rename)[t] : static_cast<uint64_t>(t));
  for (size_t k = 0; k < code.ops.size(); ++k) {
    const CodeOp& op = code.ops[k];
    uint64_t v = hash_combine(0x0b, op.variant);
    std::array<uint64_t, kMaxCodeInputs> in{};
    for (int i = 0; i < op.num_inputs; ++i) in[i] = h[op.inputs[i]];
    if (op.num_inputs == 2 && op_info(opset.operators[op.variant].op).commutative && in[1] < in[0])
      std::swap(in[0], in[1]);
    for (int i = 0; i < op.num_inputs; ++i) v = hash_combine(v, in[i]);
    int id = op_output_id(s, static_cast<int>(k), 0);
    h[id] = hash_combine(v, 0);
    h[id + 1] = hash_combine(v, 1);
  }
  return h;
}

uint64_t structure_hash(const GraphCode& code, const Opset& opset) {
  std::vector<uint64_t> h = tensor_structure_hashes(code, opset);
  std::vector<uint64_t> outputs;
  for (int t : code_outputs(code, opset)) outputs.push_back(h[t]);
  std::sort(outputs.begin(), outputs.end());
  return hash_bytes(outputs.data(), outputs.size() * sizeof(uint64_t), 0x57c7);
}

void name_canonically(CandidateRule& rule, const Opset& opset) {
  int s = static_cast<int>(opset.sources.size());
  std::vector<std::vector<uint8_t>> members;  // per class, its sources in index order
  for (int t = 0; t < s; ++t) {
    size_t c = opset.sources[t].interchange_class;
    if (members.size() <= c) members.resize(c + 1);
    members[c].push_back(static_cast<uint8_t>(t));
  }
  std::vector<size_t> next(members.size(), 0);
  Renaming rename(s);
  std::vector<char> named(s, 0);
  for (const GraphCode* code : {&rule.target, &rule.source})
    for (const CodeOp& op : code->ops)
      for (int i = 0; i < op.num_inputs; ++i) {
        int t = op.inputs[i];
        if (t >= s || named[t]) continue;
        size_t c = opset.sources[t].interchange_class;
        rename[t] = members[c][next[c]++];
        named[t] = 1;
      }
  for (GraphCode* code : {&rule.target, &rule.source}) {
    *code = rename_sources(*code, s, rename);
    // Readability only: x1 + x2 rather than x2 + x1 where renaming swapped them.
    for (CodeOp& op : code->ops)
      if (op.num_inputs == 2 && op_info(opset.operators[op.variant].op).commutative && op.inputs[0] < s &&
          op.inputs[1] < s && op.inputs[1] < op.inputs[0])
        std::swap(op.inputs[0], op.inputs[1]);
  }
}

}  // namespace superopt::enumeration
