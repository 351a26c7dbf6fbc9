// Confirming fingerprint classes and mapping outputs between their members.
#include "enum/candidates.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "enum/generator.h"
#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/hashing.h"

namespace superopt::enumeration {
namespace {

constexpr double kFloatTolerance = 1e-5;  // TASO's threshold, relative to the magnitude

// One member evaluated twice: exactly on fresh inputs, and in double.
struct Evaluated {
  const GraphCode* code;
  std::vector<int> outputs;  // tensor ids, in code_outputs order
  std::vector<uint64_t> hashes;
  std::vector<Tensor<double>> reals;
};

bool close(const Tensor<double>& a, const Tensor<double>& b) {
  if (!(a.shape == b.shape)) return false;
  for (size_t i = 0; i < a.data.size(); ++i) {
    double scale = std::max({1.0, std::abs(a.data[i]), std::abs(b.data[i])});
    if (!(std::abs(a.data[i] - b.data[i]) <= kFloatTolerance * scale)) return false;
  }
  return true;
}

}  // namespace

bool code_less(const GraphCode& a, const GraphCode& b) {
  if (a.ops.size() != b.ops.size()) return a.ops.size() < b.ops.size();
  std::string x, y;
  a.append_bytes(x);
  b.append_bytes(y);
  return x < y;
}

// Seeds unrelated to the fingerprint's, so the second test is independent.
CandidatePairing::CandidatePairing(const Opset& opset, uint64_t seed)
    : opset_(opset),
      exact_inputs_(source_values(opset, ModArith(), hash_combine(seed, 0x5ec0d))),
      real_inputs_(source_values(opset, RealArith<double>(/*relu_as_polynomial=*/true),
                                 hash_combine(seed, 0xf10a7))) {}

namespace {

// Looks a source up by its name in the opset's order.
template <class T>
const Tensor<T>& source_value(const Opset& opset, const std::vector<Tensor<T>>& values, const Graph& g,
                              NodeId n) {
  const std::string& name = g.node(n).name.str();
  for (size_t s = 0; s < opset.sources.size(); ++s)
    if (opset.sources[s].name == name) return values[s];
  throw Error("source " + name + " is not in the operator set");
}

}  // namespace

void CandidatePairing::pair(uint64_t fingerprint, const std::vector<GraphCode>& members,
                            std::vector<CandidateRule>& out) {
  if (members.size() < 2) return;
  ++counts_.classes;
  ModArith mod;
  RealArith<double> real(/*relu_as_polynomial=*/true);
  SourceValues<ModArith> exact_inputs = [&](const Graph& g, NodeId n) {
    return source_value(opset_, exact_inputs_, g, n);
  };
  SourceValues<RealArith<double>> real_inputs = [&](const Graph& g, NodeId n) {
    return source_value(opset_, real_inputs_, g, n);
  };

  std::vector<Evaluated> evaluated;
  for (const GraphCode& code : members) {
    Evaluated e{&code, code_outputs(code, opset_), {}, {}};
    Graph g = code_to_graph(code, opset_);
    for (const Tensor<uint64_t>& t : evaluate(g, mod, exact_inputs))
      e.hashes.push_back(tensor_hash(t.shape, t.data));
    e.reals = evaluate(g, real, real_inputs);
    evaluated.push_back(std::move(e));
  }
  // Members agreeing on the second evaluation, in canonical order.
  std::map<uint64_t, std::vector<const Evaluated*>> groups;
  for (const Evaluated& e : evaluated) groups[combine_output_hashes(e.hashes)].push_back(&e);
  counts_.split_by_second_eval += static_cast<int64_t>(groups.size()) - 1;
  for (auto& [key, group] : groups) {
    const Evaluated& target = *group.front();
    for (size_t m = 1; m < group.size(); ++m) {
      const Evaluated& source = *group[m];
      CandidateRule rule{fingerprint, *source.code, *target.code, {}, target.outputs};
      std::vector<char> taken(source.outputs.size(), 0);
      bool ok = source.outputs.size() == target.outputs.size();
      for (size_t k = 0; ok && k < target.outputs.size(); ++k) {
        size_t match = 0;
        while (match < source.outputs.size() && (taken[match] || source.hashes[match] != target.hashes[k] ||
                                                 !close(source.reals[match], target.reals[k])))
          ++match;
        ok = match < source.outputs.size();
        if (ok) {
          taken[match] = 1;
          rule.source_outputs.push_back(source.outputs[match]);
        }
      }
      if (!ok) {
        ++counts_.failed_float_test;
        continue;
      }
      ++counts_.candidates;
      out.push_back(std::move(rule));
    }
  }
}

bool CandidatePairing::same_tensor(const GraphCode& a, int ta, const GraphCode& b, int tb) const {
  ModArith mod;
  SourceValues<ModArith> exact_inputs = [&](const Graph& g, NodeId n) {
    return source_value(opset_, exact_inputs_, g, n);
  };
  auto value = [&](const GraphCode& code, int tensor) {
    std::vector<int> outputs{tensor};
    return evaluate(code_to_graph(code, opset_, &outputs), mod, exact_inputs).front();
  };
  Tensor<uint64_t> x = value(a, ta), y = value(b, tb);
  return x.shape == y.shape && x.data == y.data;
}

}  // namespace superopt::enumeration
