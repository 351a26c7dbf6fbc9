// Symbolic small-tensor comparison of two graphs (see symbolic_compare.h).
#include "verify/symbolic_compare.h"

#include "runtime/core/arith_z3.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/hashing.h"

namespace superopt::verify {
namespace {

constexpr uint64_t kSymbolSeed = 0x5eed;

// Inputs symbolic; weights symbolic too, or exact random integers in [-99, 99].
SourceValues<SymbolicArith> sources_for(const SymbolicArith& ar, SymbolicWeights weights) {
  auto symbolic = random_sources(ar, kSymbolSeed);
  if (weights == SymbolicWeights::symbolic) return symbolic;
  return [ar, symbolic](const Graph& g, NodeId id) {
    const Node& n = g.node(id);
    if (n.op != OpType::weight) return symbolic(g, id);
    std::mt19937_64 rng(hash_string(n.name.str(), kSymbolSeed));
    std::vector<z3::expr> values;
    for (int64_t i = 0; i < n.output(0).shape.num_elements(); ++i)
      values.push_back(ar.from_int(static_cast<int64_t>(rng() % 199) - 99));
    return Tensor<z3::expr>(n.output(0).shape, std::move(values));
  };
}

// a - b element by element, simplified in one call: the elements share most of
// their subterms, and one call simplifies each shared subterm once (its cache
// lives for one call), where a call per element took seconds. Polynomials,
// arguments of uninterpreted functions too, become sums of monomials, a
// canonical form: cheap for low degrees (convolution linearity checks went from
// 5 s to 0.15 s), explosive for products of several symbolic tensors, which
// callers avoid (rule_validation.cc).
std::vector<z3::expr> simplified_differences(z3::context& ctx, const Tensor<z3::expr>& a,
                                             const Tensor<z3::expr>& b) {
  z3::sort_vector domain(ctx);
  z3::expr_vector differences(ctx);
  for (int64_t i = 0; i < a.size(); ++i) {
    domain.push_back(ctx.real_sort());
    differences.push_back(a[i] - b[i]);
  }
  if (differences.empty()) return {};
  z3::func_decl pack = ctx.function("pack", domain, ctx.bool_sort());
  z3::params p(ctx);
  p.set("som", true);
  z3::expr packed = pack(differences).simplify(p);
  std::vector<z3::expr> out;
  for (unsigned i = 0; i < packed.num_args(); ++i) out.push_back(packed.arg(i));
  return out;
}

}  // namespace

SymbolicComparison compare_symbolically(z3::context& ctx, const Graph& a, const Graph& b, unsigned timeout_ms,
                                        SymbolicWeights weights) {
  SymbolicArith ar(ctx);
  auto sources = sources_for(ar, weights);
  std::vector<Tensor<z3::expr>> out_a = evaluate(a, ar, sources);
  std::vector<Tensor<z3::expr>> out_b = evaluate(b, ar, sources);
  auto is_zero = [](const z3::expr& e) { return e.is_numeral() && e.get_decimal_string(0) == "0"; };
  SymbolicComparison result;
  if (out_a.size() != out_b.size()) {
    result.result = Comparison::differ;
    result.detail = std::to_string(out_a.size()) + " outputs against " + std::to_string(out_b.size());
    return result;
  }
  // Elements the simplifier could not show equal: (output, element, difference).
  z3::expr_vector open_differences(ctx);
  std::vector<std::pair<int, int64_t>> open_positions;
  for (size_t k = 0; k < out_a.size(); ++k) {
    if (out_a[k].shape != out_b[k].shape) {
      result = {Comparison::differ, static_cast<int>(k), -1,
                "output " + std::to_string(k) + " has shape " + out_a[k].shape.str() + " against " +
                    out_b[k].shape.str()};
      return result;
    }
    std::vector<z3::expr> differences = simplified_differences(ctx, out_a[k], out_b[k]);
    for (int64_t i = 0; i < out_a[k].size(); ++i) {
      const z3::expr& d = differences[static_cast<size_t>(i)];
      if (is_zero(d)) continue;
      open_differences.push_back(d != 0);
      open_positions.emplace_back(static_cast<int>(k), i);
    }
  }
  if (open_positions.empty()) {
    result.result = Comparison::equal;
    return result;
  }
  if (weights == SymbolicWeights::symbolic && timeout_ms == 0) {
    result.detail = "the simplifier leaves " + std::to_string(open_positions.size()) + " elements open";
    return result;
  }
  z3::solver solver(ctx);
  z3::params p(ctx);
  p.set("timeout", timeout_ms);
  p.set("ctrl_c", false);  // Ctrl-C ends the command, not this check (prover.cc)
  solver.set(p);
  solver.add(z3::mk_or(open_differences));
  z3::check_result r = solver.check();
  if (r == z3::unsat) {
    result.result = Comparison::equal;
  } else if (r == z3::sat) {
    z3::model m = solver.get_model();
    for (size_t j = 0; j < open_positions.size(); ++j) {
      if (!m.eval(open_differences[static_cast<int>(j)], true).is_true()) continue;
      result = {Comparison::differ, open_positions[j].first, open_positions[j].second,
                "output " + std::to_string(open_positions[j].first) + " element " +
                    std::to_string(open_positions[j].second) + " differs for some real values"};
      break;
    }
    if (result.result != Comparison::differ)
      result = {Comparison::differ, open_positions[0].first, open_positions[0].second,
                "outputs differ for some real values"};
  } else {
    result.detail = "Z3: " + solver.reason_unknown();
  }
  return result;
}

std::string source_shapes(const Graph& g) {
  std::string s;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (n.op != OpType::input && n.op != OpType::weight) continue;
    s += (s.empty() ? "" : " ") + n.name.str() + "=" +
         (n.output(0).shape.rank() ? n.output(0).shape.str() : "scalar");
  }
  return s;
}

}  // namespace superopt::verify
