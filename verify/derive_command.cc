// `superopt derive`: derives what it can of a database's rules from the proven
// ones before them, stores the derivations, and prints the minimal set's size.
// Under mpirun the ranks share the rules out (the verifier pool); rank 0 writes.
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "runtime/cli/command_line.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/error.h"
#include "runtime/core/writer_lock.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/derive.h"
#include "verify/progress_saver.h"

namespace superopt::verify {
namespace {

void print_summary(const DeriveSummary& s, const RuleDatabase& db, const std::string& path, bool json) {
  std::array<int64_t, kNumRuleStatuses> counts{};
  for (const Rule& r : db.rules) ++counts[static_cast<int>(r.status)];
  auto count = [&](RuleStatus st) { return (long long)counts[static_cast<int>(st)]; };
  if (json) {
    nlohmann::json j = {{"database", path},
                        {"rules", db.rules.size()},
                        {"tried", s.tried},
                        {"derived", s.derived},
                        {"derived_by_class_path", s.by_class_path},
                        {"derived_by_parts", s.by_parts},
                        {"derived_by_outputs", s.by_outputs},
                        {"invalidated", s.invalidated},
                        {"seconds", s.seconds},
                        {"passes", s.passes},
                        {"minimal_set", count(RuleStatus::verified)}};
    for (const auto& [steps, n] : s.by_steps) j["derived_by_steps"][std::to_string(steps)] = n;
    for (int i = 0; i < kNumRuleStatuses; ++i)
      j[std::string(rule_status_name(static_cast<RuleStatus>(i)))] = counts[i];
    std::cout << j.dump() << "\n";
    return;
  }
  std::printf(
      "%s: %zu rules: verified %lld (the minimal set), derived %lld, refuted %lld, unknown %lld, "
      "candidate %lld\n",
      path.c_str(), db.rules.size(), count(RuleStatus::verified), count(RuleStatus::derived),
      count(RuleStatus::refuted), count(RuleStatus::unknown), count(RuleStatus::candidate));
  std::printf("this run: derived %lld of %lld rules tried in %.2f s", (long long)s.derived,
              (long long)s.tried, s.seconds);
  for (const auto& [steps, n] : s.by_steps)
    std::printf("; %lld in %d step%s", (long long)n, steps, steps == 1 ? "" : "s");
  if (s.by_class_path) std::printf("; %lld along their fingerprint class", (long long)s.by_class_path);
  if (s.by_parts) std::printf("; %lld part by part", (long long)s.by_parts);
  if (s.by_outputs) std::printf("; %lld output by output", (long long)s.by_outputs);
  if (s.invalidated) std::printf("; %lld derivations dropped first", (long long)s.invalidated);
  std::printf("\n");
}

}  // namespace

int derive_command(const std::vector<std::string>& args) {
  cli::po::options_description opts("options");
  DeriveOptions o;
  o.max_steps = kMinimizeMaxSteps;
  double save_seconds = 30;
  opts.add_options()("database", cli::po::value<std::string>()->required(), "rule database")(
      "max-steps", cli::positive(&o.max_steps, "--max-steps"),
      ("rewrites per derivation (default " + std::to_string(o.max_steps) + ")").c_str())(
      "max-graphs", cli::positive(&o.max_graphs, "--max-graphs"),
      ("graphs reached from one side of a rule before giving up (default " + std::to_string(o.max_graphs) +
       ")")
          .c_str())("max-extra-ops", cli::non_negative(&o.max_extra_ops, "--max-extra-ops"),
                    ("operators an intermediate graph may have beyond the rule's larger side (default " +
                     std::to_string(o.max_extra_ops) + ")")
                        .c_str())(
      "max-class-path", cli::non_negative(&o.max_class_path, "--max-class-path"),
      ("rewrites along a rule's fingerprint class, tried before the search; 0: none (default " +
       std::to_string(o.max_class_path) + ")")
          .c_str())("save-seconds", cli::number(&save_seconds, "--save-seconds", 0.1, 86400.0),
                    "write progress this often (default 30), or 10 times as long as the last save took")(
      "json", "print the summary as one JSON object");
  cli::po::positional_options_description pos;
  pos.add("database", 1);
  // MPI first: under mpirun every rank parses, fails or succeeds alike, and only rank 0 speaks.
  MpiWorld world;
  try {
    auto vm = cli::parse(
        "superopt derive rules.h5 [--max-steps 3] [--max-graphs 256] [--max-class-path 4] [--save-seconds "
        "30] [--json]",
        opts, pos, args, world.rank() == 0);
    if (!vm) return cli::kExitOk;
    const std::string path = (*vm)["database"].as<std::string>();
    RuleDatabase db;
    // Rank 0 writes: it holds the writer's lock from before any rank reads
    // until the last write (the collective orders the two).
    std::unique_ptr<WriterLock> lock;
    world.on_all_ranks([&] {
      if (world.rank() == 0) lock = lock_existing(path);
    });
    world.on_all_ranks([&] { db = RuleDatabase::read(path); });
    // Rank 0 saves progress as results come in: a killed run keeps what it
    // derived, and a new run goes on from there.
    std::optional<ProgressSaver> saver;
    std::function<void()> recorded;
    if (world.rank() == 0) {
      saver.emplace(db, path, save_seconds);
      recorded = [&] { saver->recorded(); };
    }
    DeriveSummary s = derive_rules(db, o, &world, recorded);
    if (world.rank() != 0) return cli::kExitOk;
    db.write(path);
    print_summary(s, db, path, vm->count("json"));
    return cli::kExitOk;
  } catch (const Error& e) {
    if (world.rank() == 0) std::cerr << "superopt derive: " << e.what() << "\n";
    return cli::kExitUsage;
  }
}

}  // namespace superopt::verify
