// Renaming-invariant rule keys and the common-subgraph tests.
#include "enum/pruning.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "enum/renaming.h"
#include "runtime/core/hashing.h"

namespace superopt::enumeration {
namespace {

int num_sources(const Opset& opset) {
  return static_cast<int>(opset.sources.size());
}

uint64_t rule_key(const CandidateRule& r, const Opset& opset, const Renaming& rename, bool swapped) {
  std::vector<uint64_t> hs = tensor_structure_hashes(r.source, opset, &rename),
                        ht = tensor_structure_hashes(r.target, opset, &rename);
  std::vector<uint64_t> pairs;
  for (size_t k = 0; k < r.source_outputs.size(); ++k) {
    uint64_t a = hs[r.source_outputs[k]], b = ht[r.target_outputs[k]];
    pairs.push_back(swapped ? hash_combine(b, a) : hash_combine(a, b));
  }
  std::sort(pairs.begin(), pairs.end());  // aligned outputs may come in any order
  uint64_t v = hash_bytes(pairs.data(), pairs.size() * sizeof(uint64_t), 0x7e1e);
  uint64_t ns = swapped ? r.target.ops.size() : r.source.ops.size();
  uint64_t nt = swapped ? r.source.ops.size() : r.target.ops.size();
  return hash_combine(hash_combine(v, ns), nt);
}

// Calls f with every renaming that maps the used sources of each class
// injectively into that class (sources of other classes keep their id).
void for_each_renaming(const CandidateRule& r, const Opset& opset,
                       const std::function<void(const Renaming&)>& f) {
  int s = num_sources(opset);
  std::vector<char> used(s, 0);
  for (const GraphCode* c : {&r.source, &r.target})
    for (const CodeOp& op : c->ops)
      for (int i = 0; i < op.num_inputs; ++i)
        if (op.inputs[i] < s) used[op.inputs[i]] = 1;
  std::vector<int> used_ids;
  for (int t = 0; t < s; ++t)
    if (used[t]) used_ids.push_back(t);
  Renaming rename(s);
  for (int t = 0; t < s; ++t) rename[t] = static_cast<uint8_t>(t);
  std::vector<char> taken(s, 0);
  std::function<void(size_t)> assign = [&](size_t i) {
    if (i == used_ids.size()) return f(rename);
    int t = used_ids[i];
    for (int u = 0; u < s; ++u) {
      if (taken[u] || opset.sources[u].interchange_class != opset.sources[t].interchange_class) continue;
      taken[u] = 1;
      rename[t] = static_cast<uint8_t>(u);
      assign(i + 1);
      taken[u] = 0;
    }
  };
  assign(0);
}

// Identical sub-DAGs across the two sides: hashes with sources unrenamed.
bool same_op_on_inputs(const CandidateRule& r, const Opset& opset) {
  int s = num_sources(opset);
  for (const CodeOp& a : r.source.ops) {
    bool on_inputs =
        std::all_of(a.inputs.begin(), a.inputs.begin() + a.num_inputs, [&](int t) { return t < s; });
    if (on_inputs && std::find(r.target.ops.begin(), r.target.ops.end(), a) != r.target.ops.end())
      return true;
  }
  return false;
}

bool common_top(const CandidateRule& r, const Opset& opset, const TensorEquality& equal) {
  int s = num_sources(opset);
  std::vector<uint64_t> hs = tensor_structure_hashes(r.source, opset),
                        ht = tensor_structure_hashes(r.target, opset);
  for (size_t k = 0; k < r.source_outputs.size(); ++k) {
    int a = r.source_outputs[k], b = r.target_outputs[k];
    if (a < s || b < s || (a - s) % 2 != (b - s) % 2) return false;
    const CodeOp &x = r.source.ops[(a - s) / 2], &y = r.target.ops[(b - s) / 2];
    if (x.variant != y.variant) return false;
    int differing = 0, position = 0;
    for (int i = 0; i < x.num_inputs; ++i)
      if (hs[x.inputs[i]] != ht[y.inputs[i]]) ++differing, position = i;
    if (differing > 1) return false;
    if (differing == 1 && !equal(x.inputs[position], y.inputs[position])) return false;
  }
  return true;
}

}  // namespace

uint64_t renaming_key(const CandidateRule& r, const Opset& opset) {
  uint64_t best = std::numeric_limits<uint64_t>::max();
  for_each_renaming(r, opset, [&](const Renaming& rename) {
    best = std::min({best, rule_key(r, opset, rename, false), rule_key(r, opset, rename, true)});
  });
  return best;
}

bool has_common_subgraph(const CandidateRule& r, const Opset& opset, const TensorEquality& equal) {
  return same_op_on_inputs(r, opset) || common_top(r, opset, equal);
}

}  // namespace superopt::enumeration
