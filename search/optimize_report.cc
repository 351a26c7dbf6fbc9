// What `superopt optimize` reports of a run (optimize_report.h): the `--json`
// object, the search's name and the rules' operator set checked against the model.
#include "search/optimize_report.h"

#include <sys/resource.h>

#include <cinttypes>
#include <cstdio>
#include <optional>
#include <set>

#include "runtime/core/error.h"
#include "runtime/core/graph_hash.h"

namespace superopt {
namespace {

using Json = nlohmann::ordered_json;

std::string hex_hash(const Graph& g) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, canonical_hash(g));
  return buf;
}

Json suspects_json(const std::vector<SuspectRule>& suspects) {
  Json list = Json::array();
  for (const SuspectRule& s : suspects)
    list.push_back({{"id", s.id}, {"label", s.label}, {"max_relative_error", s.max_relative_error}});
  return list;
}

Json phase_json(const PhaseSeconds& p) {
  return {{"load", p.load},
          {"preprocess", p.preprocess},
          {"split", p.split},
          {"search", p.search},
          {"check", p.check}};
}

Json eqsat_json(const EqsatStats& e) {
  if (!e.ran) return Json();
  return {{"rounds", e.rounds},
          {"nodes", e.nodes},
          {"classes", e.classes},
          {"iterations", e.iterations},
          {"stop_reason", e.stop_reason},
          {"matches", e.matches},
          {"applications", e.applications},
          {"not_confirmed", e.not_confirmed},
          {"refused_merges", e.refused_merges},
          {"bans", e.bans},
          {"saturation_seconds", e.saturation_seconds},
          {"extraction", e.extraction},
          {"extraction_seconds", e.extraction_seconds},
          {"greedy_objective_ms", e.greedy_objective_ms},
          {"dag_objective_ms", e.dag_objective_ms},
          {"switched_objective_ms", e.switched_objective_ms},
          {"ilp_status", e.ilp_status},
          {"ilp_gap", e.ilp_gap},
          {"ilp_objective_ms", e.ilp_objective_ms},
          {"ilp_bound_ms", e.ilp_bound_ms},
          {"ilp_variables", e.ilp_variables},
          {"ilp_constraints", e.ilp_constraints},
          {"polish_trials", e.polish_trials},
          {"polish_kept", e.polish_kept},
          {"polish_cut_short", e.polish_cut_short},
          {"polish_seconds", e.polish_seconds},
          {"fell_back", e.fell_back},
          {"rules_involved", e.rules_involved}};
}

}  // namespace

SearchKind parse_search_kind(const std::string& name) {
  for (SearchKind k : {SearchKind::backtracking, SearchKind::pruning, SearchKind::dpp, SearchKind::sampling,
                       SearchKind::exhaustive, SearchKind::eqsat})
    if (name == search_kind_name(k)) return k;
  throw Error("--search: unknown search '" + name +
              "' (expected backtracking, pruning, dpp, sampling, exhaustive or eqsat)");
}

// A database whose operator set lists no operators is judged by the operators of its rules.
std::optional<std::string> rules_miss_model(const RuleDatabase& db, const Graph& model,
                                            const std::string& file) {
  std::set<OpType> model_ops, rule_ops;
  for (const Node& n : model.nodes()) model_ops.insert(n.op);
  try {
    std::optional<std::set<OpType>> listed = db.opset_operators();
    rule_ops = listed ? std::move(*listed) : db.operators_used();
  } catch (const Error& e) {
    throw Error(file + ": rules from another operator set: " + e.what());
  }
  std::string names;
  bool shared = false;
  for (OpType op : rule_ops) {
    if (op == OpType::input || op == OpType::weight) continue;
    shared |= model_ops.count(op) > 0;
    names += (names.empty() ? "" : ", ") + std::string(op_name(op));
  }
  if (shared) return std::nullopt;
  return file + ": rules from another operator set: none of the operators of '" + db.info.opset_name + "' (" +
         names + ") occurs in the model";
}

void check_rules_fit_model(const RuleDatabase& db, const Graph& model, const std::string& file) {
  if (std::optional<std::string> why = rules_miss_model(db, model, file)) throw Error(*why);
}

const char* check_status(const NumericalCheck& check) {
  if (!check.ran) return "not checked";
  return check.passed ? "passed" : "failed";
}

std::string check_text(const NumericalCheck& check) {
  std::string status = check.ran && !check.passed ? "FAILED" : check_status(check);
  std::string how = check.note.empty() ? "" : check.note;
  if (!check.ran) return how.empty() ? status : status + " (" + how + ")";
  char error[48];
  std::snprintf(error, sizeof error, "%g", check.max_relative_error);
  return status + " (max relative error " + error + (how.empty() ? "" : ", " + how) + ")";
}

double peak_memory_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024;  // kilobytes on Linux
}

Json optimize_result_json(const OptimizeRequest& q, const OptimizeResult& r, const CostModel& cost,
                          const EndToEndDecision* end_to_end) {
  Json applied = Json::object();
  for (const auto& [label, count] : r.rules_applied) applied[label] = count;
  const SearchOptions& o = q.options;
  return {{"model", q.model},
          {"operators", q.operators},
          {"cost_model", cost.name()},
          {"cost_before", r.cost_before_ms},
          {"cost_after", r.cost_after_ms},
          {"speedup", r.cost_before_ms / r.cost_after_ms},
          {"graphs_explored", r.graphs_explored},
          {"search", search_kind_name(o.search)},
          {"max_length", o.max_length},
          {"sample_size", o.sample_size},
          {"eta", o.eta},
          {"peak_memory_mb", peak_memory_mb()},
          {"exhaustive", o.exhaustive},
          {"finished", r.finished},
          {"search_seconds", r.search_seconds},
          {"search_time_left_seconds", r.search_time_left_s},
          {"phase_seconds", phase_json(r.phase_seconds)},
          {"memory_full", r.memory_full},
          {"search_held_bytes", r.search_held_bytes},
          {"alpha", o.alpha},
          {"budget", o.budget},
          {"split_threshold", o.split_threshold},
          {"parts", r.parts},
          {"rules_usable", r.rules_used},
          {"rules_applied", applied},
          {"applications", r.rule_sequence.size()},
          {"rule_sequence", r.rule_sequence},
          {"graph_hash", hex_hash(r.graph)},
          {"precomputed_operators", r.precomputed_operators},
          {"folded_operators", r.folded_operators},
          {"fallbacks", cost.fallbacks()},
          {"check",
           {{"passed", r.check.ran && r.check.passed},
            {"status", check_status(r.check)},
            {"max_relative_error", r.check.max_relative_error},
            {"cut_short", r.check.cut_short},
            {"inconclusive", r.check.inconclusive},
            {"how", r.check.note}}},
          {"suspect_rules", suspects_json(r.suspect_rules)},
          {"suspects_marked", q.suspects_marked},
          {"rounds", r.rounds},
          {"unchecked_applications", r.unchecked_applications},
          {"eqsat", eqsat_json(r.eqsat)},
          {"out", q.out.empty() || !r.check.passed ? Json() : Json(q.out)},
          {"end_to_end", end_to_end ? end_to_end_json(*end_to_end) : Json()}};
}

}  // namespace superopt
