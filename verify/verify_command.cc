// `superopt verify`: decides the undecided rules of a database with the verifier
// pool and writes their statuses back atomically, now and then and at the end.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/cli/command_line.h"
#include "runtime/core/data_dir.h"
#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/axiom_set.h"
#include "verify/rule_verifier.h"
#include "verify/verifier_pool.h"
#include "verify/verify.h"

namespace superopt {
namespace {

using Clock = std::chrono::steady_clock;
using verify::RuleVerdict;

// Every operator of every rule must be one the axioms speak of: otherwise no
// rule with it could ever be proved, and the axiom file is the wrong one.
void check_axioms_cover(const RuleDatabase& db, const verify::AxiomSet& axioms) {
  std::set<OpType> missing;
  for (OpType op : db.operators_used())
    if (op != OpType::input && op != OpType::weight && !axioms.mentions(op)) missing.insert(op);
  if (missing.empty()) return;
  std::string names;
  for (OpType op : missing) names += (names.empty() ? "" : ", ") + std::string(op_name(op));
  throw Error("the axioms in " + axioms.source + " never mention " + names + ", which the rules use");
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// A test hook: SUPEROPT_TEST_EXIT_AFTER_RULES=N makes rank 0 save the database
// and die abruptly after N verdicts, as a preempted job would.
int64_t exit_after_rules() {
  const char* v = std::getenv("SUPEROPT_TEST_EXIT_AFTER_RULES");
  return v ? std::atoll(v) : -1;
}

struct RunStats {
  int64_t checked = 0;
  int workers = 1;
  double wall_s = 0;
  std::vector<double> rule_ms;
};

void print_summary(const RuleDatabase& db, const std::string& path, const RunStats& s, bool json) {
  std::array<int64_t, kNumRuleStatuses> counts{};
  for (const Rule& r : db.rules) ++counts[static_cast<int>(r.status)];
  if (json) {
    nlohmann::json j = {{"database", path},
                        {"rules", db.rules.size()},
                        {"checked", s.checked},
                        {"workers", s.workers},
                        {"wall_seconds", s.wall_s},
                        {"median_ms", percentile(s.rule_ms, 0.5)},
                        {"p95_ms", percentile(s.rule_ms, 0.95)}};
    for (int i = 0; i < kNumRuleStatuses; ++i)
      j[std::string(rule_status_name(static_cast<RuleStatus>(i)))] = counts[i];
    std::cout << j.dump() << "\n";
    return;
  }
  std::printf("%s: %zu rules: verified %lld, refuted %lld, unknown %lld, candidate %lld\n", path.c_str(),
              db.rules.size(), (long long)counts[1], (long long)counts[2], (long long)counts[3],
              (long long)counts[0]);
  std::printf("this run: %lld rules on %d worker%s in %.2f s; per rule median %.2f ms, p95 %.2f ms\n",
              (long long)s.checked, s.workers, s.workers == 1 ? "" : "s", s.wall_s,
              percentile(s.rule_ms, 0.5), percentile(s.rule_ms, 0.95));
}

}  // namespace

int verify_command(const std::vector<std::string>& args) {
  cli::po::options_description opts("options");
  opts.add_options()("database", cli::po::value<std::string>()->required(), "rule database to verify")(
      "axioms", cli::po::value<std::string>()->default_value(axiom_dir() + "/taso.ax"), "axiom file")(
      "timeout-ms", cli::po::value<unsigned>()->default_value(10000), "wall-clock limit per Z3 query")(
      "rlimit", cli::po::value<unsigned>()->default_value(20000),
      "Z3 resource limit per proof (deterministic; 0: none)")(
      "save-seconds", cli::po::value<double>()->default_value(30), "write progress this often")(
      "json", "print the summary as one JSON object");
  cli::po::positional_options_description pos;
  pos.add("database", 1);
  MpiWorld world;
  try {
    auto vm = cli::parse("superopt verify rules.h5 [--axioms FILE] [--timeout-ms T] [--rlimit R] [--json]",
                         opts, pos, args, world.rank() == 0);
    if (!vm) return cli::kExitOk;
    const std::string path = (*vm)["database"].as<std::string>();
    RuleDatabase db;
    verify::AxiomSet axioms;
    world.on_all_ranks([&] {
      db = RuleDatabase::read(path);
      axioms = verify::read_axiom_file((*vm)["axioms"].as<std::string>());
      check_axioms_cover(db, axioms);
    });
    std::vector<int> todo;
    for (int i = 0; i < static_cast<int>(db.rules.size()); ++i)
      if (db.rules[i].status == RuleStatus::candidate || db.rules[i].status == RuleStatus::unknown)
        todo.push_back(i);

    verify::VerifyLimits limits;
    limits.timeout_ms = (*vm)["timeout-ms"].as<unsigned>();
    limits.proof_rlimit = (*vm)["rlimit"].as<unsigned>();
    verify::RuleVerifier verifier(axioms, limits);
    const double save_s = (*vm)["save-seconds"].as<double>();
    const int64_t exit_after = exit_after_rules();
    RunStats stats;
    Clock::time_point start = Clock::now(), saved = start;
    auto record = [&](int i, const RuleVerdict& v) {
      Rule& r = db.rules[i];
      r.status = v.status;
      r.proof_ms = v.ms;
      r.note = v.note;
      stats.rule_ms.push_back(v.ms);
      ++stats.checked;
      if (stats.checked == exit_after) {
        db.write(path);
        _exit(3);
      }
      if (std::chrono::duration<double>(Clock::now() - saved).count() >= save_s) {
        db.write(path);
        saved = Clock::now();
      }
    };
    auto decide = [&](int i) {
      try {
        return verifier.verify(db.rules[i]);
      } catch (const Error& e) {
        return RuleVerdict{RuleStatus::unknown, 0, std::string("cannot be encoded: ") + e.what()};
      }
    };
    stats.workers = verify::run_verifier_pool(world, todo, decide, record);
    stats.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (world.rank() != 0) return cli::kExitOk;
    if (!todo.empty()) db.write(path);
    print_summary(db, path, stats, vm->count("json") > 0);
    return cli::kExitOk;
  } catch (const Error& e) {
    if (world.rank() == 0) std::cerr << "superopt verify: " << e.what() << "\n";
    return cli::kExitUsage;
  }
}

}  // namespace superopt
