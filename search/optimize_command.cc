// `superopt optimize MODEL --rules FILE`: load a model and a rule database,
// optimize, print costs, rules applied and suspect rules (or one JSON object),
// mark suspects in the database when asked, and write the optimized graph only
// when the numerical check passes.
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "runtime/cli/command_line.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/data_dir.h"
#include "runtime/core/graph_hash.h"
#include "runtime/core/memory_budget.h"
#include "runtime/core/writer_lock.h"
#include "runtime/exec/cost_models.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/model_file.h"
#include "runtime/models/model_zoo.h"
#include "runtime/rewrite/derivation.h"
#include "search/end_to_end.h"
#include "search/optimize_report.h"
#include "search/rule_databases.h"
#include "search/search.h"

namespace superopt {
namespace {

using Json = nlohmann::ordered_json;
namespace po = boost::program_options;

constexpr const char* kUsage =
    "superopt optimize MODEL [--rules FILE[,FILE...]|shipped] [--alpha 1.05] [--budget N] [--time-limit S] "
    "[--cost analytic:h100|table:FILE|cpu[:THREADS][@TABLE]|gpu] [--split-threshold 30] [--exhaustive] "
    "[--out FILE] [--json] "
    "[--allow-unverified] [--minimal-rules] [--max-suspects 3] [--mark-suspects] "
    "[--search backtracking|pruning|dpp|sampling|exhaustive|eqsat] [--max-length 10] [--sample-size 20] "
    "[--eta 1] "
    "[--eqsat-nodes 30000] [--eqsat-iterations 8] [--eqsat-multi-iterations 2] [--eqsat-match-limit 0] "
    "[--eqsat-time-limit 10] [--eqsat-rounds 3] "
    "[--extract greedy|ilp] "
    "[--ilp-time-limit 4] "
    "[--input-shape NAME=DIMS] [--e2e-rounds 5]";

// The shipped rule databases (data/rules/, tracked), searched together when --rules is not
// given or is "shipped" (issue 36: every shipped set that covers a model's operators; those
// that share none with it are left out as read_rule_databases leaves them).
constexpr const char* kShippedRules[] = {"taso-3.h5", "conv-bias-3.h5", "conv-activations-3.h5",
                                         "linear-3.h5"};

std::string shipped_rules() {
  std::string list;
  for (const char* file : kShippedRules)
    list += (list.empty() ? "" : ",") + data_path(std::string("rules/") + file);
  return list;
}

struct OptimizeArgs {
  std::string model, rules, cost = "analytic:h100", out, search = "backtracking", extract = "ilp";
  std::vector<std::string> input_shapes;
  SearchOptions options;
  bool json = false;
  bool mark_suspects = false;  // write suspects back to the database as unknown
  int e2e_rounds = -1;         // --e2e-rounds (search/end_to_end.h); -1: not given
};

// --mark-suspects rewrites the database through a temporary file beside it:
// refuse before searching rather than after.
void require_writable_directory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (::access(dir.c_str(), W_OK) != 0)
    throw Error("--mark-suspects: cannot write " + path + ": " + dir.string() + ": " + std::strerror(errno));
}

std::optional<OptimizeArgs> parse_args(const std::vector<std::string>& args) {
  OptimizeArgs a;
  SearchOptions& o = a.options;
  po::options_description options("options");
  options.add_options()("model", po::value(&a.model), "a graph file (JSON), an ONNX model or builtin:NAME")(
      "rules", po::value(&a.rules),
      "the rule database (HDF5); several, comma-separated, are searched together; default (or "
      "'shipped'): data/rules/taso-3.h5, conv-bias-3.h5, conv-activations-3.h5 and linear-3.h5, "
      "those that share an operator with the model")(
      "alpha", cli::number(&o.alpha, "--alpha", 1.0, 1000.0),
      "keep graphs costing under alpha x the best (1 = greedy; default 1.05)")(
      "budget", cli::positive(&o.budget, "--budget"), "graphs taken from the queue in all (default 1000)")(
      "time-limit", cli::number(&o.time_limit_s, "--time-limit", 0.001, 1e7),
      "seconds for the whole run: loading, splitting, searching (default 60)")(
      "cost", po::value(&a.cost),
      "what a graph costs: analytic:DEVICE (a profile of data/devices/: h100, v100, cpu; or a profile "
      "file), table:FILE (a measured HDF5 cost table), cpu (measured on the fly with oneDNN, every "
      "core), cpu:THREADS, cpu@TABLE or cpu:THREADS@TABLE (starting from a CPU table measured here), "
      "or gpu (measured on CUDA device 0); default analytic:h100")(
      "split-threshold", cli::non_negative(&o.split_threshold, "--split-threshold"),
      "largest part in operators; 0: no split (default 30)")(
      "out", po::value(&a.out), "write the optimized graph here (ONNX if it ends in .onnx, else JSON)")(
      "json", po::bool_switch(&a.json),
      "print one JSON object (what its fields and the text mean: README.md, \"Reading optimize's output\")")(
      "allow-unverified", po::bool_switch(&o.allow_unverified), "also use candidate (unverified) rules")(
      "minimal-rules", po::bool_switch(&o.minimal_rules),
      "use only the minimal set: verified rules, not those derived from them")(
      "seed", cli::seed(&o.seed), "seed of the numerical check's inputs and weights (default 1)")(
      "exhaustive", po::bool_switch(&o.exhaustive),
      "no alpha pruning, budget or queue bound: only --time-limit stops the search")(
      "max-suspects", cli::non_negative(&o.max_suspects, "--max-suspects"),
      "when the check fails, rules dropped as suspects (one per new search) before giving up (default 3)")(
      "mark-suspects", po::bool_switch(&a.mark_suspects),
      "mark suspect rules 'unknown' in the --rules database (rewritten in place)")(
      "search", po::value(&a.search),
      "backtracking (MetaFlow/TASO; the default), or OCGGS's pruning, dpp, sampling, or exhaustive (all "
      "sequences of length <= K)")("max-length", cli::positive(&o.max_length, "--max-length"),
                                   "K: longest substitution sequence (OCGGS searches; default 10)")(
      "sample-size", cli::positive(&o.sample_size, "--sample-size"),
      "Q: sequences sampling keeps per length (default 20)")(
      "eta", cli::positive(&o.eta, "--eta"), "successive cost increases sampling allows (default 1)")(
      "e2e-rounds", cli::non_negative(&a.e2e_rounds, "--e2e-rounds"),
      "with CPU costs: time the input and the best graphs end to end in N interleaved rounds and return "
      "the fastest, never one slower than the input (default 5; 0: off)")(
      "eqsat-nodes", cli::positive(&o.eqsat_max_nodes, "--eqsat-nodes"),
      "eqsat: e-node limit of a round; twice that after a round that found nothing early (default 30000)")(
      "eqsat-iterations", cli::positive(&o.eqsat_max_iterations, "--eqsat-iterations"),
      "eqsat: iteration limit (default 8)")(
      "eqsat-multi-iterations", cli::non_negative(&o.eqsat_multi_iterations, "--eqsat-multi-iterations"),
      "eqsat: iterations applying multi-output rules (default 2)")(
      "eqsat-match-limit", cli::non_negative(&o.eqsat_match_limit, "--eqsat-match-limit"),
      "eqsat: matches of one rule in one iteration before it sits out a few (egg's backoff; 0: off; default "
      "0)")("eqsat-time-limit", cli::number(&o.eqsat_time_limit_s, "--eqsat-time-limit", 0.001, 1e7),
            "eqsat: seconds for the whole search, all rounds; each saturates for 60 % of what is left, then "
            "extracts (default 10)")(
      "eqsat-rounds", cli::positive(&o.eqsat_rounds, "--eqsat-rounds"),
      "eqsat: saturations, each seeded with the graph the last one extracted, while each finds a cheaper "
      "one (default 3)")("extract", po::value(&a.extract), "eqsat: greedy or ilp (CBC; the default)")(
      "ilp-time-limit", cli::number(&o.eqsat_ilp_time_limit_s, "--ilp-time-limit", 0.01, 1e6),
      "eqsat: seconds for the ILP; the greedy result stands after (default 4)");
  cli::add_model_options(options, a.input_shapes);
  po::positional_options_description positional;
  positional.add("model", 1);
  if (!cli::parse(kUsage, options, positional, args)) return std::nullopt;
  if (a.model.empty()) throw Error(std::string("optimize: missing MODEL (usage: ") + kUsage + ")");
  if (a.mark_suspects && (a.rules.empty() || a.rules == "shipped"))
    throw Error(
        "--mark-suspects: name the databases to mark with --rules (the shipped ones stay as shipped)");
  if (a.rules.empty() || a.rules == "shipped") a.rules = shipped_rules();
  for (const std::string& path : split_rule_paths(a.rules))
    if (a.mark_suspects) require_writable_directory(path);
  o.search = parse_search_kind(a.search);
  if (a.extract != "greedy" && a.extract != "ilp")
    throw Error("--extract: unknown extraction '" + a.extract + "' (expected greedy or ilp)");
  o.eqsat_ilp = a.extract == "ilp";
  return a;
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// Suspects become `unknown`, the status of rules the verifier could not decide:
// the optimizer no longer uses them and `superopt verify` decides them again.
// The note says why. The database is read again under the writer's lock
// (a verify or derive may have written it since the search read it, and
// their work is kept) and rewritten in place, atomically.
void mark_suspects_in(const RuleDatabases& searched, size_t which, const std::vector<SuspectRule>& suspects,
                      const std::string& model) {
  const std::string& path = searched.paths[which];
  const size_t first = searched.first[which], end = searched.end_of(which);
  WriterLock lock(path);
  RuleDatabase db = RuleDatabase::read(path);
  for (const SuspectRule& s : suspects) {
    if (searched.database_of(size_t(s.id)) != which) continue;
    const size_t k = size_t(s.id) - first;
    if (db.rules.size() != end - first ||
        db.rules.at(k).fingerprint != searched.all.rules.at(size_t(s.id)).fingerprint)
      throw Error(path + " was replaced by another database while optimize ran: suspects not marked");
    Rule& rule = db.rules[k];
    rule.note = "suspect: " + std::string(rule_status_name(rule.status)) + " until superopt optimize " +
                model + " found that applying [" + s.label + "] changes the outputs (max relative error " +
                std::to_string(s.max_relative_error) + ")";
    rule.status = RuleStatus::unknown;
    rule.derivation.clear();
    rule.family.reset();
  }
  // A suspect takes the rules derived from it along: they are decided again.
  invalidate_broken_derivations(db.rules);
  db.write(path);
}

void mark_suspects(const RuleDatabases& searched, const std::vector<SuspectRule>& suspects,
                   const std::string& model) {
  std::set<size_t> touched;  // only the databases holding a suspect are read and written again
  for (const SuspectRule& s : suspects) touched.insert(searched.database_of(size_t(s.id)));
  for (size_t which : touched) mark_suspects_in(searched, which, suspects, model);
}

std::string phase_text(const PhaseSeconds& p) {
  return "load " + fixed(p.load, 2) + ", preprocess " + fixed(p.preprocess, 2) + ", split " +
         fixed(p.split, 2) + ", search " + fixed(p.search, 2) + ", check " + fixed(p.check, 2) + " s";
}

// The net rewrite's size: applications left once a rule's two directions cancel.
int net_applications(const OptimizeResult& r) {
  int n = 0;
  for (const auto& [label, count] : r.rules_applied) n += count;
  return n;
}

// Why a search found nothing when it had no time: the time limit counts from
// the start, and a large model's loading and its check's reserve can take it all.
std::string time_left_text(const OptimizeArgs& a, const OptimizeResult& r) {
  if (r.search_time_left_s > 0) return "";
  return " (no time was left for it: --time-limit " + fixed(a.options.time_limit_s, 1) +
         " s counts from the start, loading and preparing took " +
         fixed(r.phase_seconds.load + r.phase_seconds.preprocess, 1) +
         " s, and the numerical check's share is kept back; raise --time-limit)";
}

void print_text(const OptimizeArgs& a, const OptimizeResult& r, const CostModel& cost, int operators,
                const RuleDatabases& dbs, bool marked) {
  std::string searched;
  for (const std::string& path : dbs.paths)
    searched += (searched.empty() ? "" : ", ") + std::filesystem::path(path).filename().string();
  std::cout << "model:            " << a.model << " (" << operators << " operators)\n"
            << "rules from:       " << searched << " (" << dbs.all.rules.size() << " rules usable)\n"
            << "cost model:       " << cost.name() << " (" << cost.fallbacks() << " fallbacks)\n"
            << "cost before:      " << fixed(r.cost_before_ms, 4) << " ms\n"
            << "cost after:       " << fixed(r.cost_after_ms, 4) << " ms\n"
            << "speedup:          " << fixed(r.cost_before_ms / r.cost_after_ms, 3) << "x\n"
            << "graphs explored:  " << r.graphs_explored << (r.finished ? " (all within the limits)\n" : "\n")
            << "search:           " << search_kind_name(a.options.search) << "\n"
            << "search time:      " << fixed(r.search_seconds, 2) << " s" << time_left_text(a, r) << "\n"
            << "time by phase:    " << phase_text(r.phase_seconds) << "\n"
            << "peak memory:      " << fixed(peak_memory_mb(), 1) << " MB\n"
            << "parts:            " << r.parts << " (split threshold " << a.options.split_threshold << ")\n"
            << "precomputed:      " << r.precomputed_operators << " operators at load time, "
            << r.folded_operators << " folded into weights (weights and constants only)\n"
            << "rules applied:    " << net_applications(r);
  if (size_t(net_applications(r)) != r.rule_sequence.size())
    std::cout << " net (" << r.rule_sequence.size() << " applications, a rule's two directions cancelling)";
  std::cout << "\n";
  for (const auto& [label, count] : r.rules_applied) std::cout << "  " << count << "x  " << label << "\n";
  if (r.eqsat.ran)
    std::cout << "e-graph:          " << r.eqsat.nodes << " e-nodes, " << r.eqsat.classes << " classes, "
              << r.eqsat.iterations << " iterations in " << r.eqsat.rounds
              << (r.eqsat.rounds == 1 ? " round" : " rounds") << " (" << r.eqsat.stop_reason << "), "
              << fixed(r.eqsat.saturation_seconds, 2) << " s\n"
              << "extraction:       " << r.eqsat.extraction << " " << fixed(r.eqsat.extraction_seconds, 2)
              << " s"
              << (r.eqsat.ilp_status.empty()
                      ? ""
                      : " (ILP " + r.eqsat.ilp_status + ", gap " + fixed(100 * r.eqsat.ilp_gap, 2) + " %)")
              << (r.eqsat.polish_trials == 0
                      ? ""
                      : ", polish kept " + std::to_string(r.eqsat.polish_kept) + " of " +
                            std::to_string(r.eqsat.polish_trials) + " switches" +
                            (r.eqsat.polish_cut_short ? " (cut short)" : ""))
              << "\n";
  for (const SuspectRule& s : r.suspect_rules)
    std::cout << "suspect rule " << s.id << ": [" << s.label
              << "] broke equality on its own (max relative error " << s.max_relative_error
              << "): dropped, searched again"
              << (marked ? ", marked unknown in " + dbs.paths[dbs.database_of(size_t(s.id))] : std::string())
              << "\n";
  std::cout << "check:            " << check_text(r.check) << "\n";
}

}  // namespace

int optimize_command(const std::vector<std::string>& args) {
  std::optional<OptimizeArgs> a = parse_args(args);
  if (!a) return cli::kExitOk;
  // The search copies graphs of a few hundred kilobytes by the thousand: keep
  // them in the heap, not in fresh (kernel-zeroed) mappings.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  LoadedModel loaded = load_named_model(a->model, cli::model_options(a->input_shapes));
  const Graph& model = loaded.graph;
  // Only the rules the search may use are parsed: the 4-operator database's
  // minimal set is 4 % of it.
  const RuleDatabases dbs = read_rule_databases(split_rule_paths(a->rules), &model,
                                                [&](RuleStatus s) { return rule_usable(s, a->options); });
  const RuleDatabase& db = dbs.all;
  for (const std::string& why : dbs.skipped) std::cerr << "superopt: skipped " << why << "\n";
  std::unique_ptr<CostModel> cost = make_cost_model(a->cost);
  const int e2e_rounds = end_to_end_rounds(a->e2e_rounds, end_to_end_threads(a->cost), a->cost);
  // The time limit counts from the start (SearchOptions::started), so loading counts too.
  const double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - a->options.started).count();
  OptimizeResult r = optimize(model, db.rules, *cost, a->options);
  r.phase_seconds.load = load_seconds;
  const bool marked = a->mark_suspects && !r.suspect_rules.empty();
  if (marked) mark_suspects(dbs, r.suspect_rules, a->model);
  std::optional<EndToEndDecision> e2e;  // only what passed the check is timed
  if (e2e_rounds > 0 && r.check.passed) {
    EndToEndOptions e2e_options;
    e2e_options.rounds = e2e_rounds;
    e2e_options.threads = *end_to_end_threads(a->cost);
    e2e = accept_end_to_end(model, r, a->options, e2e_options);
  }
  int operators = model.num_operators();
  if (a->json) {
    const OptimizeRequest request{a->model, a->out, a->options, operators, marked};
    std::cout << optimize_result_json(request, r, *cost, e2e ? &*e2e : nullptr).dump(2) << "\n";
  } else {
    print_text(*a, r, *cost, operators, dbs, marked);
    if (e2e) std::cout << end_to_end_text(*e2e);
  }
  if (r.memory_full)
    std::cerr << "superopt: the search's graph copies reached the memory budget of "
              << bytes_text(memory_budget_bytes())
              << " (--max-memory): it stopped exploring and kept the best graph found\n";
  if (r.eqsat.fell_back) {
    std::cerr << "superopt: eqsat's graph failed the numerical check: the result is backtracking's; rules "
                 "involved:";
    for (const std::string& label : r.eqsat.rules_involved) std::cerr << " [" << label << "]";
    std::cerr << "\n";
  }
  if (r.check.cut_short)
    std::cerr << "superopt: --time-limit " << a->options.time_limit_s << " s ran out in the numerical check ("
              << phase_text(r.phase_seconds) << "): the input graph is the result, unchanged ("
              << r.unchecked_applications << " applications discarded unchecked)\n";
  if (r.check.inconclusive)
    std::cerr
        << "superopt: the numerical check is inconclusive (the model's outputs overflow to inf or NaN on "
           "its random values): the input graph is the result, unchanged ("
        << r.unchecked_applications << " applications discarded unchecked)\n";
  if (!r.check.passed) {
    std::cerr << "superopt: the optimized graph differs from the model (max relative error "
              << r.check.max_relative_error << "); nothing written; rules applied in order:";
    for (const std::string& label : r.rule_sequence) std::cerr << " [" << label << "]";
    std::cerr << "\n";
    return cli::kExitFailure;
  }
  if (!a->out.empty()) {
    write_model_file(a->out, r.graph, "optimized", loaded.output_names);
    if (!a->json) std::cout << "wrote " << a->out << "\n";
  }
  return cli::kExitOk;
}

}  // namespace superopt
