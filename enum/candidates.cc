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

Evaluated evaluate_member(const GraphCode& code, const Opset& opset,
                          const std::vector<Tensor<uint64_t>>& exact_values,
                          const std::vector<Tensor<double>>& real_values) {
  ModArith mod;
  RealArith<double> real(/*relu_as_polynomial=*/true);
  SourceValues<ModArith> exact_inputs = [&](const Graph& g, NodeId n) {
    return source_value(opset, exact_values, g, n);
  };
  SourceValues<RealArith<double>> real_inputs = [&](const Graph& g, NodeId n) {
    return source_value(opset, real_values, g, n);
  };
  Evaluated e{&code, code_outputs(code, opset), {}, {}};
  Graph g = code_to_graph(code, opset);
  for (const Tensor<uint64_t>& t : evaluate(g, mod, exact_inputs))
    e.hashes.push_back(tensor_hash(t.shape, t.data));
  e.reals = evaluate(g, real, real_inputs);
  return e;
}

// The rule source -> target, each target output matched to a distinct source
// output with the same exact hash and close real values; false if one has none.
bool match_outputs(const Evaluated& source, const Evaluated& target, CandidateRule& rule) {
  rule.source = *source.code;
  rule.target = *target.code;
  rule.target_outputs = target.outputs;
  std::vector<char> taken(source.outputs.size(), 0);
  if (source.outputs.size() != target.outputs.size()) return false;
  for (size_t k = 0; k < target.outputs.size(); ++k) {
    size_t match = 0;
    while (match < source.outputs.size() && (taken[match] || source.hashes[match] != target.hashes[k] ||
                                             !close(source.reals[match], target.reals[k])))
      ++match;
    if (match == source.outputs.size()) return false;
    taken[match] = 1;
    rule.source_outputs.push_back(source.outputs[match]);
  }
  return true;
}

}  // namespace

// Streamed: the first member of each group agreeing on the second evaluation
// (its target) is kept evaluated and every later member is paired with it as
// it comes, so a class holds one member's values per group, not every
// member's (a large class held them all: the small opset's 796 MiB peak).
void CandidatePairing::pair(uint64_t fingerprint, const std::vector<GraphCode>& members,
                            const std::function<void(CandidateRule&)>& emit) {
  if (members.size() < 2) return;
  ++counts_.classes;
  std::map<uint64_t, Evaluated> targets;
  for (const GraphCode& code : members) {
    Evaluated e = evaluate_member(code, opset_, exact_inputs_, real_inputs_);
    auto [target, first] = targets.try_emplace(combine_output_hashes(e.hashes));
    if (first) {
      target->second = std::move(e);
      continue;
    }
    CandidateRule rule{fingerprint, {}, {}, {}, {}};
    if (!match_outputs(e, target->second, rule)) {
      ++counts_.failed_float_test;
      continue;
    }
    ++counts_.candidates;
    emit(rule);
  }
  counts_.split_by_second_eval += static_cast<int64_t>(targets.size()) - 1;
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
