// Checks of rules over their shape family (see rule_validation.h).
#include "verify/rule_validation.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "verify/compensating_moves.h"
#include "verify/rule_family.h"
#include "verify/symbolic_compare.h"

namespace superopt::verify {
namespace {

// Members drawn per direction for the concrete check, and the seed of the draws:
// fixed, so that a rule gets the same verdict on every rank and every run.
constexpr int kDrawnMembers = 3;
// Members where tied classes change by amounts that cancel (compensating_moves.h).
constexpr int kCompensatingMembers = 6;
constexpr uint64_t kDrawSeed = 0x5eed;
// The symbolic check runs at one small member (sizes 1..3): symbolic terms grow
// with the product of the sizes.
constexpr int64_t kSmallSize = 3;

std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Operators that multiply two tensors: each raises the degree of the
// polynomials, and the simplifier's cost grows quickly with it.
int multiplications(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes())
    n += node.op == OpType::conv2d || node.op == OpType::matmul || node.op == OpType::linear ||
         node.op == OpType::ewmul || node.op == OpType::smul;
  return n;
}

RuleValidation refuted_at(const Graph& source, const std::string& where, const std::string& witness) {
  return {Validation::refuted, "differs at " + source_shapes(source) + where + ": " + witness};
}

// Both sides on small symbolic tensors: the simplifier alone first, where
// products stay of low degree; what it leaves open goes to the solver with
// weights as random integers (see SymbolicWeights).
RuleValidation symbolic_check(z3::context& ctx, const Graph& source, const Graph& target,
                              unsigned timeout_ms) {
  SymbolicComparison c;
  if (multiplications(source) <= 1 && multiplications(target) <= 1)
    c = compare_symbolically(ctx, source, target, 0);
  if (c.result == Comparison::unknown)
    c = compare_symbolically(ctx, source, target, timeout_ms, SymbolicWeights::random_integers);
  if (c.result == Comparison::equal) return {Validation::passed, ""};
  // Uninterpreted functions may differ where the real ones agree (relu is
  // monotone, for one): the concrete checks, which passed, are what refute.
  return {Validation::inconclusive,
          "small-tensor validation at " + source_shapes(source) + ": " +
              (c.result == Comparison::unknown ? c.detail : "equal only for the real non-linear functions")};
}

// The rule at its own shapes: the same outputs of the same shapes, in double.
std::optional<RuleValidation> check_own_shapes(const Rule& rule) {
  const auto& a = rule.source.outputs();
  const auto& b = rule.target.outputs();
  if (a.size() != b.size())
    return RuleValidation{Validation::refuted, std::to_string(a.size()) + " source outputs, " +
                                                   std::to_string(b.size()) + " target outputs"};
  for (size_t k = 0; k < a.size(); ++k)
    if (rule.source.shape(a[k]) != rule.target.shape(b[k]))
      return RuleValidation{Validation::refuted, "output " + std::to_string(k) +
                                                     " shapes differ: " + rule.source.shape(a[k]).str() +
                                                     " against " + rule.target.shape(b[k]).str()};
  if (std::optional<std::string> witness = concrete_difference(rule.source, rule.target))
    return refuted_at(rule.source, "", *witness);
  return std::nullopt;
}

}  // namespace

namespace {

// The sources of seed `seed`, times `factor`: drawn from the arithmetic's domain, a
// clamp (relu6 at 6, hardswish at -3 and 3, a clip) is rarely crossed, and a rule that
// takes a clamp for what it clamps would agree there.
SourceValues<RealArith<double>> scaled_sources(const RealArith<double>& ar, uint64_t seed, double factor) {
  SourceValues<RealArith<double>> drawn = random_sources(ar, seed);
  if (factor == 1) return drawn;
  return [drawn, factor](const Graph& g, NodeId id) {
    Tensor<double> t = drawn(g, id);
    for (double& v : t.data) v *= factor;
    return t;
  };
}

}  // namespace

std::optional<std::string> concrete_difference(const Graph& a, const Graph& b) {
  RealArith<double> ar;
  // Three seeds at the domain's scale, a fourth 16 times wider (past the clamps).
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const double factor = seed == 4 ? 16 : 1;
    auto out_a = evaluate(a, ar, scaled_sources(ar, seed, factor));
    auto out_b = evaluate(b, ar, scaled_sources(ar, seed, factor));
    if (out_a.size() != out_b.size()) return "the sides have different numbers of outputs";
    for (size_t k = 0; k < out_a.size(); ++k) {
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

namespace {

// Every concrete check: the rule's own shapes, then per direction the drawn
// members, the compensating ones and one small member (kept in *small for the
// symbolic check). The refutation, or nullopt when all agree; *remark says
// when the compensating moves were a sample.
std::optional<RuleValidation> concrete_checks(const Rule& rule, const std::vector<RuleFamily>& families,
                                              std::optional<RuleInstance>* small, std::string* remark) {
  if (std::optional<RuleValidation> own = check_own_shapes(rule)) return *own;
  for (const RuleFamily& family : families) {
    for (const RuleInstance& m : draw_instances(family, {.count = kDrawnMembers, .seed = kDrawSeed}))
      if (std::optional<std::string> witness = concrete_difference(m.source, m.target))
        return refuted_at(m.source, " (drawn from the rule's shape family)", *witness);
    CompensatingMembers moved = compensating_instances(family, kCompensatingMembers);
    for (const RuleInstance& m : moved.members)
      if (std::optional<std::string> witness = concrete_difference(m.source, m.target))
        return refuted_at(m.source, " (tied sizes moved by amounts that cancel)", *witness);
    if (moved.bounded && remark)
      *remark = "compensating moves bounded: " + std::to_string(moved.tried) + " of " +
                std::to_string(moved.moves) + " tried (a fixed-seed sample)";
    if (*small) continue;
    auto drawn =
        draw_instances(family, {.count = 1, .max_size = kSmallSize, .distinct = false, .seed = kDrawSeed});
    if (!drawn.empty()) {
      if (std::optional<std::string> witness = concrete_difference(drawn[0].source, drawn[0].target))
        return refuted_at(drawn[0].source, " (drawn from the rule's shape family)", *witness);
      *small = std::move(drawn[0]);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> family_difference(const Rule& rule) {
  try {
    return family_difference_in(rule, rule_families(rule));
  } catch (const Error&) {
    return std::nullopt;  // as below: a rule that cannot be instantiated refutes nothing
  }
}

std::optional<std::string> family_difference_in(const Rule& rule, const std::vector<RuleFamily>& families) {
  std::optional<RuleInstance> small;
  try {
    if (std::optional<RuleValidation> refuted = concrete_checks(rule, families, &small, nullptr))
      return refuted->note;
  } catch (const Error&) {
    // A member that cannot run refutes nothing (validation calls it inconclusive).
  }
  return std::nullopt;
}

RuleValidation validate_rule(z3::context& ctx, const Rule& rule, unsigned timeout_ms) {
  return validate_rule(ctx, rule, rule_families(rule), timeout_ms);
}

RuleValidation validate_rule(z3::context& ctx, const Rule& rule, const std::vector<RuleFamily>& families,
                             unsigned timeout_ms) {
  std::optional<RuleInstance> small;
  std::string remark;
  if (std::optional<RuleValidation> refuted = concrete_checks(rule, families, &small, &remark))
    return *refuted;
  if (!small)
    return {Validation::inconclusive, "no small member of the rule's shape family to run symbolically"};
  RuleValidation v = symbolic_check(ctx, small->source, small->target, timeout_ms);
  if (v.result == Validation::passed) v.note = remark;  // a verified rule's note says what was bounded
  return v;
}

}  // namespace superopt::verify
