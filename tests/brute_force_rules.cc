// The brute-force enumeration behind the completeness test: a plain
// depth-first search over operator sequences with two independent modular
// evaluations, then classes of equal values confirmed in double.
#include "tests/brute_force_rules.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/kernels.h"

namespace superopt::test {

using enumeration::Opset;
using enumeration::OpsetOperator;

namespace {

using Mod = Tensor<uint64_t>;

int num_sources(const Opset& opset) {
  return static_cast<int>(opset.sources.size());
}

uint64_t mix(uint64_t seed, uint64_t v) {
  return XXH3_64bits_withSeed(&v, sizeof v, seed);
}

uint64_t values_hash(const Mod& t) {
  uint64_t seed = static_cast<uint64_t>(t.shape.rank());
  for (int i = 0; i < t.shape.rank(); ++i) seed = mix(seed, static_cast<uint64_t>(t.shape[i]));
  return XXH3_64bits_withSeed(t.data.data(), t.data.size() * sizeof(uint64_t), seed);
}

uint64_t multiset_hash(std::vector<uint64_t> v, uint64_t seed) {
  std::sort(v.begin(), v.end());
  return XXH3_64bits_withSeed(v.data(), v.size() * sizeof(uint64_t), seed);
}

Graph sources_graph(const Opset& opset) {
  Graph g;
  for (const auto& s : opset.sources)
    s.kind == OpType::input ? g.add_input(s.name, s.shape) : g.add_weight(s.name, s.shape);
  return g;
}

template <class A>
std::vector<Tensor<typename A::Value>> source_tensors(const Opset& opset, const A& ar, uint64_t seed) {
  Graph g = sources_graph(opset);
  SourceValues<A> random = random_sources(ar, seed);
  std::vector<Tensor<typename A::Value>> out;
  for (int n = 0; n < g.num_nodes(); ++n) out.push_back(random(g, n));
  return out;
}

// The depth-first search: every operator on every choice of present tensors.
class Search {
 public:
  Search(const Opset& opset, int max_ops, BruteForce& out)
      : opset_(opset), s_(num_sources(opset)), max_ops_(max_ops), out_(out) {
    int total = s_ + 2 * max_ops;
    std::vector<Mod> a = source_tensors(opset, ModArith(), 0xb1a5e),
                     b = source_tensors(opset, ModArith(), 0x5eed2);
    va_.assign(total, Mod(Shape{}, 0));
    vb_.assign(total, Mod(Shape{}, 0));
    ha_.assign(total, 0);
    hb_.assign(total, 0);
    desc_.assign(total, TensorDesc{});
    exists_.assign(total, 0);
    readers_.assign(total, 0);
    weights_only_.assign(total, 0);
    for (int t = 0; t < s_; ++t) {
      va_[t] = a[t];
      vb_[t] = b[t];
      ha_[t] = values_hash(a[t]);
      hb_[t] = values_hash(b[t]);
      desc_[t] = TensorDesc{opset.sources[t].shape, {}};
      exists_[t] = 1;
      weights_only_[t] = opset.sources[t].kind == OpType::weight;
    }
  }

  void run() { extend(); }

 private:
  bool fits(const OpsetOperator& v, int slot, int t) const {
    if (v.sources_only && t >= s_) return false;
    if (v.input_rank && desc_[t].shape.rank() != v.input_rank) return false;
    if (v.op == OpType::merge_groups) return weights_only_[t];
    if (v.op == OpType::conv2d) return slot == 1 ? weights_only_[t] : !weights_only_[t];
    return true;
  }

  // Whether tensor `t` (just computed) equals a tensor before it.
  bool repeats(int t) const {
    for (int u = 0; u < t; ++u)
      if (exists_[u] && ha_[u] == ha_[t] && va_[u].shape == va_[t].shape && va_[u].data == va_[t].data)
        return true;
    return false;
  }

  void try_op(int variant, const BruteOp& op) {
    const OpsetOperator& v = opset_.operators[variant];
    for (int i = 0; i < op.num_inputs; ++i)
      if (!fits(v, i, op.inputs[i])) return;
    if ((v.op == OpType::ewadd || v.op == OpType::ewmul) &&
        !(desc_[op.inputs[0]].shape == desc_[op.inputs[1]].shape))
      return;
    std::array<const TensorDesc*, 2> in{};
    for (int i = 0; i < op.num_inputs; ++i) in[i] = &desc_[op.inputs[i]];
    int ports = op_info(v.op).num_outputs;
    std::array<TensorDesc, kMaxOutputs> out{};
    try {
      infer_outputs(v.op, v.params, std::span(in.data(), op.num_inputs), std::span(out.data(), ports));
    } catch (const Error&) {
      return;
    }
    int k = static_cast<int>(graph_.ops.size());
    std::array<const Mod*, 2> xa{}, xb{};
    for (int i = 0; i < op.num_inputs; ++i) xa[i] = &va_[op.inputs[i]], xb[i] = &vb_[op.inputs[i]];
    std::span<const TensorDesc> descs(out.data(), ports);
    ModArith ar;
    std::vector<Mod> ra =
        run_op(ar, v.op, v.params, std::span<const Mod* const>(xa.data(), op.num_inputs), descs);
    std::vector<Mod> rb =
        run_op(ar, v.op, v.params, std::span<const Mod* const>(xb.data(), op.num_inputs), descs);
    bool weights_only = true;
    for (int i = 0; i < op.num_inputs; ++i) weights_only = weights_only && weights_only_[op.inputs[i]];
    bool duplicate = false;
    for (int p = 0; p < ports; ++p) {
      int t = s_ + 2 * k + p;
      va_[t] = std::move(ra[p]);
      vb_[t] = std::move(rb[p]);
      ha_[t] = values_hash(va_[t]);
      hb_[t] = values_hash(vb_[t]);
      desc_[t] = out[p];
      weights_only_[t] = weights_only;
      exists_[t] = 1;
      duplicate = duplicate || repeats(t);
    }
    if (!duplicate) {
      for (int i = 0; i < op.num_inputs; ++i) ++readers_[op.inputs[i]];
      graph_.ops.push_back(op);
      extend();
      graph_.ops.pop_back();
      for (int i = 0; i < op.num_inputs; ++i) --readers_[op.inputs[i]];
    }
    for (int p = 0; p < ports; ++p) exists_[s_ + 2 * k + p] = 0;
  }

  // Records the current graph; false when another operator order made it already.
  bool record() {
    uint64_t structure = brute_structure(graph_, opset_, identity_naming(opset_));
    if (!seen_.insert(structure).second) return false;
    std::vector<uint64_t> outa, outb;
    for (int t : brute_outputs(graph_, opset_)) outa.push_back(ha_[t]), outb.push_back(hb_[t]);
    keys_.push_back({multiset_hash(outa, 1), multiset_hash(outb, 2)});
    out_.graphs.push_back(graph_);
    int tensors = s_ + 2 * static_cast<int>(graph_.ops.size());
    out_.value_hashes.emplace_back(ha_.begin(), ha_.begin() + tensors);
    return true;
  }

  void extend() {
    // A graph met again in another operator order has the same extensions.
    if (!graph_.ops.empty() && !record()) return;
    if (static_cast<int>(graph_.ops.size()) == max_ops_) return;
    int present = s_ + 2 * static_cast<int>(graph_.ops.size());
    for (int variant = 0; variant < static_cast<int>(opset_.operators.size()); ++variant) {
      BruteOp op;
      op.variant = variant;
      op.num_inputs = op_info(opset_.operators[variant].op).min_inputs;
      if (op.num_inputs == 0) {
        try_op(variant, op);
        continue;
      }
      for (int a = 0; a < present; ++a) {
        if (!exists_[a]) continue;
        op.inputs[0] = a;
        if (op.num_inputs == 1) {
          try_op(variant, op);
          continue;
        }
        for (int b = 0; b < present; ++b) {
          if (!exists_[b]) continue;
          op.inputs[1] = b;
          try_op(variant, op);
        }
      }
    }
  }

 public:
  std::vector<std::array<uint64_t, 2>> keys_;  // per recorded graph: its outputs' values, two evaluations

 private:
  const Opset& opset_;
  const int s_, max_ops_;
  BruteForce& out_;
  BruteGraph graph_;
  std::vector<Mod> va_, vb_;
  std::vector<uint64_t> ha_, hb_;
  std::vector<TensorDesc> desc_;
  std::vector<char> exists_, weights_only_;
  std::vector<int> readers_;
  std::unordered_set<uint64_t> seen_;
};

bool close(const Tensor<double>& a, const Tensor<double>& b) {
  if (!(a.shape == b.shape)) return false;
  for (size_t i = 0; i < a.data.size(); ++i)
    if (!(std::abs(a.data[i] - b.data[i]) <=
          1e-5 * std::max({1.0, std::abs(a.data[i]), std::abs(b.data[i])})))
      return false;
  return true;
}

// Whether two graphs' outputs agree in double, as multisets.
bool same_reals(const std::vector<Tensor<double>>& a, const std::vector<Tensor<double>>& b) {
  if (a.size() != b.size()) return false;
  std::vector<char> taken(b.size(), 0);
  for (const auto& x : a) {
    size_t j = 0;
    while (j < b.size() && (taken[j] || !close(x, b[j]))) ++j;
    if (j == b.size()) return false;
    taken[j] = 1;
  }
  return true;
}

}  // namespace

std::vector<int> identity_naming(const Opset& opset) {
  std::vector<int> r(opset.sources.size());
  for (size_t t = 0; t < r.size(); ++t) r[t] = static_cast<int>(t);
  return r;
}

BruteForce brute_force(const Opset& opset, int max_ops) {
  BruteForce bf;
  Search search(opset, max_ops, bf);
  search.run();
  std::map<std::array<uint64_t, 2>, std::vector<int>> by_key;
  for (size_t g = 0; g < bf.graphs.size(); ++g) by_key[search.keys_[g]].push_back(static_cast<int>(g));
  RealArith<double> real(/*relu_as_polynomial=*/true);
  SourceValues<RealArith<double>> inputs = random_sources(real, 0xd0b1e);
  for (auto& [key, members] : by_key) {
    if (members.size() < 2) continue;
    // Split by a third evaluation in double, as the generator's float test does.
    std::vector<std::pair<std::vector<Tensor<double>>, std::vector<int>>> groups;
    for (int g : members) {
      std::vector<Tensor<double>> reals = evaluate(brute_to_graph(bf.graphs[g], opset), real, inputs);
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& x) { return same_reals(x.first, reals); });
      if (it == groups.end())
        groups.push_back({std::move(reals), {g}});
      else
        it->second.push_back(g);
    }
    for (auto& group : groups)
      if (group.second.size() >= 2) bf.classes.push_back(std::move(group.second));
  }
  return bf;
}

std::vector<int> brute_outputs(const BruteGraph& g, const Opset& opset) {
  int s = num_sources(opset);
  std::vector<char> read(s + 2 * g.ops.size(), 0);
  for (const BruteOp& op : g.ops)
    for (int i = 0; i < op.num_inputs; ++i) read[op.inputs[i]] = 1;
  std::vector<int> outputs;
  for (size_t k = 0; k < g.ops.size(); ++k)
    for (int p = 0; p < op_info(opset.operators[g.ops[k].variant].op).num_outputs; ++p)
      if (!read[s + 2 * k + p]) outputs.push_back(static_cast<int>(s + 2 * k + p));
  return outputs;
}

std::vector<uint64_t> brute_tensor_structures(const BruteGraph& g, const Opset& opset,
                                              const std::vector<int>& rename) {
  int s = num_sources(opset);
  std::vector<uint64_t> h(s + 2 * g.ops.size(), 0);
  for (int t = 0; t < s; ++t) h[t] = mix(0x50c, static_cast<uint64_t>(rename[t]));
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const BruteOp& op = g.ops[k];
    std::vector<uint64_t> in;
    for (int i = 0; i < op.num_inputs; ++i) in.push_back(h[op.inputs[i]]);
    if (op_info(opset.operators[op.variant].op).commutative) std::sort(in.begin(), in.end());
    uint64_t v = mix(0x0b, static_cast<uint64_t>(op.variant));
    for (uint64_t x : in) v = mix(v, x);
    h[s + 2 * k] = mix(v, 0);
    h[s + 2 * k + 1] = mix(v, 1);
  }
  return h;
}

uint64_t brute_structure(const BruteGraph& g, const Opset& opset, const std::vector<int>& rename) {
  std::vector<uint64_t> h = brute_tensor_structures(g, opset, rename), outputs;
  for (int t : brute_outputs(g, opset)) outputs.push_back(h[t]);
  return multiset_hash(outputs, 3);
}

std::string brute_str(const BruteGraph& g, const Opset& opset) {
  int s = num_sources(opset);
  std::string out;
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const BruteOp& op = g.ops[k];
    const OpsetOperator& v = opset.operators[op.variant];
    out += (k ? "; " : "") + std::string(op_name(v.op));
    std::string params = params_str(v.op, v.params);
    if (!params.empty()) out += "[" + params + "]";
    out += "(";
    for (int i = 0; i < op.num_inputs; ++i) {
      int t = op.inputs[i];
      if (i) out += ", ";
      if (t < s) {
        out += opset.sources[t].name;
        continue;
      }
      out.append("#").append(std::to_string((t - s) / 2));
      if ((t - s) % 2) out.append(":1");
    }
    out += ")";
  }
  return out;
}

Graph brute_to_graph(const BruteGraph& g, const Opset& opset) {
  int s = num_sources(opset);
  Graph out;
  std::vector<TensorRef> tensor(s + 2 * g.ops.size(), TensorRef{-1, 0});
  auto ref = [&](int t) {
    if (t < s && tensor[t].node < 0) {
      const auto& src = opset.sources[t];
      NodeId n = src.kind == OpType::input ? out.add_input(src.name, src.shape)
                                           : out.add_weight(src.name, src.shape);
      tensor[t] = {n, 0};
    }
    return tensor[t];
  };
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const BruteOp& op = g.ops[k];
    std::vector<TensorRef> in;
    for (int i = 0; i < op.num_inputs; ++i) in.push_back(ref(op.inputs[i]));
    const OpsetOperator& v = opset.operators[op.variant];
    NodeId n = out.add(v.op, in, v.params);
    tensor[s + 2 * k] = {n, 0};
    tensor[s + 2 * k + 1] = {n, 1};
  }
  for (int t : brute_outputs(g, opset)) out.add_output(tensor[t]);
  return out;
}

BruteGraph brute_from_graph(const Graph& g, const Opset& opset) {
  int s = num_sources(opset);
  std::vector<int> op_index(g.num_nodes(), -1), source_id(g.num_nodes(), -1);
  BruteGraph out;
  for (NodeId n = 0; n < g.num_nodes(); ++n) {
    const Node& node = g.node(n);
    if (node.op == OpType::input || node.op == OpType::weight) {
      for (int t = 0; t < s; ++t)
        if (opset.sources[t].name == node.name.str()) source_id[n] = t;
      if (source_id[n] < 0) throw Error("source " + std::string(node.name.str()) + " is not in the opset");
      continue;
    }
    BruteOp op;
    op.variant = -1;
    for (size_t v = 0; v < opset.operators.size(); ++v)
      if (opset.operators[v].op == node.op && params_equal(node.op, opset.operators[v].params, node.params))
        op.variant = static_cast<int>(v);
    if (op.variant < 0) throw Error(std::string(op_name(node.op)) + " is not an operator of the opset");
    op.num_inputs = node.num_inputs;
    for (int i = 0; i < node.num_inputs; ++i) {
      TensorRef r = node.inputs()[i];
      op.inputs[i] = source_id[r.node] >= 0 ? source_id[r.node] : s + 2 * op_index[r.node] + r.port;
    }
    op_index[n] = static_cast<int>(out.ops.size());
    out.ops.push_back(op);
  }
  return out;
}

}  // namespace superopt::test
