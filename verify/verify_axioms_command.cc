// `superopt verify-axioms`: validates each axiom on small symbolic tensors and
// checks the set for redundancy; under mpirun the ranks share the work.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "runtime/cli/command_line.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/data_dir.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/axiom_redundancy.h"
#include "verify/axiom_set.h"
#include "verify/axiom_validation.h"
#include "verify/verify.h"

namespace superopt {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;
using verify::AxiomResult;
using verify::AxiomValidation;
using verify::Redundancy;
using verify::RedundancyCheck;

struct Settings {
  verify::AxiomSet axioms;
  std::vector<size_t> selected;  // indices of the axioms to check
  int max_dim = 4;
  unsigned timeout_ms = 10000;
  unsigned rlimit = 200000;
  bool redundancy = true;
  bool json = false;
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// What one rank found: its slice of every selected axiom, and the redundancy
// checks of the axioms dealt to it.
struct RankReport {
  std::vector<AxiomValidation> validations;
  std::vector<RedundancyCheck> redundancy;
  double validation_s = 0, redundancy_s = 0;
};

Json to_json(const RankReport& r) {
  Json j = {{"validation_s", r.validation_s}, {"redundancy_s", r.redundancy_s}};
  for (const AxiomValidation& v : r.validations)
    j["v"].push_back(
        {v.name, static_cast<int>(v.result), v.obligations, v.skipped, v.unknown, v.failed_at, v.note, v.ms});
  for (const RedundancyCheck& c : r.redundancy)
    j["r"].push_back({c.name, static_cast<int>(c.result), c.reason, c.from, c.ms});
  return j;
}

RankReport from_json(const Json& j) {
  RankReport r;
  r.validation_s = j["validation_s"];
  r.redundancy_s = j["redundancy_s"];
  for (const Json& e : j.value("v", Json::array()))
    r.validations.push_back(
        {e[0], static_cast<AxiomResult>(e[1].get<int>()), e[2], e[3], e[4], e[5], e[6], e[7]});
  for (const Json& e : j.value("r", Json::array()))
    r.redundancy.push_back({e[0], static_cast<Redundancy>(e[1].get<int>()), e[2], e[3], e[4]});
  return r;
}

RankReport run_rank(const Settings& s, int rank, int num_ranks) {
  RankReport report;
  Clock::time_point start = Clock::now();
  verify::AxiomValidationOptions options{s.max_dim, s.timeout_ms, rank, num_ranks};
  for (size_t i : s.selected) {
    z3::context ctx;  // one per axiom, so that no axiom's terms outlive it
    report.validations.push_back(verify::validate_axiom(ctx, s.axioms.axioms[i], options));
  }
  report.validation_s = seconds_since(start);
  start = Clock::now();
  if (s.redundancy)
    for (size_t k = static_cast<size_t>(rank); k < s.selected.size(); k += static_cast<size_t>(num_ranks)) {
      z3::context ctx;
      report.redundancy.push_back(
          verify::check_redundancy(ctx, s.axioms, s.selected[k], s.timeout_ms, s.rlimit));
    }
  report.redundancy_s = seconds_since(start);
  return report;
}

// Every rank's report, on every rank (each rank in turn broadcasts its own).
std::vector<RankReport> gather(const MpiWorld& world, const RankReport& mine) {
  std::vector<RankReport> all;
  const std::string text = to_json(mine).dump();
  for (int r = 0; r < world.size(); ++r)
    all.push_back(from_json(Json::parse(world.broadcast(r == world.rank() ? text : std::string(), r))));
  return all;
}

struct Summary {
  std::vector<AxiomValidation> validations;  // selected order
  std::vector<RedundancyCheck> redundancy;   // selected order
  int64_t obligations = 0, skipped = 0;
  int passed = 0, failed = 0, unknown = 0;
  double validation_s = 0, redundancy_s = 0, wall_s = 0;
  int ranks = 1;
};

Summary summarise(const Settings& s, const std::vector<RankReport>& reports) {
  Summary sum;
  sum.ranks = static_cast<int>(reports.size());
  for (size_t k = 0; k < s.selected.size(); ++k) {
    std::vector<AxiomValidation> parts;
    for (const RankReport& r : reports) parts.push_back(r.validations[k]);
    sum.validations.push_back(verify::merge_slices(parts));
    const AxiomValidation& v = sum.validations.back();
    sum.obligations += v.obligations;
    sum.skipped += v.skipped;
    sum.passed += v.result == AxiomResult::passed;
    sum.failed += v.result == AxiomResult::failed;
    sum.unknown += v.result == AxiomResult::unknown;
    if (s.redundancy) {
      const RankReport& owner = reports[k % reports.size()];
      sum.redundancy.push_back(owner.redundancy[k / reports.size()]);
    }
  }
  for (const RankReport& r : reports) {
    sum.validation_s = std::max(sum.validation_s, r.validation_s);
    sum.redundancy_s = std::max(sum.redundancy_s, r.redundancy_s);
  }
  return sum;
}

std::vector<std::string> names_with(const std::vector<RedundancyCheck>& checks, Redundancy result) {
  std::vector<std::string> names;
  for (const RedundancyCheck& c : checks)
    if (c.result == result) names.push_back(c.name);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

void print_text(const Settings& s, const Summary& sum) {
  std::printf("%s: %zu axioms, dimensions 1..%d, %d rank%s\n", s.axioms.source.c_str(), s.selected.size(),
              s.max_dim, sum.ranks, sum.ranks == 1 ? "" : "s");
  for (const AxiomValidation& v : sum.validations) {
    std::printf("  %-26s %-8s obligations %7lld  skipped %8lld  %10.1f ms\n", v.name.c_str(),
                std::string(axiom_result_name(v.result)).c_str(), (long long)v.obligations,
                (long long)v.skipped, v.ms);
    if (!v.note.empty())
      std::printf("    %s %s\n", v.result == AxiomResult::failed ? "fails" : "unknown:", v.note.c_str());
  }
  std::printf(
      "validation: %d passed, %d FAILED, %d unknown; %lld obligations, %lld assignments skipped; %.2f s\n",
      sum.passed, sum.failed, sum.unknown, (long long)sum.obligations, (long long)sum.skipped,
      sum.validation_s);
  if (s.redundancy) {
    std::printf("redundancy: %zu redundant (entailed by the others)\n",
                names_with(sum.redundancy, Redundancy::redundant).size());
    for (const RedundancyCheck& c : sum.redundancy)
      if (c.result == Redundancy::redundant)
        std::printf("  %s follows from %s\n", c.name.c_str(), joined(c.from).c_str());
    std::printf("  %zu independent, %zu undecided (out of time or resources): %s; %.2f s\n",
                names_with(sum.redundancy, Redundancy::independent).size(),
                names_with(sum.redundancy, Redundancy::undecided).size(),
                joined(names_with(sum.redundancy, Redundancy::undecided)).c_str(), sum.redundancy_s);
  }
  std::printf("wall time: %.2f s\n", sum.wall_s);
}

void print_json(const Settings& s, const Summary& sum) {
  Json j = {{"axioms_file", s.axioms.source}, {"max_dim", s.max_dim}, {"ranks", sum.ranks}};
  j["axioms"] = Json::array();
  for (const AxiomValidation& v : sum.validations)
    j["axioms"].push_back(
        {{"name", v.name},
         {"result", v.result == AxiomResult::failed ? "failed" : axiom_result_name(v.result)},
         {"obligations", v.obligations},
         {"skipped", v.skipped},
         {"unknown", v.unknown},
         {"note", v.note},
         {"ms", v.ms}});
  j["totals"] = {{"axioms", sum.validations.size()},
                 {"passed", sum.passed},
                 {"failed", sum.failed},
                 {"unknown", sum.unknown},
                 {"obligations", sum.obligations},
                 {"skipped", sum.skipped},
                 {"validation_seconds", sum.validation_s}};
  if (s.redundancy) {
    j["redundant"] = names_with(sum.redundancy, Redundancy::redundant);
    for (const RedundancyCheck& c : sum.redundancy)
      if (c.result == Redundancy::redundant) j["redundant_from"][c.name] = c.from;
    j["independent"] = names_with(sum.redundancy, Redundancy::independent);
    j["undecided"] = names_with(sum.redundancy, Redundancy::undecided);
    j["redundancy_seconds"] = sum.redundancy_s;
  }
  j["wall_seconds"] = sum.wall_s;
  std::cout << j.dump() << "\n";
}

std::vector<size_t> select(const verify::AxiomSet& axioms, const std::string& only) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < axioms.axioms.size(); ++i)
    if (only.empty() || axioms.axioms[i].name == only) selected.push_back(i);
  if (selected.empty()) throw Error("--only " + only + ": no such axiom in " + axioms.source);
  return selected;
}

}  // namespace

int verify_axioms_command(const std::vector<std::string>& args) {
  Settings s;
  // Before any option value exists: a missing data folder throws here, and an
  // option value not yet handed to `opts` would leak.
  const std::string default_axioms = axiom_dir() + "/taso.ax";
  cli::po::options_description opts("options");
  opts.add_options()("axioms", cli::po::value<std::string>()->default_value(default_axioms), "axiom file")(
      "max-dim", cli::number(&s.max_dim, "--max-dim", 1, 8),
      "dimension variables range over 1..N (default 4)")("timeout-ms",
                                                         cli::positive(&s.timeout_ms, "--timeout-ms"),
                                                         "wall-clock limit per Z3 query (default 10000)")(
      "rlimit", cli::non_negative(&s.rlimit, "--rlimit"),
      "Z3 resource limit per redundancy query (0: none; default 200000)")(
      "only", cli::po::value<std::string>(), "check this axiom only")(
      "no-redundancy", "skip the redundancy check")("json", "print one JSON object");
  MpiWorld world;
  try {
    auto vm = cli::parse(
        "superopt verify-axioms [--axioms FILE] [--max-dim N] [--timeout-ms T] [--only NAME] "
        "[--no-redundancy] [--json]",
        opts, {}, args, world.rank() == 0);
    if (!vm) return cli::kExitOk;
    Clock::time_point start = Clock::now();
    // A runaway E-matching loop can take tens of gigabytes before a timeout
    // stops it: Z3 gives up at this size instead (the query is undecided).
    z3::set_param("memory_max_size", 4096);
    s.redundancy = !vm->count("no-redundancy");
    s.json = vm->count("json") > 0;
    world.on_all_ranks([&] {
      s.axioms = verify::read_axiom_file((*vm)["axioms"].as<std::string>());
      s.selected = select(s.axioms, vm->count("only") ? (*vm)["only"].as<std::string>() : "");
    });
    Summary sum = summarise(s, gather(world, run_rank(s, world.rank(), world.size())));
    sum.wall_s = seconds_since(start);
    if (world.rank() == 0) (s.json ? print_json : print_text)(s, sum);
    return sum.failed ? cli::kExitFailure : cli::kExitOk;
  } catch (const Error& e) {
    if (world.rank() == 0) std::cerr << "superopt verify-axioms: " << e.what() << "\n";
    return cli::kExitUsage;
  }
}

}  // namespace superopt
