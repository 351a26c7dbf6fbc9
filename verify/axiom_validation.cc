// Small-tensor validation of axioms (see axiom_validation.h).
#include "verify/axiom_validation.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "runtime/core/error.h"
#include "runtime/core/graph.h"
#include "verify/param_ints.h"
#include "verify/symbolic_compare.h"

namespace superopt::verify {
namespace {

// One variable's possible values, each a tuple over its atoms ("s.h", "s.w").
struct Choice {
  const ParamVar* var = nullptr;
  std::vector<std::string> atoms;
  std::vector<std::vector<int64_t>> values;
};

int max_tensor_rank(const Axiom& ax) {
  size_t rank = 0;
  for (const TensorVar& t : ax.tensors) rank = std::max(rank, t.shape.size());
  return static_cast<int>(rank);
}

Choice choice_of(const ParamVar& v, int max_dim, int max_rank) {
  Choice c{&v, {v.name}, {}};
  auto pairs = [&](int64_t a, int64_t b) {
    c.atoms = {v.name + ".h", v.name + ".w"};
    c.values = {{a, a}, {a, b}, {b, a}, {b, b}};
  };
  switch (v.kind) {
    case VarKind::dim:
      for (int64_t d = 1; d <= max_dim; ++d) c.values.push_back({d});
      break;
    case VarKind::ksize:
      c.values = {{1}, {3}};
      break;
    case VarKind::stride:
      pairs(1, 2);
      break;
    case VarKind::kernel:
      pairs(1, 3);
      break;
    case VarKind::padding:
      c.values = {{0}, {1}};
      break;
    case VarKind::activation:
      for (int64_t a = 0; a < kNumActivations; ++a) c.values.push_back({a});
      break;
    case VarKind::axis:
      for (int64_t a = 0; a < max_rank; ++a) c.values.push_back({a});
      break;
  }
  return c;
}

std::vector<Choice> choices_of(const Axiom& ax, int max_dim) {
  std::vector<Choice> choices;
  for (const ParamVar& v : ax.vars) choices.push_back(choice_of(v, max_dim, max_tensor_rank(ax)));
  return choices;
}

using Assignment = std::map<std::string, int64_t>;

// The index-th assignment, the first variable varying slowest.
Assignment decode(const std::vector<Choice>& choices, int64_t index) {
  Assignment a;
  for (auto c = choices.rbegin(); c != choices.rend(); ++c) {
    const int64_t n = static_cast<int64_t>(c->values.size());
    const std::vector<int64_t>& tuple = c->values[index % n];
    index /= n;
    for (size_t i = 0; i < c->atoms.size(); ++i) a[c->atoms[i]] = tuple[i];
  }
  return a;
}

int64_t atom_value(const IntAtom& atom, const Assignment& a) {
  int64_t v = atom.value;
  for (const IntAtom::Summand& s : atom.vars) v += s.factor * a.at(s.var);
  return v;
}

Shape tensor_shape(const TensorVar& t, const Assignment& a) {
  Shape s;
  for (const IntAtom& d : t.shape) s.push_back(atom_value(d, a));
  return s;
}

// One side of an axiom as a graph under one assignment. Tensor variables
// become inputs named after them, so both sides read the same symbolic values.
class SideBuilder {
 public:
  SideBuilder(const Axiom& ax, const Assignment& a) : ax_(ax), a_(a) {}

  // nullopt when a convolution's groups or a concat's or split's part sizes
  // differ from the assigned values; throws Error when an operator is not
  // defined at these shapes.
  std::optional<Graph> build(const Term& t) {
    std::optional<TensorRef> out = add(t);
    if (!out) return std::nullopt;
    graph_.add_output(*out);
    return std::move(graph_);
  }

 private:
  std::optional<TensorRef> add(const Term& t) {
    if (t.is_var()) return TensorRef{input(t.var), 0};
    std::vector<int64_t> ints;
    for (const IntAtom& atom : t.params) ints.push_back(atom_value(atom, a_));
    std::vector<TensorRef> args;
    for (const Term& arg : t.args) {
      std::optional<TensorRef> ref = add(arg);
      if (!ref) return std::nullopt;
      args.push_back(*ref);
    }
    // Checked before adding the node: most assignments of a groups or part
    // variable do not apply, and returning is much cheaper than throwing.
    if (has_groups(t.op)) {
      const Shape &in = graph_.shape(args.at(0)), &weight = graph_.shape(args.at(1));
      if (in.rank() > 1 && weight.rank() > 1 && weight[1] > 0 && conv_groups(in, weight) != ints.back())
        return std::nullopt;
      ints.pop_back();
    }
    std::vector<int64_t> parts;
    if (has_part_size(t.op)) {
      const auto first_part = ints.end() - num_part_sizes(t.op, static_cast<int>(args.size()));
      parts.assign(first_part, ints.end());
      ints.erase(first_part, ints.end());
    }
    const OpParams params = params_from_ints(t.op, ints);
    if (t.op == OpType::concat && !concat_parts_fit(args, params.axis, parts)) return std::nullopt;
    const NodeId id = graph_.add(t.op, args, params);
    if (t.op == OpType::split && graph_.node(id).output(0).shape[params.axis] != parts.at(0))
      return std::nullopt;
    return TensorRef{id, t.port};
  }

  // Whether each input but the last has its stated size along the axis.
  bool concat_parts_fit(const std::vector<TensorRef>& args, int axis,
                        const std::vector<int64_t>& parts) const {
    for (size_t i = 0; i < parts.size(); ++i) {
      const Shape& s = graph_.shape(args.at(i));
      if (axis >= s.rank() || s[axis] != parts[i]) return false;
    }
    return true;
  }

  NodeId input(const std::string& name) {
    auto it = inputs_.find(name);
    if (it != inputs_.end()) return it->second;
    auto tv = std::find_if(ax_.tensors.begin(), ax_.tensors.end(),
                           [&](const TensorVar& v) { return v.name == name; });
    NodeId id = graph_.add_input(name, tensor_shape(*tv, a_));
    inputs_.emplace(name, id);
    return id;
  }

  const Axiom& ax_;
  const Assignment& a_;
  Graph graph_;
  std::map<std::string, NodeId> inputs_;
};

std::string value_str(VarKind kind, const std::vector<int64_t>& v) {
  switch (kind) {
    case VarKind::stride:
    case VarKind::kernel:
      return std::to_string(v[0]) + "x" + std::to_string(v[1]);
    case VarKind::padding:
      return v[0] ? "valid" : "same";
    case VarKind::activation:
      return std::string(activation_name(static_cast<Activation>(v[0])));
    default:
      return std::to_string(v[0]);
  }
}

// "c=relu s=1x1 x=1x1x2x2 w=scalar": the variables, then the tensor shapes.
std::string assignment_str(const Axiom& ax, const std::vector<Choice>& choices, const Assignment& a) {
  std::string s;
  for (const Choice& c : choices) {
    std::vector<int64_t> v;
    for (const std::string& atom : c.atoms) v.push_back(a.at(atom));
    s += (s.empty() ? "" : " ") + c.var->name + "=" + value_str(c.var->kind, v);
  }
  for (const TensorVar& t : ax.tensors) s += (s.empty() ? "" : " ") + t.name + "=" + tensor_shape(t, a).str();
  return s;
}

// An axiom that never applies was not validated at all: its shape templates
// may not fit its operators, or a part size is stated wrong (`part=` must be
// the size of a concat's first input, so a wrong one skips every assignment).
// A failure, so that verify-axioms exits 1 rather than pass it.
void mark_vacuous(AxiomValidation& v) {
  if (v.obligations > 0 || v.result != AxiomResult::passed) return;
  v.result = AxiomResult::failed;
  v.note = "no assignment applies: every one was skipped (shape templates or part sizes that never fit)";
}

}  // namespace

std::string_view axiom_result_name(AxiomResult r) {
  switch (r) {
    case AxiomResult::passed:
      return "passed";
    case AxiomResult::failed:
      return "FAILED";
    case AxiomResult::unknown:
      return "unknown";
  }
  return "?";
}

int64_t num_assignments(const Axiom& ax, int max_dim) {
  int64_t n = 1;
  for (const Choice& c : choices_of(ax, max_dim)) n *= static_cast<int64_t>(c.values.size());
  return n;
}

AxiomValidation validate_axiom(z3::context& ctx, const Axiom& ax, const AxiomValidationOptions& options) {
  auto start = std::chrono::steady_clock::now();
  const std::vector<Choice> choices = choices_of(ax, options.max_dim);
  const int64_t total = num_assignments(ax, options.max_dim);
  AxiomValidation v;
  v.name = ax.name;
  for (int64_t index = options.slice; index < total; index += options.num_slices) {
    const Assignment a = decode(choices, index);
    std::optional<Graph> lhs, rhs;
    try {
      lhs = SideBuilder(ax, a).build(ax.lhs);
      if (lhs) rhs = SideBuilder(ax, a).build(ax.rhs);
    } catch (const Error&) {
      lhs.reset();
    }
    if (!lhs || !rhs) {
      ++v.skipped;
      continue;
    }
    ++v.obligations;
    SymbolicComparison c;
    try {
      c = compare_symbolically(ctx, *lhs, *rhs, options.timeout_ms);
    } catch (const Error& e) {
      c.detail = std::string("cannot be evaluated: ") + e.what();
    }
    if (c.result == Comparison::differ) {
      v.result = AxiomResult::failed;
      v.failed_at = index;
      v.note = "at " + assignment_str(ax, choices, a) + ": " + c.detail;
      break;
    }
    if (c.result == Comparison::unknown) {
      if (v.unknown++ == 0) v.note = "at " + assignment_str(ax, choices, a) + ": " + c.detail;
      v.result = AxiomResult::unknown;
    }
  }
  if (options.num_slices == 1) mark_vacuous(v);
  v.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return v;
}

AxiomValidation merge_slices(const std::vector<AxiomValidation>& parts) {
  AxiomValidation m;
  if (parts.empty()) return m;
  m.name = parts[0].name;
  const AxiomValidation* first_failure = nullptr;
  for (const AxiomValidation& p : parts) {
    m.obligations += p.obligations;
    m.skipped += p.skipped;
    m.unknown += p.unknown;
    m.ms += p.ms;
    if (p.result == AxiomResult::failed && (!first_failure || p.failed_at < first_failure->failed_at))
      first_failure = &p;
    if (p.result == AxiomResult::unknown && m.note.empty()) m.note = p.note;
  }
  if (first_failure) {
    m.result = AxiomResult::failed;
    m.failed_at = first_failure->failed_at;
    m.note = first_failure->note;
  } else if (m.unknown > 0) {
    m.result = AxiomResult::unknown;
  }
  mark_vacuous(m);
  return m;
}

}  // namespace superopt::verify
