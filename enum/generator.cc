// Canonical depth-first enumeration with incremental modular evaluation.
#include "enum/generator.h"

#include <xxhash.h>

#include <algorithm>
#include <unordered_map>

#include "enum/renaming.h"
#include "enum/renaming_orbit.h"
#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/hashing.h"
#include "runtime/core/kernels.h"

namespace superopt::enumeration {

uint64_t tensor_hash(const Shape& shape, std::span<const uint64_t> values) {
  uint64_t seed = static_cast<uint64_t>(shape.rank());
  for (int i = 0; i < shape.rank(); ++i) seed = hash_combine(seed, static_cast<uint64_t>(shape[i]));
  return XXH3_64bits_withSeed(values.data(), values.size_bytes(), seed);
}

uint64_t combine_output_hashes(std::vector<uint64_t> hashes) {
  std::sort(hashes.begin(), hashes.end());
  return XXH3_64bits_withSeed(hashes.data(), hashes.size() * sizeof(uint64_t), 0xf1e9);
}

namespace {

using Values = Tensor<uint64_t>;

uint64_t desc_hash(const TensorDesc& d) {
  uint64_t h = static_cast<uint64_t>(d.shape.rank());
  for (int i = 0; i < d.shape.rank(); ++i) {
    h = hash_combine(h, static_cast<uint64_t>(d.shape[i]));
    const SplitTree& t = d.split(i);
    for (int k = 0; k < t.count(); ++k) h = hash_combine(h, static_cast<uint64_t>(t.point(k)) + 1);
    h = hash_combine(h, 0);
  }
  return h;
}

// Whether a variant applies to inputs of given descriptors, and its outputs'.
struct Application {
  bool ok = false;
  std::array<int, kMaxOutputs> outputs{};
};

// As in TASO's generator, element-wise operators combine tensors of one shape
// (broadcasting only restates smul and matmul).
bool elementwise(OpType op) {
  return op == OpType::ewadd || op == OpType::ewmul;
}

// A convolution's kernel is computed from weights and constants only, and its
// data from at least one graph input: convolving weights, or by inputs, is
// not what models do. TASO's generator excludes only raw weights as data; the
// rules that difference adds at 3 operators are all weight-only work, which
// the optimizer folds (measured in data/opsets/README.md), so it stays.
bool role_fits(OpType op, int slot, bool from_weights) {
  if (op == OpType::merge_groups) return from_weights;  // a kernel transformation
  if (op != OpType::conv2d) return true;
  return slot >= 1 ? from_weights : !from_weights;  // kernel and bias from weights
}

}  // namespace

struct Generator::State {
  const Opset& opset;
  const int max_ops;
  const int num_sources;
  const bool order_inputs;
  GeneratorCounts& counts;
  ModArith ar;
  ExtendFilter extend_filter;  // empty: every graph is extended

  std::vector<int> source_class, source_index;  // index within its class
  std::vector<int> used;                        // per class: sources used so far

  // Per tensor id: values, descriptor id, content hash, readers; op outputs
  // are valid while their operator is in `code`.
  std::vector<Values> values;
  std::vector<int> desc_of;
  std::vector<uint64_t> hash_of;
  std::vector<int> readers;
  std::vector<char> from_weights;  // computed from weights and constants only

  std::vector<TensorDesc> descs;
  std::unordered_map<uint64_t, std::vector<int>> descs_by_hash;
  std::vector<std::vector<int>> tensors_by_desc;  // present tensors
  std::unordered_map<uint64_t, Application> applications;

  GraphCode code;
  std::unique_ptr<RenamingOrbit> orbit;
  std::vector<GraphCode> aligned;  // the visited graph's aligned codes, buffers reused
  std::vector<int> outputs;
  std::vector<uint64_t> output_hashes, renamed_fingerprints, structures;
  struct Undo {
    std::array<int, kMaxCodeInputs> bumped_classes{-1, -1, -1};
  };
  std::vector<Undo> undo;

  State(const Opset& o, int max, uint64_t seed, bool order, GeneratorCounts& c)
      : opset(o),
        max_ops(max),
        num_sources(static_cast<int>(o.sources.size())),
        order_inputs(order),
        counts(c) {
    if (max_ops < 1 || max_ops > kMaxCodeOps)
      throw Error("--max-ops must be between 1 and " + std::to_string(kMaxCodeOps));
    if (num_sources + 2 * max_ops > 256) throw Error("operator set has too many sources");
    if (opset.operators.size() > 255) throw Error("operator set has too many operator variants");
    int total = num_sources + 2 * max_ops;
    values.assign(total, Values(Shape{}, 0));
    desc_of.assign(total, -1);
    hash_of.assign(total, 0);
    readers.assign(total, 0);
    from_weights.assign(total, 0);
    load_sources(seed);
    orbit = std::make_unique<RenamingOrbit>(opset, source_values(opset, ar, seed), max_ops, values, hash_of);
  }

  void load_sources(uint64_t seed) {
    std::vector<Values> random = source_values(opset, ar, seed);
    std::vector<int> class_size;
    for (int s = 0; s < num_sources; ++s) {
      const OpsetSource& src = opset.sources[s];
      values[s] = std::move(random[s]);
      from_weights[s] = src.kind == OpType::weight;
      if (src.interchange_class >= static_cast<int>(class_size.size()))
        class_size.resize(src.interchange_class + 1);
      source_class.push_back(src.interchange_class);
      source_index.push_back(class_size[src.interchange_class]++);
      desc_of[s] = intern(TensorDesc{src.shape, {}});
      hash_of[s] = tensor_hash(values[s].shape, values[s].data);
      tensors_by_desc[desc_of[s]].push_back(s);
    }
    used.assign(class_size.size(), 0);
  }

  int intern(const TensorDesc& d) {
    std::vector<int>& ids = descs_by_hash[desc_hash(d)];
    for (int id : ids)
      if (descs[id] == d) return id;
    descs.push_back(d);
    tensors_by_desc.emplace_back();
    ids.push_back(static_cast<int>(descs.size() - 1));
    return ids.back();
  }

  // Descriptors d (-1: no input) of the variant's input slots.
  const Application& apply(int variant, int d0, int d1, int d2 = -1) {
    if (descs.size() >= 0xffff) throw Error("enumerate: more than 65534 tensor shapes");
    const uint64_t key =
        (uint64_t(variant) << 48) | (uint64_t(d0 + 1) << 32) | (uint64_t(d1 + 1) << 16) | uint64_t(d2 + 1);
    auto it = applications.find(key);
    if (it != applications.end()) return it->second;
    const OpsetOperator& v = opset.operators[variant];
    int n = d0 < 0 ? 0 : d1 < 0 ? 1 : d2 < 0 ? 2 : 3;
    std::array<const TensorDesc*, 3> in{d0 >= 0 ? &descs[d0] : nullptr, d1 >= 0 ? &descs[d1] : nullptr,
                                        d2 >= 0 ? &descs[d2] : nullptr};
    std::array<TensorDesc, kMaxOutputs> out{};
    Application a;
    try {
      infer_outputs(v.op, v.params, std::span(in.data(), n),
                    std::span(out.data(), op_info(v.op).num_outputs));
      a.ok = true;
    } catch (const Error&) {
      a.ok = false;
    }
    for (int p = 0; a.ok && p < op_info(v.op).num_outputs; ++p) a.outputs[p] = intern(out[p]);
    return applications.emplace(key, a).first->second;
  }

  // The total order of operator trees that defines canonical sequences.
  int compare_tensor(int t, int u) const {
    if (t == u) return 0;
    bool ts = t < num_sources, us = u < num_sources;
    if (ts || us) return ts && us ? (t < u ? -1 : 1) : (ts ? -1 : 1);
    int k = (t - num_sources) / 2, l = (u - num_sources) / 2;
    if (k != l)
      if (int c = compare_op(code.ops[k], code.ops[l])) return c;
    return (t - num_sources) % 2 < (u - num_sources) % 2 ? -1 : 1;
  }
  int compare_op(const CodeOp& a, const CodeOp& b) const {
    if (a.variant != b.variant) return a.variant < b.variant ? -1 : 1;
    for (int i = 0; i < a.num_inputs; ++i)
      if (int c = compare_tensor(a.inputs[i], b.inputs[i])) return c;
    return 0;
  }

  int op_of(int tensor) const { return tensor < num_sources ? -1 : (tensor - num_sources) / 2; }

  // Checks every rule of canonical generation for appending `op`.
  bool acceptable(const CodeOp& op) {
    const OpsetOperator& v = opset.operators[op.variant];
    if (op.num_inputs == 2 && op_info(v.op).commutative && compare_tensor(op.inputs[0], op.inputs[1]) > 0)
      return false;  // the other input order is generated instead
    for (int i = 0; i < op.num_inputs; ++i) {
      int t = op.inputs[i];
      if (t >= num_sources) continue;
      int c = source_class[t];
      // The next unused source of a class may be taken; the first input may just have taken it.
      bool first_took_next = i == 1 && op.inputs[0] < num_sources && source_class[op.inputs[0]] == c &&
                             source_index[op.inputs[0]] == used[c];
      if (order_inputs && source_index[t] > used[c] + (first_took_next ? 1 : 0)) {
        ++counts.renamed_inputs;
        return false;
      }
    }
    int after = 0;  // operators before `after` are needed first
    for (int i = 0; i < op.num_inputs; ++i) after = std::max(after, op_of(op.inputs[i]) + 1);
    for (int k = after; k < static_cast<int>(code.ops.size()); ++k) {
      int c = compare_op(code.ops[k], op);
      if (c == 0) {
        ++counts.duplicate_computation;
        return false;
      }
      if (c > 0) {
        ++counts.not_canonical;
        return false;
      }
    }
    return true;
  }

  // A tensor equal to one already present: the graph is a longer way of writing a smaller one.
  bool duplicates_a_tensor(const Values& v, uint64_t h, int upto) const {
    for (int t = 0; t < upto; ++t)
      if (desc_of[t] >= 0 && hash_of[t] == h && values[t].shape == v.shape && values[t].data == v.data)
        return true;
    return false;
  }

  // Appends `op` and computes its outputs; refuses (returning false, nothing
  // changed) when an output repeats a tensor already present.
  bool push(const CodeOp& op, const Application& a) {
    const OpsetOperator& v = opset.operators[op.variant];
    int k = static_cast<int>(code.ops.size());
    std::array<const Values*, kMaxCodeInputs> in{};
    for (int i = 0; i < op.num_inputs; ++i) in[i] = &values[op.inputs[i]];
    int ports = op_info(v.op).num_outputs;
    std::array<TensorDesc, kMaxOutputs> out_descs;
    for (int p = 0; p < ports; ++p) out_descs[p] = descs[a.outputs[p]];
    std::vector<Values> out =
        run_op(ar, v.op, v.params, std::span<const Values* const>(in.data(), op.num_inputs),
               std::span<const TensorDesc>(out_descs.data(), ports));
    std::array<uint64_t, kMaxOutputs> hashes{};
    int first_output = op_output_id(num_sources, k, 0);
    for (int p = 0; p < ports; ++p) {
      hashes[p] = tensor_hash(out[p].shape, out[p].data);
      bool repeats_sibling =
          p == 1 && hashes[1] == hashes[0] && out[1].data == out[0].data && out[1].shape == out[0].shape;
      if (repeats_sibling || duplicates_a_tensor(out[p], hashes[p], first_output)) {
        ++counts.duplicate_values;
        return false;
      }
    }
    Undo u;
    for (int i = 0; i < op.num_inputs; ++i) {
      int t = op.inputs[i];
      ++readers[t];
      if (t < num_sources && source_index[t] == used[source_class[t]]) {
        ++used[source_class[t]];
        u.bumped_classes[i] = source_class[t];
      }
    }
    bool weights_only = std::all_of(op.inputs.begin(), op.inputs.begin() + op.num_inputs,
                                    [&](int t) { return from_weights[t] != 0; });
    for (int p = 0; p < ports; ++p) {
      int t = op_output_id(num_sources, k, p);
      from_weights[t] = weights_only;
      hash_of[t] = hashes[p];
      values[t] = std::move(out[p]);
      desc_of[t] = a.outputs[p];
      readers[t] = 0;
      tensors_by_desc[a.outputs[p]].push_back(t);
    }
    code.ops.push_back(op);
    undo.push_back(u);
    orbit->push(code, std::span<const TensorDesc>(out_descs.data(), ports), used);
    return true;
  }

  void pop() {
    const CodeOp op = code.ops.back();
    int k = static_cast<int>(code.ops.size()) - 1;
    int ports = op_info(opset.operators[op.variant].op).num_outputs;
    for (int p = ports - 1; p >= 0; --p) {
      int t = op_output_id(num_sources, k, p);
      tensors_by_desc[desc_of[t]].pop_back();
      desc_of[t] = -1;
    }
    orbit->pop(k);
    const Undo& u = undo.back();
    for (int i = op.num_inputs - 1; i >= 0; --i) {
      --readers[op.inputs[i]];
      if (u.bumped_classes[i] >= 0) --used[u.bumped_classes[i]];
    }
    code.ops.pop_back();
    undo.pop_back();
  }

  // The graph's outputs: tensors no operator reads.
  void find_outputs() {
    outputs.clear();
    for (size_t k = 0; k < code.ops.size(); ++k) {
      int ports = op_info(opset.operators[code.ops[k].variant].op).num_outputs;
      for (int p = 0; p < ports; ++p) {
        int t = op_output_id(num_sources, static_cast<int>(k), p);
        if (readers[t] == 0) outputs.push_back(t);
      }
    }
  }

  // Fingerprint under renaming p (0: the graph's own naming).
  uint64_t fingerprint(int p) {
    output_hashes.clear();
    for (int t : outputs) output_hashes.push_back(orbit->hash(p, t));
    return combine_output_hashes(output_hashes);
  }

  // The graph's structure under renaming p (as structure_hash of the renamed code).
  uint64_t structure(int p) {
    output_hashes.clear();
    for (int t : outputs) output_hashes.push_back(orbit->structure(p, t));
    std::sort(output_hashes.begin(), output_hashes.end());
    return hash_bytes(output_hashes.data(), output_hashes.size() * sizeof(uint64_t), 0x57c7);
  }

  // Visits the current graph with its class key and aligned codes: the
  // renamings with the smallest fingerprint, one per distinct graph.
  // Returns whether the graph may be extended (Generator::set_extend_filter).
  bool visit_current(const GraphVisitor& visit) {
    ++counts.graphs;
    find_outputs();
    int n = orbit->size();
    counts.renamings += n;
    renamed_fingerprints.resize(n);
    for (int p = 0; p < n; ++p) renamed_fingerprints[p] = fingerprint(p);
    uint64_t key = *std::min_element(renamed_fingerprints.begin(), renamed_fingerprints.end());
    size_t count = 0;
    structures.clear();
    for (int p = 0; p < n; ++p) {
      if (renamed_fingerprints[p] != key) continue;
      // Renamings that are symmetries of the graph itself give it again.
      uint64_t s = n == 1 ? 0 : structure(p);
      if (std::find(structures.begin(), structures.end(), s) != structures.end()) continue;
      structures.push_back(s);
      if (aligned.size() <= count) aligned.emplace_back();
      rename_sources_into(code, num_sources, orbit->renaming(p), aligned[count++]);
    }
    counts.aligned += count;
    GeneratedGraph graph{renamed_fingerprints[0], code, key,
                         std::span<const GraphCode>(aligned.data(), count)};
    visit(graph);
    return !extend_filter || extend_filter(graph);
  }

  // Present tensors grouped by descriptor, for the variant's input slots.
  void for_each_candidate(int variant, const std::function<void(const CodeOp&, const Application&)>& f) {
    const OpsetOperator& v = opset.operators[variant];
    int arity = v.arity();
    int num_descs = static_cast<int>(descs.size());  // apply() may add descriptors; they have no tensors yet
    auto usable = [&](int t, int slot) {
      return (!v.sources_only || t < num_sources) && role_fits(v.op, slot, from_weights[t]);
    };
    auto rank_fits = [&](int d) { return !v.input_rank || descs[d].shape.rank() == v.input_rank; };
    CodeOp op;
    op.variant = static_cast<uint8_t>(variant);
    op.num_inputs = static_cast<uint8_t>(arity);
    if (arity == 0) {  // a constant
      const Application& a = apply(variant, -1, -1);
      if (a.ok) f(op, a);
      return;
    }
    for (int d0 = 0; d0 < num_descs; ++d0) {
      if (tensors_by_desc[d0].empty() || !rank_fits(d0)) continue;
      if (arity == 1) {
        const Application& a = apply(variant, d0, -1);
        if (!a.ok) continue;
        for (size_t i = 0; i < tensors_by_desc[d0].size(); ++i) {
          op.inputs[0] = static_cast<uint8_t>(tensors_by_desc[d0][i]);
          if (usable(op.inputs[0], 0)) f(op, a);
        }
        continue;
      }
      for (int d1 = 0; d1 < num_descs; ++d1) {
        if (tensors_by_desc[d1].empty() || !rank_fits(d1)) continue;
        if (elementwise(v.op) && !(descs[d0].shape == descs[d1].shape)) continue;
        if (arity == 3) {
          for_each_third(variant, d0, d1, usable, op, f);
          continue;
        }
        const Application& a = apply(variant, d0, d1);
        if (!a.ok) continue;
        // Index loops: the visitor pushes and pops, which may grow these vectors meanwhile.
        for (size_t i = 0; i < tensors_by_desc[d0].size(); ++i)
          for (size_t j = 0; j < tensors_by_desc[d1].size(); ++j) {
            op.inputs[0] = static_cast<uint8_t>(tensors_by_desc[d0][i]);
            op.inputs[1] = static_cast<uint8_t>(tensors_by_desc[d1][j]);
            if (usable(op.inputs[0], 0) && usable(op.inputs[1], 1)) f(op, a);
          }
      }
    }
  }

  // The third input of a three-input variant (a convolution's bias), given the
  // first two's descriptors.
  template <class Usable>
  void for_each_third(int variant, int d0, int d1, const Usable& usable, CodeOp& op,
                      const std::function<void(const CodeOp&, const Application&)>& f) {
    const int num_descs = static_cast<int>(descs.size());
    for (int d2 = 0; d2 < num_descs; ++d2) {
      if (tensors_by_desc[d2].empty()) continue;
      const Application& a = apply(variant, d0, d1, d2);
      if (!a.ok) continue;
      for (size_t i = 0; i < tensors_by_desc[d0].size(); ++i)
        for (size_t j = 0; j < tensors_by_desc[d1].size(); ++j)
          for (size_t k = 0; k < tensors_by_desc[d2].size(); ++k) {
            op.inputs[0] = static_cast<uint8_t>(tensors_by_desc[d0][i]);
            op.inputs[1] = static_cast<uint8_t>(tensors_by_desc[d1][j]);
            op.inputs[2] = static_cast<uint8_t>(tensors_by_desc[d2][k]);
            if (usable(op.inputs[0], 0) && usable(op.inputs[1], 1) && usable(op.inputs[2], 2)) f(op, a);
          }
    }
  }

  void search(int limit, const GraphVisitor& visit) {
    if (static_cast<int>(code.ops.size()) >= limit) {
      if (!code.ops.empty()) visit_current(visit);
      return;
    }
    if (!code.ops.empty() && !visit_current(visit)) return;
    for (int variant = 0; variant < static_cast<int>(opset.operators.size()); ++variant)
      for_each_candidate(variant, [&](const CodeOp& op, const Application& a) {
        if (!acceptable(op) || !push(op, a)) return;
        search(limit, visit);
        pop();
      });
  }

  void replay(const GraphCode& prefix) {
    for (const CodeOp& op : prefix.ops) {
      int d0 = op.num_inputs >= 1 ? desc_of[op.inputs[0]] : -1;
      int d1 = op.num_inputs >= 2 ? desc_of[op.inputs[1]] : -1;
      int d2 = op.num_inputs >= 3 ? desc_of[op.inputs[2]] : -1;
      const Application& a = apply(op.variant, d0, d1, d2);
      if (!a.ok || !acceptable(op) || !push(op, a))
        throw Error("work unit is not a canonical graph of this operator set");
    }
  }
};

Generator::Generator(const Opset& opset, int max_ops, uint64_t seed, bool order_inputs)
    : state_(std::make_unique<State>(opset, max_ops, seed, order_inputs, counts_)) {}

Generator::~Generator() = default;

void Generator::set_extend_filter(ExtendFilter filter) {
  state_->extend_filter = std::move(filter);
}

std::vector<GraphCode> Generator::prefixes(int depth) {
  std::vector<GraphCode> units;
  GeneratorCounts saved = counts_;
  state_->search(depth, [&](const GeneratedGraph& g) {
    if (static_cast<int>(g.code.ops.size()) == depth) units.push_back(g.code);
  });
  counts_ = saved;  // listing units is not enumerating
  return units;
}

void Generator::run_unit(const GraphCode& prefix, int depth, const GraphVisitor& visit) {
  if (prefix.ops.empty()) return state_->search(depth - 1, visit);
  state_->replay(prefix);
  state_->search(state_->max_ops, visit);
  for (size_t i = 0; i < prefix.ops.size(); ++i) state_->pop();
}

}  // namespace superopt::enumeration
