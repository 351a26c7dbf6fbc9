// Joining brute-force classes with database rules under renaming, and with
// pairs a smaller rule implies; reporting what stays apart.
#include "tests/rule_coverage.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

#include <xxhash.h>

namespace superopt::test {

using enumeration::Opset;

namespace {

struct Pieces {
  std::vector<int> parent;
  explicit Pieces(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

// Calls f with every renaming that maps the sources `g` and `h` read one to
// one onto sources of the same interchange class (the others stay).
void for_each_renaming(const BruteGraph& g, const BruteGraph& h, const Opset& opset,
                       const std::function<void(const std::vector<int>&)>& f) {
  int s = static_cast<int>(opset.sources.size());
  std::vector<int> used;
  for (const BruteGraph* x : {&g, &h})
    for (const BruteOp& op : x->ops)
      for (int i = 0; i < op.num_inputs; ++i)
        if (op.inputs[i] < s && std::find(used.begin(), used.end(), op.inputs[i]) == used.end())
          used.push_back(op.inputs[i]);
  std::vector<int> rename = identity_naming(opset);
  std::vector<char> taken(s, 0);
  std::function<void(size_t)> assign = [&](size_t i) {
    if (i == used.size()) return f(rename);
    for (int u = 0; u < s; ++u) {
      if (taken[u] || opset.sources[u].interchange_class != opset.sources[used[i]].interchange_class)
        continue;
      taken[u] = 1;
      rename[used[i]] = u;
      assign(i + 1);
      taken[u] = 0;
    }
    rename[used[i]] = used[i];
  };
  assign(0);
}

bool commutative(const Opset& opset, const BruteOp& op) {
  return op.num_inputs == 2 && op_info(opset.operators[op.variant].op).commutative;
}

// Both graphs apply one operator to the same sources.
bool same_op_on_sources(const BruteGraph& a, const BruteGraph& b, const Opset& opset) {
  int s = static_cast<int>(opset.sources.size());
  auto key = [&](const BruteOp& op) {
    std::array<int, 2> in = op.inputs;
    if (commutative(opset, op) && in[1] < in[0]) std::swap(in[0], in[1]);
    return std::array<int, 4>{op.variant, op.num_inputs, op.num_inputs > 0 ? in[0] : -1,
                              op.num_inputs > 1 ? in[1] : -1};
  };
  for (const BruteOp& x : a.ops) {
    bool on_sources =
        std::all_of(x.inputs.begin(), x.inputs.begin() + x.num_inputs, [&](int t) { return t < s; });
    if (!on_sources) continue;
    for (const BruteOp& y : b.ops)
      if (key(x) == key(y)) return true;
  }
  return false;
}

// Every output of both comes from one operator (same variant, same port)
// whose inputs agree structurally but in at most one place, where they hold
// equal values: a smaller rule, substituted into that operator.
bool common_top(const BruteForce& bf, int ga, int gb, const Opset& opset) {
  int s = static_cast<int>(opset.sources.size());
  const BruteGraph &a = bf.graphs[ga], &b = bf.graphs[gb];
  std::vector<int> naming = identity_naming(opset);
  std::vector<uint64_t> sa = brute_tensor_structures(a, opset, naming),
                        sb = brute_tensor_structures(b, opset, naming);
  const std::vector<uint64_t>&va = bf.value_hashes[ga], &vb = bf.value_hashes[gb];
  std::vector<int> oa = brute_outputs(a, opset), ob = brute_outputs(b, opset);
  if (oa.size() != ob.size()) return false;
  for (int ta : oa) {
    // Outputs pair up by value: no graph holds two equal tensors.
    auto it = std::find_if(ob.begin(), ob.end(), [&](int tb) { return vb[tb] == va[ta]; });
    if (it == ob.end()) return false;
    int tb = *it;
    if ((ta - s) % 2 != (tb - s) % 2) return false;
    const BruteOp &x = a.ops[(ta - s) / 2], &y = b.ops[(tb - s) / 2];
    if (x.variant != y.variant) return false;
    auto agrees = [&](const std::array<int, 2>& yin) {
      int differing = 0, where = 0;
      for (int i = 0; i < x.num_inputs; ++i)
        if (sa[x.inputs[i]] != sb[yin[i]]) ++differing, where = i;
      return differing == 0 || (differing == 1 && va[x.inputs[where]] == vb[yin[where]]);
    };
    std::array<int, 2> swapped{y.inputs[1], y.inputs[0]};
    if (!agrees(y.inputs) && !(commutative(opset, y) && agrees(swapped))) return false;
  }
  return true;
}

}  // namespace

Coverage check_coverage(const BruteForce& bf, const Opset& opset, const RuleDatabase& db) {
  Coverage c;
  std::vector<int> naming = identity_naming(opset);
  std::vector<int> class_of(bf.graphs.size(), -1);
  std::unordered_map<uint64_t, int> by_structure;
  for (size_t k = 0; k < bf.classes.size(); ++k)
    for (int g : bf.classes[k]) {
      class_of[g] = static_cast<int>(k);
      by_structure[brute_structure(bf.graphs[g], opset, naming)] = g;
    }
  c.classes = static_cast<int64_t>(bf.classes.size());
  for (const auto& members : bf.classes) c.graphs += static_cast<int64_t>(members.size());

  Pieces pieces(bf.graphs.size());
  for (const Rule& rule : db.rules) {
    BruteGraph a = brute_from_graph(rule.source, opset), b = brute_from_graph(rule.target, opset);
    for_each_renaming(a, b, opset, [&](const std::vector<int>& rename) {
      auto x = by_structure.find(brute_structure(a, opset, rename));
      auto y = by_structure.find(brute_structure(b, opset, rename));
      if (x == by_structure.end() || y == by_structure.end() || class_of[x->second] != class_of[y->second])
        return;
      ++c.rule_edges;
      pieces.join(x->second, y->second);
    });
  }
  for (const auto& members : bf.classes) {
    for (size_t i = 0; i < members.size(); ++i)
      for (size_t j = i + 1; j < members.size(); ++j) {
        int a = members[i], b = members[j];
        if (pieces.find(a) == pieces.find(b)) continue;
        if (same_op_on_sources(bf.graphs[a], bf.graphs[b], opset) || common_top(bf, a, b, opset))
          pieces.join(a, b);
      }
    for (int g : members)
      if (pieces.find(g) != pieces.find(members.front())) {
        c.missing.push_back(brute_str(bf.graphs[members.front()], opset) + "  =  " +
                            brute_str(bf.graphs[g], opset));
        break;
      }
  }
  return c;
}

std::vector<std::string> renamed_twice(const RuleDatabase& db, const Opset& opset) {
  std::unordered_map<uint64_t, size_t> first;
  std::vector<std::string> twice;
  for (size_t r = 0; r < db.rules.size(); ++r) {
    BruteGraph a = brute_from_graph(db.rules[r].source, opset),
               b = brute_from_graph(db.rules[r].target, opset);
    uint64_t key = ~uint64_t{0};
    for_each_renaming(a, b, opset, [&](const std::vector<int>& rename) {
      uint64_t x = brute_structure(a, opset, rename), y = brute_structure(b, opset, rename);
      std::array<uint64_t, 2> forward{x, y}, backward{y, x};
      key = std::min({key, XXH3_64bits(forward.data(), 16), XXH3_64bits(backward.data(), 16)});
    });
    if (!first.emplace(key, r).second) twice.push_back(brute_str(a, opset) + "  =  " + brute_str(b, opset));
  }
  return twice;
}

}  // namespace superopt::test
