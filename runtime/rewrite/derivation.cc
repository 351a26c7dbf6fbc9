// Replaying and invalidating derivations (see derivation.h).
#include "runtime/rewrite/derivation.h"

#include <algorithm>

#include "runtime/core/graph_hash.h"
#include "runtime/rewrite/output_rule.h"

namespace superopt {
namespace {

bool comes_before(const std::vector<Rule>& rules, int64_t a, int64_t b) {
  return derivation_order(rules[a].num_operators(), a) < derivation_order(rules[b].num_operators(), b);
}

std::optional<DirectedRule> direction(const Rule& rule, int64_t index, bool reversed) {
  for (DirectedRule& d : compile_rule(rule, int(index)))
    if (d.reversed == reversed) return std::move(d);
  return std::nullopt;
}

// Why one step does not apply, or nullopt (then *g is the graph after it).
std::optional<std::string> replay_step(const std::vector<Rule>& rules, int64_t index, const DerivationStep& s,
                                       Graph* g) {
  if (s.rule < 0 || s.rule >= int64_t(rules.size()))
    return "rule " + std::to_string(s.rule) + " does not exist";
  const Rule& used = rules[s.rule];
  if (!is_proven(used.status))
    return "rule " + std::to_string(s.rule) + " is " + std::string(rule_status_name(used.status));
  if (!comes_before(rules, s.rule, index))
    return "rule " + std::to_string(s.rule) + " does not come before it";
  std::optional<DirectedRule> d = direction(used, s.rule, s.reversed);
  if (!d) return "rule " + std::to_string(s.rule) + " cannot be applied in that direction";
  std::optional<Match> m = occurrence_at(*g, *d, s);
  if (!m) return "rule " + std::to_string(s.rule) + " does not match at the stored site";
  RewriteFailure why = RewriteFailure::none;
  std::optional<Graph> after = apply_rule(*g, *m, *d, &why);
  if (!after) return "rule " + std::to_string(s.rule) + " does not apply: " + std::string(failure_name(why));
  *g = std::move(*after);
  return std::nullopt;
}

// The positions of d's steps on output `output` (-1: on the whole rule), in order.
std::vector<size_t> step_numbers(const Derivation& d, int32_t output) {
  std::vector<size_t> steps;
  for (size_t j = 0; j < d.size(); ++j)
    if (d[j].output == output) steps.push_back(j);
  return steps;
}

// Why the steps at `steps` of rule `index`'s derivation do not rewrite
// `source` and `target` into one graph (each error prefixed by `where`), or
// nullopt when they do.
std::optional<std::string> replay_sides(const std::vector<Rule>& rules, int64_t index, Graph source,
                                        Graph target, const std::vector<size_t>& steps,
                                        const std::string& where) {
  for (size_t j : steps) {
    const DerivationStep& s = rules[index].derivation[j];
    if (auto why = replay_step(rules, index, s, s.on_target ? &target : &source))
      return where + "step " + std::to_string(j + 1) + ": " + *why;
  }
  if (same_outputs(source, target)) return std::nullopt;  // sharing aside (graph_hash.h)
  return where + (steps.empty() ? "its sides differ and no step rewrites them"
                                : "its sides do not meet after the last step");
}

// derivation_error() of a derivation whose every step is on one output.
std::optional<std::string> per_output_error(const std::vector<Rule>& rules, int64_t index) {
  const Rule& rule = rules[index];
  const int32_t outputs = int32_t(rule.source.outputs().size());
  for (size_t j = 0; j < rule.derivation.size(); ++j)
    if (rule.derivation[j].output >= outputs)
      return "step " + std::to_string(j + 1) + ": output " + std::to_string(rule.derivation[j].output) +
             " does not exist (the rule has " + std::to_string(outputs) + ")";
  for (int32_t i = 0; i < outputs; ++i) {
    const Rule one = output_rule(rule, i);
    if (auto why = replay_sides(rules, index, one.source, one.target, step_numbers(rule.derivation, i),
                                "output " + std::to_string(i) + ", "))
      return why;
  }
  return std::nullopt;
}

}  // namespace

void record_site(const Match& m, DerivationStep& step) {
  step.site.assign(m.nodes.begin(), m.nodes.end());
  step.variables.clear();
  for (TensorRef t : m.variables) step.variables.push_back(t.node * kMaxOutputs + t.port);
}

std::optional<Match> occurrence_at(const Graph& g, const DirectedRule& r, const DerivationStep& step) {
  const std::vector<int32_t>& site = step.site;
  if (site.size() != r.source.nodes.size()) return std::nullopt;
  const int anchor = r.source.match_order.front();
  if (site[anchor] < 0 || site[anchor] >= g.num_nodes()) return std::nullopt;
  GraphIndex index(g);
  std::optional<Match> found;
  std::function<void(const Match&)> visit = [&](const Match& m) {
    if (found || !std::equal(m.nodes.begin(), m.nodes.end(), site.begin())) return;
    DerivationStep here;
    record_site(m, here);
    if (here.variables == step.variables) found = m;
  };
  match_at(g, index, r.source, site[anchor], visit);
  return found;
}

std::optional<std::string> derivation_error(const std::vector<Rule>& rules, int64_t index) {
  const Rule& rule = rules[index];
  if (rule.derivation.empty()) return "no derivation";
  const auto whole = [](const DerivationStep& s) { return s.output < 0; };
  const size_t first_whole =
      size_t(std::find_if(rule.derivation.begin(), rule.derivation.end(), whole) - rule.derivation.begin());
  if (first_whole == rule.derivation.size()) return per_output_error(rules, index);
  const size_t first_per_output = size_t(
      std::find_if_not(rule.derivation.begin(), rule.derivation.end(), whole) - rule.derivation.begin());
  if (first_per_output < rule.derivation.size())
    return "step " + std::to_string(first_whole + 1) + " rewrites the whole rule and step " +
           std::to_string(first_per_output + 1) + " one output's: a derivation is one or the other";
  const std::vector<size_t> all = step_numbers(rule.derivation, -1);
  return replay_sides(rules, index, rule.source, rule.target, all, "");
}

int64_t invalidate_broken_derivations(std::vector<Rule>& rules) {
  int64_t invalidated = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (Rule& r : rules) {
      if (r.status != RuleStatus::derived) continue;
      for (const DerivationStep& s : r.derivation) {
        if (s.rule >= 0 && s.rule < int64_t(rules.size()) && is_proven(rules[s.rule].status)) continue;
        r.status = RuleStatus::candidate;
        r.note = "its derivation used rule " + std::to_string(s.rule) + ", which is no longer proven";
        r.derivation.clear();
        r.family.reset();  // stated with the proof, gone with it
        ++invalidated;
        changed = true;
        break;
      }
    }
  }
  return invalidated;
}

}  // namespace superopt
