// `superopt db audit FILE`: the soundness sweep of audit.h over the verifier
// pool; rank 0 names each false rule with its counterexample.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "runtime/cli/command_line.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/error.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/audit.h"
#include "verify/progress_line.h"
#include "verify/verifier_pool.h"

namespace superopt::verify {
namespace {

std::string family_words(const Rule& r) {
  return r.family ? size_family_text(*r.family) : std::string("not stated, worked out from the rule");
}

void print_result(const std::string& path, const RuleDatabase& db, const std::map<int, std::string>& falses,
                  int64_t audited, const AuditOptions& o, int workers, double seconds, bool json) {
  if (json) {
    nlohmann::json bad = nlohmann::json::array();
    for (const auto& [k, why] : falses)
      bad.push_back({{"rule", k},
                     {"status", rule_status_name(db.rules[k].status)},
                     {"family", family_words(db.rules[k])},
                     {"counterexample", why}});
    std::cout << nlohmann::json{{"database", path}, {"audited", audited}, {"draws", o.draws},
                                {"seed", o.seed},   {"workers", workers}, {"seconds", seconds},
                                {"false", bad}}
                     .dump()
              << "\n";
    return;
  }
  for (const auto& [k, why] : falses)
    std::printf("rule %d (%s, family %s): false: %s\n", k,
                std::string(rule_status_name(db.rules[k].status)).c_str(), family_words(db.rules[k]).c_str(),
                why.c_str());
  std::printf(
      "%s: %lld proven rules audited (%d draws each way, seed %llu) on %d worker%s in %.1f s: %zu false\n",
      path.c_str(), (long long)audited, o.draws, (unsigned long long)o.seed, workers, workers == 1 ? "" : "s",
      seconds, falses.size());
}

}  // namespace

int audit_command(const std::vector<std::string>& args) {
  AuditOptions o;
  cli::po::options_description opts("options");
  opts.add_options()("database", cli::po::value<std::string>()->required(), "rule database")(
      "draws", cli::positive(&o.draws, "--draws"),
      ("members drawn per direction and kind (default " + std::to_string(o.draws) + ")").c_str())(
      "seed", cli::po::value(&o.seed), "seed of the draws (default 1)")("json", "print one JSON object");
  cli::po::positional_options_description pos;
  pos.add("database", 1);
  MpiWorld world;  // first: under mpirun every rank parses, fails or succeeds alike
  try {
    auto vm = cli::parse("superopt db audit rules.h5 [--draws 12] [--seed 1] [--json]", opts, pos, args,
                         world.rank() == 0);
    if (!vm) return cli::kExitOk;
    const std::string path = (*vm)["database"].as<std::string>();
    RuleDatabase db;
    world.on_all_ranks([&] { db = RuleDatabase::read(path); });
    std::vector<int> todo;
    for (size_t k = 0; k < db.rules.size(); ++k)
      if (is_proven(db.rules[k].status)) todo.push_back(int(k));
    const auto start = std::chrono::steady_clock::now();
    std::map<int, std::string> falses;
    ProgressLine progress("db audit", "audited", int64_t(todo.size()));
    int64_t done = 0;
    auto check = [&](int k) {
      RuleVerdict v{db.rules[k].status, 0, 0, "", {}};
      if (std::optional<std::string> why = audit_rule(db.rules[k], o))
        v = {RuleStatus::refuted, 0, 0, *why, {}};
      return v;
    };
    auto record = [&](int k, const RuleVerdict& v) {
      if (v.status == RuleStatus::refuted) falses[k] = v.note;
      progress.update(++done, ", " + std::to_string(falses.size()) + " false");
    };
    const int workers = run_verifier_pool(world, todo, check, record);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (world.rank() != 0) return cli::kExitOk;
    print_result(path, db, falses, int64_t(todo.size()), o, workers, seconds, vm->count("json"));
    return falses.empty() ? cli::kExitOk : cli::kExitFailure;
  } catch (const Error& e) {
    if (world.rank() == 0) std::cerr << "superopt db audit: " << e.what() << "\n";
    return cli::kExitUsage;
  }
}

}  // namespace superopt::verify
