// Incremental evaluation of the generator's graph under the permutations of
// its used source prefixes.
#include "enum/renaming_orbit.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "enum/generator.h"
#include "runtime/core/arith.h"
#include "runtime/core/hashing.h"
#include "runtime/core/kernels.h"

namespace superopt::enumeration {
namespace {

// A class whose used prefix is one source long (or empty) has no permutation.
int permuted_prefix(int used) {
  return used < 2 ? 0 : used;
}

}  // namespace

RenamingOrbit::RenamingOrbit(const Opset& opset, std::vector<Values> sources, int max_ops,
                             const std::vector<Values>& values, const std::vector<uint64_t>& hashes)
    : opset_(opset),
      num_sources_(static_cast<int>(opset.sources.size())),
      max_ops_(max_ops),
      sources_(std::move(sources)),
      identity_values_(values),
      hashes_(hashes) {
  for (int t = 0; t < num_sources_; ++t) {
    size_t c = opset.sources[t].interchange_class;
    if (members_.size() <= c) members_.resize(c + 1);
    members_[c].push_back(static_cast<uint8_t>(t));
  }
  descs_.resize(max_ops);
  // A level is made by an operator that lengthens a used prefix: at most one per operator.
  levels_.resize(max_ops + 1);
  levels_[0].used.assign(members_.size(), 0);
  build_renamings(levels_[0]);
}

void RenamingOrbit::build_renamings(Level& l) const {
  l.renamings.clear();
  Renaming r(num_sources_);
  std::iota(r.begin(), r.end(), 0);
  // Odometer over the classes, each running through the permutations of its
  // prefix in lexicographic order, so the identity comes first.
  auto fill = [&](auto&& self, size_t c) -> void {
    if (c == members_.size()) return l.renamings.push_back(r);
    int k = l.used[c];
    if (k == 0) return self(self, c + 1);
    std::vector<int> order(k);
    std::iota(order.begin(), order.end(), 0);
    do {
      for (int i = 0; i < k; ++i) r[members_[c][i]] = members_[c][order[i]];
      self(self, c + 1);
    } while (std::next_permutation(order.begin(), order.end()));
    for (int i = 0; i < k; ++i) r[members_[c][i]] = members_[c][i];
  };
  fill(fill, 0);
  size_t others = l.renamings.size() - 1;
  if (l.values.size() < others) {
    l.values.resize(others, std::vector<Values>(2 * max_ops_, Values(Shape{}, 0)));
    l.value.resize(others, std::vector<const Values*>(2 * max_ops_, nullptr));
    l.hashes.resize(others, std::vector<uint64_t>(2 * max_ops_, 0));
  }
  if (l.structures.size() < others + 1)
    l.structures.resize(others + 1, std::vector<uint64_t>(2 * max_ops_, 0));
}

const RenamingOrbit::Values& RenamingOrbit::input(const Level& l, int p, int t) const {
  if (t < num_sources_) return sources_[l.renamings[p][t]];
  return p == 0 ? identity_values_[t] : *l.value[p - 1][t - num_sources_];
}

// As tensor_structure_hashes computes them.
uint64_t RenamingOrbit::input_structure(const Level& l, int p, int t) const {
  if (t < num_sources_) return hash_combine(0x50a7ce, l.renamings[p][t]);
  return l.structures[p][t - num_sources_];
}

// Operator k under renaming p: its structure, and for p >= 1 its values,
// shared with the first renaming that gives it the same structure.
void RenamingOrbit::evaluate(Level& l, const GraphCode& code, int k, int p) {
  static const ModArith ar;
  const CodeOp& op = code.ops[k];
  const OpsetOperator& v = opset_.operators[op.variant];
  std::array<uint64_t, kMaxCodeInputs> in_structure{};
  for (int i = 0; i < op.num_inputs; ++i) in_structure[i] = input_structure(l, p, op.inputs[i]);
  if (op.num_inputs == 2 && op_info(v.op).commutative && in_structure[1] < in_structure[0])
    std::swap(in_structure[0], in_structure[1]);
  uint64_t structure = hash_combine(0x0b, op.variant);
  for (int i = 0; i < op.num_inputs; ++i) structure = hash_combine(structure, in_structure[i]);
  int ports = op_info(v.op).num_outputs;
  for (int port = 0; port < ports; ++port) l.structures[p][2 * k + port] = hash_combine(structure, port);
  if (p == 0) return;  // the generator evaluated the identity

  for (int q = 0; q < p; ++q) {
    if (l.structures[q][2 * k] != l.structures[p][2 * k]) continue;
    for (int port = 0; port < ports; ++port) {
      int at = 2 * k + port;
      l.value[p - 1][at] = q == 0 ? &identity_values_[num_sources_ + at] : l.value[q - 1][at];
      l.hashes[p - 1][at] = q == 0 ? hashes_[num_sources_ + at] : l.hashes[q - 1][at];
    }
    return;
  }
  std::array<const Values*, kMaxCodeInputs> in{};
  for (int i = 0; i < op.num_inputs; ++i) in[i] = &input(l, p, op.inputs[i]);
  std::vector<Values> out =
      run_op(ar, v.op, v.params, std::span<const Values* const>(in.data(), op.num_inputs),
             std::span<const TensorDesc>(descs_[k]));
  for (int port = 0; port < ports; ++port) {
    int at = 2 * k + port;
    l.hashes[p - 1][at] = tensor_hash(out[port].shape, out[port].data);
    l.values[p - 1][at] = std::move(out[port]);
    l.value[p - 1][at] = &l.values[p - 1][at];
  }
}

void RenamingOrbit::push(const GraphCode& code, std::span<const TensorDesc> outputs,
                         const std::vector<int>& used) {
  int k = static_cast<int>(code.ops.size()) - 1;
  descs_[k].assign(outputs.begin(), outputs.end());
  bool grows = false;
  for (size_t c = 0; c < used.size(); ++c) grows |= permuted_prefix(used[c]) != levels_[top_].used[c];
  if (!grows) {
    for (int p = 0; p < size(); ++p) evaluate(levels_[top_], code, k, p);
    return;
  }
  Level& l = levels_[++top_];
  l.created_by = k;
  l.used.resize(used.size());
  for (size_t c = 0; c < used.size(); ++c) l.used[c] = permuted_prefix(used[c]);
  build_renamings(l);
  for (int j = 0; j <= k; ++j)
    for (int p = 0; p < size(); ++p) evaluate(l, code, j, p);
}

void RenamingOrbit::pop(int k) {
  if (top_ > 0 && levels_[top_].created_by == k) --top_;
}

}  // namespace superopt::enumeration
