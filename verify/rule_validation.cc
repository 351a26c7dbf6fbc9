// Small-tensor validation of rules (see rule_validation.h).
#include "verify/rule_validation.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "verify/symbolic_compare.h"

namespace superopt::verify {
namespace {

// The sizes the rule runs at, as maps from the rule's own sizes (the opset's):
// equal sizes stay equal (every relation the rule's shapes need is kept), each
// size changes, their order changes between the two, and both are smaller than
// the opset's 2x4x5x5 images so that the symbolic terms stay small. Kernel
// sizes 1 and 3 are kept, so that kernels keep fitting enlarge's target.
const std::map<int64_t, int64_t> kValidationSizes[] = {
    {{2, 2}, {4, 2}, {5, 4}, {6, 4}, {8, 4}},
    {{2, 1}, {4, 5}, {5, 2}, {6, 2}, {8, 6}},
};

// For rules that fit neither: channel counts kept, images shrunk. merge_groups'
// parameters tie a kernel to its group count, which the maps above change.
const std::map<int64_t, int64_t> kChannelKeepingSizes = {{5, 3}};

Shape mapped(const Shape& s, const std::map<int64_t, int64_t>& sizes) {
  Shape out;
  for (int i = 0; i < s.rank(); ++i) {
    auto it = sizes.find(s[i]);
    out.push_back(it == sizes.end() ? s[i] : it->second);
  }
  return out;
}

std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// A concrete witness in double with the real non-linear functions: the first
// element where the outputs differ beyond rounding, on seeded random values.
std::optional<std::string> concrete_difference(const Graph& a, const Graph& b) {
  RealArith<double> ar;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto out_a = evaluate(a, ar, random_sources(ar, seed));
    auto out_b = evaluate(b, ar, random_sources(ar, seed));
    for (size_t k = 0; k < out_a.size() && k < out_b.size(); ++k) {
      if (out_a[k].shape != out_b[k].shape) return "output " + std::to_string(k) + " shapes differ";
      double scale = 1;
      for (double v : out_a[k].data) scale = std::max(scale, std::abs(v));
      for (int64_t i = 0; i < out_a[k].size(); ++i)
        if (std::abs(out_a[k][i] - out_b[k][i]) > 1e-9 * scale)
          return "output " + std::to_string(k) + " element " + std::to_string(i) + ": source " +
                 format_value(out_a[k][i]) + ", target " + format_value(out_b[k][i]) + " (seed " +
                 std::to_string(seed) + ")";
    }
  }
  return std::nullopt;
}

// Operators that multiply two tensors: each raises the degree of the
// polynomials, and the simplifier's cost grows quickly with it.
int multiplications(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes())
    n += node.op == OpType::conv2d || node.op == OpType::matmul || node.op == OpType::ewmul ||
         node.op == OpType::smul;
  return n;
}

}  // namespace

Graph with_dimensions_mapped(const Graph& g, const std::map<int64_t, int64_t>& sizes) {
  return with_shapes(g, [&](const Node& n) { return mapped(n.params.shape, sizes); });
}

namespace {

// Both sides at one size map; nullopt when the rule's operators do not fit it.
std::optional<RuleValidation> validate_at(z3::context& ctx, const Rule& rule,
                                          const std::map<int64_t, int64_t>& sizes, unsigned timeout_ms) {
  Graph source, target;
  try {
    source = with_dimensions_mapped(rule.source, sizes);
    target = with_dimensions_mapped(rule.target, sizes);
  } catch (const Error&) {
    return std::nullopt;
  }
  // All-symbolic with the simplifier alone first, where products stay of low
  // degree; what it leaves open goes to the solver with weights as random
  // integers (see SymbolicWeights).
  SymbolicComparison c;
  if (multiplications(source) <= 1 && multiplications(target) <= 1)
    c = compare_symbolically(ctx, source, target, 0);
  if (c.result == Comparison::unknown)
    c = compare_symbolically(ctx, source, target, timeout_ms, SymbolicWeights::random_integers);
  if (c.result == Comparison::equal) return RuleValidation{Validation::passed, ""};
  // Uninterpreted functions may differ where the real ones agree (relu is
  // monotone, for one): only a concrete difference refutes.
  if (std::optional<std::string> witness = concrete_difference(source, target))
    return RuleValidation{Validation::refuted, "differs at " + source_shapes(source) + ": " + *witness};
  return RuleValidation{
      Validation::inconclusive,
      "small-tensor validation at " + source_shapes(source) + ": " +
          (c.result == Comparison::unknown ? c.detail : "equal only for the real non-linear functions")};
}

}  // namespace

RuleValidation validate_rule(z3::context& ctx, const Rule& rule, unsigned timeout_ms) {
  RuleValidation v{Validation::passed, ""};
  int variants_run = 0;
  for (const auto& sizes : kValidationSizes) {
    std::optional<RuleValidation> at = validate_at(ctx, rule, sizes, timeout_ms);
    if (!at) continue;
    ++variants_run;
    if (at->result == Validation::refuted) return *at;
    if (at->result == Validation::inconclusive) v = *at;
  }
  if (variants_run > 0) return v;
  if (std::optional<RuleValidation> at = validate_at(ctx, rule, kChannelKeepingSizes, timeout_ms)) return *at;
  return {Validation::inconclusive, "no small sizes fit the rule's operators"};
}

}  // namespace superopt::verify
