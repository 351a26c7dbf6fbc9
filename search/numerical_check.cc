// Reference evaluation of both graphs, the reduced-size variant, and the comparison.
#include "search/numerical_check.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"

namespace superopt::search {

int64_t graph_flops(const Graph& g) {
  int64_t flops = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    std::array<const TensorDesc*, kMaxInputs> in{};
    for (int i = 0; i < n.num_inputs; ++i) in[i] = &g.desc(n.input_array[i]);
    flops += op_cost(n.op, n.params, std::span(in.data(), size_t(n.num_inputs)),
                     std::span(n.output_array.data(), size_t(n.num_outputs())))
                 .flops;
  }
  return flops;
}

Graph with_input_shapes(const Graph& g, const std::vector<std::pair<std::string, Shape>>& shapes) {
  return with_shapes(g, [&](const Node& n) {
    if (n.op == OpType::input)
      for (const auto& [name, s] : shapes)
        if (name == n.name.str()) return s;
    return n.params.shape;
  });
}

namespace {

// Halves the spatial dims of every rank-4 input, or nullopt when none can shrink.
std::optional<std::vector<std::pair<std::string, Shape>>> halved_images(const Graph& g, int times) {
  std::vector<std::pair<std::string, Shape>> shapes;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (n.op != OpType::input || n.params.shape.rank() != 4) continue;
    Shape s = n.params.shape;
    int64_t h = s[2] >> times, w = s[3] >> times;
    if (h < 4 || w < 4) return std::nullopt;
    s.set(2, h);
    s.set(3, w);
    shapes.push_back({n.name.str(), s});
  }
  if (shapes.empty()) return std::nullopt;
  return shapes;
}

std::string shapes_note(const std::vector<std::pair<std::string, Shape>>& shapes) {
  std::string s;
  for (const auto& [name, shape] : shapes) s += (s.empty() ? "" : ", ") + name + " " + shape.str();
  return s;
}

bool all_finite(const std::vector<Tensor<double>>& tensors) {
  for (const Tensor<double>& t : tensors)
    for (double x : t.data)
      if (!std::isfinite(x)) return false;
  return true;
}

double compare(const std::vector<Tensor<double>>& a, const std::vector<Tensor<double>>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].shape != b[k].shape) return INFINITY;
    double scale = 0;
    for (double x : a[k].data) scale = std::max(scale, std::abs(x));
    scale = std::max(scale, 1e-30);
    for (int64_t i = 0; i < a[k].size(); ++i) {
      double err = std::abs(a[k][i] - b[k][i]) / scale;
      if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
    }
  }
  return worst;
}

}  // namespace

CheckGraphs check_graphs(const Graph& before, const Graph& after, int64_t flops_limit) {
  CheckGraphs c{before, after, "at full size", {}};
  for (int times = 1; graph_flops(c.before) > flops_limit; ++times) {
    auto shapes = halved_images(before, times);
    if (!shapes) break;
    try {
      Graph rb = with_input_shapes(before, *shapes), ra = with_input_shapes(after, *shapes);
      c.before = std::move(rb);
      c.after = std::move(ra);
      c.note = "at reduced spatial size: " + shapes_note(*shapes);
      c.shapes = std::move(*shapes);
    } catch (const Error&) {
      break;  // some operator needs the full size: keep the last size that fit
    }
  }
  return c;
}

void check_memory_for_check(const Graph& g, int64_t flops_limit) {
  check_evaluation_memory(check_graphs(g, g, flops_limit).before, sizeof(double));
}

namespace {

// Thrown from the evaluator when the check's deadline has passed.
struct PastDeadline {
  int64_t operators_done = 0;
};

// g's outputs on the check's values, or nullopt (and the check cut short, its
// note saying how far it got) once the deadline has passed.
std::optional<std::vector<Tensor<double>>> evaluate_until(const Graph& g, uint64_t seed, Deadline deadline,
                                                          const std::string& which, const std::string& how,
                                                          NumericalCheck& check) {
  RealArith<double> ar;
  try {
    return evaluate(g, ar, random_sources(ar, seed), [&](int64_t done) {
      if (deadline.passed()) throw PastDeadline{done};
    });
  } catch (const PastDeadline& stop) {
    check.cut_short = true;
    check.note = "cut short by the time limit after " + std::to_string(stop.operators_done) + " of " +
                 std::to_string(g.num_operators()) + " operators of the " + which + " (" + how + ")";
    return std::nullopt;
  }
}

// The check of `after` (at the reference's size) against the reference.
NumericalCheck compare_at(const CheckReference& ref, const Graph& after, uint64_t seed, Deadline deadline) {
  if (ref.check.cut_short || ref.check.inconclusive) return ref.check;
  NumericalCheck check;
  auto outputs = evaluate_until(after, seed, deadline, "optimized graph", ref.check.note, check);
  if (!outputs) return check;
  check.max_relative_error = compare(ref.outputs, *outputs);
  check.ran = true;
  check.passed = check.max_relative_error <= kCheckRelativeTolerance;
  check.note = ref.check.note;
  return check;
}

CheckReference reference_of(const Graph& before, const std::string& how,
                            std::vector<std::pair<std::string, Shape>> shapes, uint64_t seed,
                            Deadline deadline) {
  CheckReference ref;
  ref.shapes = std::move(shapes);
  const auto start = std::chrono::steady_clock::now();
  auto outputs = evaluate_until(before, seed, deadline, "input graph", how, ref.check);
  ref.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outputs) return ref;
  ref.outputs = std::move(*outputs);
  ref.check.note = how;
  if (!all_finite(ref.outputs)) {
    // inf - inf is NaN whatever the rewrite: no graph can be told right or wrong.
    ref.check.inconclusive = true;
    ref.check.note =
        "inconclusive: the input graph's outputs overflow to inf or NaN on the check's random "
        "values (" +
        how + ")";
  }
  return ref;
}

}  // namespace

CheckReference check_reference(const Graph& before, uint64_t seed, int64_t flops_limit, Deadline deadline) {
  CheckGraphs c = check_graphs(before, before, flops_limit);
  return reference_of(c.before, c.note, std::move(c.shapes), seed, deadline);
}

NumericalCheck check_against(const CheckReference& ref, const Graph& before, const Graph& after,
                             uint64_t seed, int64_t flops_limit, Deadline deadline) {
  Graph sized;
  try {
    sized = ref.shapes.empty() ? after : with_input_shapes(after, ref.shapes);
  } catch (const Error&) {
    return numerical_check(before, after, seed, flops_limit, deadline);  // it needs another size
  }
  return compare_at(ref, sized, seed, deadline);
}

NumericalCheck numerical_check(const Graph& before, const Graph& after, uint64_t seed, int64_t flops_limit,
                               Deadline deadline) {
  CheckGraphs c = check_graphs(before, after, flops_limit);
  return compare_at(reference_of(c.before, c.note, c.shapes, seed, deadline), c.after, seed, deadline);
}

}  // namespace superopt::search
