// What `superopt optimize` reports of a run, shared by the command and the
// Python package (python/): the result as the one JSON object of `--json`, the
// search's name parsed, and the check that a rule database fits the model.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "runtime/db/rule_database.h"
#include "search/end_to_end.h"
#include "search/search.h"

namespace superopt {

// "backtracking", "pruning", ... as a SearchKind; Error "--search: unknown
// search 'X' (expected ...)" otherwise.
SearchKind parse_search_kind(const std::string& name);

// "Rules from another operator set": the database's operator set names an
// operator this superopt does not know, or shares no operator with the model.
// Throws Error starting with `file`.
void check_rules_fit_model(const RuleDatabase& db, const Graph& model, const std::string& file);
// Why the database cannot apply to the model (none of its operators occurs in it), or nullopt;
// throws Error where its operator set cannot be read.
std::optional<std::string> rules_miss_model(const RuleDatabase& db, const Graph& model,
                                            const std::string& file);

// The process's peak resident memory in MB (what OCGGS Table 3c reports).
double peak_memory_mb();

// What the numerical check says of the result, for text and JSON alike:
// "passed" or "failed" when it compared the outputs, "not checked" when it
// did not (cut short by the time limit, inconclusive, stopped, or turned off;
// the result is then the input graph, and the note says how far it got).
// Never "passed" for a check that did not run (issue 37, item 12).
const char* check_status(const NumericalCheck& check);
// The line `optimize` prints after "check:": the status, the error where the
// outputs were compared, and how it ran.
std::string check_text(const NumericalCheck& check);

// What a run was asked: the model's spec, where the result goes ("" for
// nowhere), the options, the model's operators and whether suspects were marked.
struct OptimizeRequest {
  std::string model;
  std::string out;
  SearchOptions options;
  int operators = 0;
  bool suspects_marked = false;
};

// The object `optimize --json` prints: costs, search, phases, rules applied,
// the numerical check, suspects, eqsat's statistics and the end-to-end
// decision (null when not timed).
nlohmann::ordered_json optimize_result_json(const OptimizeRequest& request, const OptimizeResult& r,
                                            const CostModel& cost, const EndToEndDecision* end_to_end);

}  // namespace superopt
