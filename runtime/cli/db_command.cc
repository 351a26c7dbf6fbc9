// `superopt db info|show FILE`: summarise a rule database (what generated it,
// counts by status, operator and size), or print one rule readably.
#include <array>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/error.h"
#include "runtime/db/rule_database.h"
#include "runtime/formats/graph_json.h"

namespace superopt {
namespace {

using Json = nlohmann::ordered_json;
namespace po = boost::program_options;

// What the size of a rule means in `db info`.
constexpr const char* kSizeMeaning = "source operators + target operators";

struct DbArgs {
  std::string file;
  bool json = false;
  int64_t rule = -1;
};

// Parses FILE [--rule K] [--json]; nullopt after printing help.
std::optional<DbArgs> parse_db_args(std::string_view command, const std::vector<std::string>& args,
                                    bool with_rule) {
  DbArgs a;
  std::string usage =
      "superopt db " + std::string(command) + " FILE" + (with_rule ? " --rule K" : "") + " [--json]";
  po::options_description options("options");
  options.add_options()("file", po::value(&a.file), "the rule database (HDF5)");
  if (with_rule)
    options.add_options()("rule", cli::non_negative(&a.rule, "--rule"), "index of the rule to show, from 0");
  options.add_options()("json", po::bool_switch(&a.json), "print one JSON object instead of text");
  po::positional_options_description positional;
  positional.add("file", 1);
  auto vm = cli::parse(usage, options, positional, args);
  if (!vm) return std::nullopt;
  if (a.file.empty()) throw Error("db " + std::string(command) + ": missing FILE (usage: " + usage + ")");
  if (with_rule && !vm->count("rule")) throw Error("db show: missing --rule K (usage: " + usage + ")");
  return a;
}

std::string hex(uint64_t x) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, x);
  return buf;
}

std::string padded(const std::string& s, size_t width) {
  return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

std::string dump(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

// ---------------------------------------------------------------- info

struct Summary {
  std::array<int64_t, kNumRuleStatuses> status{};
  std::map<OpType, int64_t> ops;  // rules whose source or target uses the operator
  std::map<int, int64_t> sizes;   // by kSizeMeaning
  int64_t constrained = 0;        // proven rules whose family ties sizes together
  int64_t without_family = 0;     // proven rules that state no family (older files)
};

Summary summarise(const RuleDatabase& db) {
  Summary s;
  for (const Rule& r : db.rules) {
    ++s.status[static_cast<int>(r.status)];
    if (is_proven(r.status)) {
      s.constrained += r.family && !r.family->equal.empty();
      s.without_family += !r.family;
    }
    std::set<OpType> used;
    for (const Graph* g : {&r.source, &r.target})
      for (const Node& n : g->nodes())
        if (n.op != OpType::input && n.op != OpType::weight) used.insert(n.op);
    for (OpType op : used) ++s.ops[op];
    ++s.sizes[r.source.num_operators() + r.target.num_operators()];
  }
  return s;
}

Json info_json(const std::string& file, const RuleDatabase& db, const Summary& s) {
  const RuleSetInfo& info = db.info;
  Json status = Json::object(), ops = Json::object(), sizes = Json::object(), stages = Json::array();
  for (int i = 0; i < kNumRuleStatuses; ++i)
    status[std::string(rule_status_name(RuleStatus(i)))] = s.status[i];
  for (const auto& [op, n] : s.ops) ops[std::string(op_name(op))] = n;
  for (const auto& [size, n] : s.sizes) sizes[std::to_string(size)] = n;
  for (const auto& [name, count] : info.stage_counts) stages.push_back({{"name", name}, {"count", count}});
  return {{"file", file},
          {"format", kRuleDatabaseFormat},
          {"format_version", info.format_version},
          {"generator_version", info.generator_version},
          {"arguments", info.arguments},
          {"opset", info.opset_name},
          {"max_ops", info.max_ops},
          {"seed", info.seed},
          {"stages", stages},
          {"rules", db.rules.size()},
          {"status", status},
          {"minimal_set", s.status[static_cast<int>(RuleStatus::verified)]},
          {"constrained_by_family", s.constrained},
          {"proven_without_family", s.without_family},
          {"ops", ops},
          {"size_is", kSizeMeaning},
          {"sizes", sizes}};
}

void print_counts(const std::vector<std::pair<std::string, int64_t>>& rows) {
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  for (const auto& [name, n] : rows) std::cout << "  " << padded(printable(name), width) << "  " << n << "\n";
  if (rows.empty()) std::cout << "  (none)\n";
}

void print_info(const std::string& file, const RuleDatabase& db, const Summary& s) {
  const RuleSetInfo& info = db.info;
  std::cout << "rule database " << file << "\n"
            << "format:     " << kRuleDatabaseFormat << " version " << info.format_version << "\n"
            << "generator:  " << (info.generator_version.empty() ? "-" : printable(info.generator_version))
            << "\n"
            << "arguments:  " << (info.arguments.empty() ? "-" : printable(info.arguments)) << "\n"
            << "opset:      " << (info.opset_name.empty() ? "-" : printable(info.opset_name)) << "\n"
            << "max_ops:    " << info.max_ops << "\n"
            << "seed:       " << info.seed << "\n"
            << "rules:      " << db.rules.size() << "\n\nstages:\n";
  print_counts(info.stage_counts);
  std::vector<std::pair<std::string, int64_t>> rows;
  for (int i = 0; i < kNumRuleStatuses; ++i)
    rows.push_back({std::string(rule_status_name(RuleStatus(i))), s.status[i]});
  std::cout << "\nrules by status:\n";
  print_counts(rows);
  if (s.status[static_cast<int>(RuleStatus::derived)] > 0)
    std::cout << "minimal set: " << s.status[static_cast<int>(RuleStatus::verified)]
              << " rules (verified and derived from none before them)\n";
  std::cout << "size families: " << s.constrained << " proven rules apply only where some sizes are equal";
  if (s.without_family) std::cout << "; " << s.without_family << " state none (a file from before families)";
  std::cout << "\n";
  rows.clear();
  for (const auto& [op, n] : s.ops) rows.push_back({std::string(op_name(op)), n});
  std::cout << "\nrules by operator (source or target uses it):\n";
  print_counts(rows);
  rows.clear();
  for (const auto& [size, n] : s.sizes) rows.push_back({std::to_string(size), n});
  std::cout << "\nrules by size (" << kSizeMeaning << "):\n";
  print_counts(rows);
}

int info_command(const std::vector<std::string>& args) {
  std::optional<DbArgs> a = parse_db_args("info", args, false);
  if (!a) return cli::kExitOk;
  RuleDatabase db = RuleDatabase::read(a->file);
  Summary s = summarise(db);
  if (a->json)
    std::cout << dump(info_json(a->file, db, s)) << "\n";
  else
    print_info(a->file, db, s);
  return cli::kExitOk;
}

// ---------------------------------------------------------------- show

// "name = op(inputs) params -> shape" for each node, producers first.
void print_graph(const char* title, const Graph& g) {
  int ops = g.num_operators();
  std::cout << "\n" << title << " (" << ops << (ops == 1 ? " operator" : " operators") << "):\n";
  std::vector<NodeId> order = *g.topological_order();  // read graphs are acyclic
  for (NodeId id : order) {
    const Node& n = g.node(id);
    std::string inputs;
    for (TensorRef t : n.inputs()) inputs += (inputs.empty() ? "" : ", ") + tensor_label(g, t);
    bool source = n.op == OpType::input || n.op == OpType::weight;
    std::string params = source ? "" : params_str(n.op, n.params);
    std::string shapes;
    for (int port = 0; port < n.num_outputs(); ++port)
      shapes += (port ? ", " : "") + g.shape({id, port}).str();
    std::cout << "  " << tensor_label(g, {id, 0}) << " = " << op_name(n.op) << "(" << inputs << ")"
              << (params.empty() ? "" : " " + params) << " -> " << shapes << "\n";
  }
}

Json mapping_json(const Rule& r) {
  Json list = Json::array();
  for (size_t k = 0; k < r.source.outputs().size(); ++k)
    list.push_back({{"output", k},
                    {"source", tensor_label(r.source, r.source.outputs()[k])},
                    {"target", tensor_label(r.target, r.target.outputs()[k])}});
  return list;
}

Json derivation_json(const Derivation& d) {
  Json steps = Json::array();
  for (const DerivationStep& s : d) {
    steps.push_back({{"side", s.on_target ? "target" : "source"},
                     {"rule", s.rule},
                     {"reversed", s.reversed},
                     {"site", s.site}});
    if (s.output >= 0) steps.back()["output"] = s.output;
  }
  return steps;
}

// "source side: rule 17 (target -> source) at nodes 3,4": one line per step,
// per output under a line naming the output ("output 1 (its own rule; the
// sides meet after its last step):").
void print_derivation(const RuleDatabase& db, const Derivation& d) {
  const bool per_output = !d.empty() && d.front().output >= 0;
  std::cout << "\nderivation (" << d.size() << (d.size() == 1 ? " step" : " steps")
            << (per_output
                    ? ", output by output; outputs not listed are the same computation on both sides):\n"
                    : "; the sides meet after the last):\n");
  for (size_t j = 0; j < d.size(); ++j) {
    const DerivationStep& s = d[j];
    if (s.output >= 0 && (j == 0 || d[j - 1].output != s.output))
      std::cout << "  output " << s.output << " (its own rule; the sides meet after its last step):\n";
    std::string site;
    for (int32_t n : s.site)
      if (n >= 0) site.append(site.empty() ? "" : ",").append(std::to_string(n));  // not +: GCC 12 -Wrestrict
    std::cout << (s.output >= 0 ? "    " : "  ") << (s.on_target ? "target" : "source") << " side: rule "
              << s.rule << (s.reversed ? " (target -> source)" : " (source -> target)") << " at nodes "
              << site;
    if (s.rule >= 0 && s.rule < int64_t(db.rules.size()))
      std::cout << "  [" << rule_status_name(db.rules[s.rule].status) << "]";
    std::cout << "\n";
  }
}

Json show_json(const std::string& file, const RuleDatabase& db, size_t k) {
  const Rule& r = db.rules[k];
  return {{"file", file},
          {"rule", k},
          {"rules", db.rules.size()},
          {"status", rule_status_name(r.status)},
          {"fingerprint", hex(r.fingerprint)},
          {"proof_ms", r.proof_ms},
          {"note", r.note},
          {"family", r.family ? Json(size_family_text(*r.family)) : Json(nullptr)},
          {"source_ops", r.source.num_operators()},
          {"target_ops", r.target.num_operators()},
          {"source", Json::parse(write_graph_json(r.source))},
          {"target", Json::parse(write_graph_json(r.target))},
          {"output_mapping", mapping_json(r)},
          {"derivation", derivation_json(r.derivation)}};
}

// Where the rule applies: its stated size family, in words.
std::string family_line(const Rule& r) {
  if (!r.family)
    return is_proven(r.status) ? "not stated (a file from before size families: worked out when compiled)"
                               : "-";
  if (r.family->equal.empty()) return "any sizes its operators accept";
  return size_family_text(*r.family) + " (dimensions joined by '=' have one size where it applies)";
}

void print_rule(const std::string& file, const RuleDatabase& db, size_t k) {
  const Rule& r = db.rules[k];
  std::cout << "rule " << k << " of " << db.rules.size() << " in " << file << "\n"
            << "status:       " << rule_status_name(r.status) << "\n"
            << "fingerprint:  " << hex(r.fingerprint) << "\n"
            << "proof time:   " << r.proof_ms << " ms\n"
            << "note:         " << (r.note.empty() ? "-" : printable(r.note)) << "\n"
            << "size family:  " << family_line(r) << "\n";
  print_graph("source", r.source);
  print_graph("target", r.target);
  std::cout << "\noutput mapping:\n";
  for (const Json& m : mapping_json(r))
    std::cout << "  output " << m["output"].get<size_t>() << ": source " << m["source"].get<std::string>()
              << " = target " << m["target"].get<std::string>() << "\n";
  if (!r.derivation.empty()) print_derivation(db, r.derivation);
}

int show_command(const std::vector<std::string>& args) {
  std::optional<DbArgs> a = parse_db_args("show", args, true);
  if (!a) return cli::kExitOk;
  RuleDatabase db = RuleDatabase::read(a->file);
  size_t n = db.rules.size();
  if (size_t(a->rule) >= n)
    throw Error("--rule " + std::to_string(a->rule) + ": out of range, " + a->file + " has " +
                std::to_string(n) + (n == 1 ? " rule" : " rules") +
                (n ? " (0 to " + std::to_string(n - 1) + ")" : ""));
  if (a->json)
    std::cout << dump(show_json(a->file, db, size_t(a->rule))) << "\n";
  else
    print_rule(a->file, db, size_t(a->rule));
  return cli::kExitOk;
}

}  // namespace

int db_command(const std::vector<std::string>& args, const DerivedRuleCheck& check,
               const DbSubcommand& audit) {
  const cli::Subcommand subcommands[] = {
      {"info", "what generated a rule database; rules by status, operator and size", info_command},
      {"show", "one rule: status, fingerprint, proof time, source and target graphs", show_command},
      {"check-proofs",
       "replay every stored derivation; name the first invalid step of each, and each derived rule that "
       "differs at a member of its shape family",
       [&](const std::vector<std::string>& a) { return db_check_proofs_command(a, check); }},
      {"audit",
       "check every proven rule in double at members drawn across its size family and at compensating "
       "moves (MPI pool); name each false rule with its counterexample",
       [&](const std::vector<std::string>& a) {
         if (!audit) throw Error("db audit: not available in this build");
         return audit(a);
       }},
  };
  return cli::dispatch("superopt db", subcommands, args);
}

}  // namespace superopt
