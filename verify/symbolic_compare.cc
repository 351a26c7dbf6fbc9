// Symbolic small-tensor comparison of two graphs (see symbolic_compare.h).
#include "verify/symbolic_compare.h"

#include "runtime/arith_z3.h"
#include "runtime/error.h"
#include "runtime/evaluator.h"

namespace superopt::verify {
namespace {

constexpr uint64_t kSymbolSeed = 0x5eed;

}  // namespace

SymbolicComparison compare_symbolically(z3::context& ctx, const Graph& a, const Graph& b,
                                        unsigned timeout_ms) {
  SymbolicArith ar(ctx);
  auto sources = random_sources(ar, kSymbolSeed);
  std::vector<Tensor<z3::expr>> out_a = evaluate(a, ar, sources);
  std::vector<Tensor<z3::expr>> out_b = evaluate(b, ar, sources);
  SymbolicComparison result;
  if (out_a.size() != out_b.size()) {
    result.result = Comparison::differ;
    result.detail = std::to_string(out_a.size()) + " outputs against " + std::to_string(out_b.size());
    return result;
  }
  // Elements the simplifier could not show equal: (output, element, difference).
  z3::expr_vector open_differences(ctx);
  std::vector<std::pair<int, int64_t>> open_positions;
  z3::params som(ctx);
  som.set("som", true);
  for (size_t k = 0; k < out_a.size(); ++k) {
    if (out_a[k].shape != out_b[k].shape) {
      result = {Comparison::differ, static_cast<int>(k), -1,
                "output " + std::to_string(k) + " has shape " + out_a[k].shape.str() + " against " +
                    out_b[k].shape.str()};
      return result;
    }
    for (int64_t i = 0; i < out_a[k].size(); ++i) {
      z3::expr d = (out_a[k][i] - out_b[k][i]).simplify(som);
      if (d.is_numeral() && d.get_decimal_string(0) == "0") continue;
      open_differences.push_back(d != 0);
      open_positions.emplace_back(static_cast<int>(k), i);
    }
  }
  if (open_positions.empty()) {
    result.result = Comparison::equal;
    return result;
  }
  z3::solver solver(ctx);
  z3::params p(ctx);
  p.set("timeout", timeout_ms);
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
