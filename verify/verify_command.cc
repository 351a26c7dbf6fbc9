// `superopt verify`: options, reading the database and the axioms, and the
// summary rank 0 prints; verify_rules() (verify_rules.cc) does the work.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "runtime/cli/command_line.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/data_dir.h"
#include "runtime/core/writer_lock.h"
#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/axiom_set.h"
#include "verify/verify.h"

namespace superopt {
namespace {

void print_json(const VerifySummary& s, const std::string& path) {
  nlohmann::json j = {{"database", path},
                      {"rules", s.rules},
                      {"checked", s.checked},
                      {"workers", s.workers},
                      {"wall_seconds", s.wall_seconds},
                      {"median_ms", s.median_ms},
                      {"p95_ms", s.p95_ms},
                      {"derived_this_run", s.derived},
                      {"derived_from_same_size", s.derived_same_size},
                      {"derived_by_class_path", s.derived_by_class_path},
                      {"derived_by_parts", s.derived_by_parts},
                      {"derived_by_outputs", s.derived_by_outputs},
                      {"z3_median_ms", s.z3_median_ms},
                      {"z3_p95_ms", s.z3_p95_ms},
                      {"proof_median_ms", s.proof_median_ms},
                      {"rechecked", s.recheck.checked},
                      {"recheck_seconds", s.recheck_seconds},
                      {"recheck_refuted", s.recheck.refuted},
                      {"recheck_invalidated", s.recheck.invalidated},
                      {"redecided_without_family", s.redecided_without_family}};
  for (int i = 0; i < kNumRuleStatuses; ++i)
    j[std::string(rule_status_name(static_cast<RuleStatus>(i)))] = s.counts[i];
  std::cout << j.dump() << "\n";
}

void print_text(const VerifySummary& s, const std::string& path) {
  const auto count = [&](RuleStatus status) { return (long long)s.counts[static_cast<int>(status)]; };
  std::printf("%s: %lld rules: verified %lld, derived %lld, refuted %lld, unknown %lld, candidate %lld\n",
              path.c_str(), (long long)s.rules, count(RuleStatus::verified), count(RuleStatus::derived),
              count(RuleStatus::refuted), count(RuleStatus::unknown), count(RuleStatus::candidate));
  std::printf("this run: %lld rules on %d worker%s in %.2f s; per rule median %.2f ms, p95 %.2f ms\n",
              (long long)s.checked, s.workers, s.workers == 1 ? "" : "s", s.wall_seconds, s.median_ms,
              s.p95_ms);
  std::printf(
      "derived %lld of them (%lld using rules of their own size, %lld along their fingerprint class, %lld "
      "part by part, %lld output by output); the "
      "other %lld: median %.2f ms, p95 %.2f "
      "ms (validation and proof; "
      "the proof alone: median %.2f ms)\n",
      (long long)s.derived, (long long)s.derived_same_size, (long long)s.derived_by_class_path,
      (long long)s.derived_by_parts, (long long)s.derived_by_outputs, (long long)(s.checked - s.derived),
      s.z3_median_ms, s.z3_p95_ms, s.proof_median_ms);
  std::printf(
      "re-checked %lld stored verdicts over their shape family in %.2f s: %lld refuted, %lld derivations "
      "dropped and decided again\n",
      (long long)s.recheck.checked, s.recheck_seconds, (long long)s.recheck.refuted,
      (long long)s.recheck.invalidated);
  if (s.redecided_without_family > 0)
    std::printf(
        "decided again %lld proven rules stored without a size family (a file from before families)\n",
        (long long)s.redecided_without_family);
}

}  // namespace

int verify_command(const std::vector<std::string>& args) {
  VerifyOptions o;
  // Before any option value exists: a missing data folder throws here, and an
  // option value not yet handed to `opts` would leak.
  const std::string default_axioms = axiom_dir() + "/taso.ax";
  cli::po::options_description opts("options");
  opts.add_options()("database", cli::po::value(&o.save_path)->required(), "rule database to verify")(
      "axioms", cli::po::value<std::string>()->default_value(default_axioms), "axiom file")(
      "timeout-ms", cli::positive(&o.timeout_ms, "--timeout-ms"),
      "wall-clock limit per Z3 query (default 10000)")(
      "rlimit", cli::non_negative(&o.proof_rlimit, "--rlimit"),
      "Z3 resource limit per proof (deterministic; 0: none; default 200000)")(
      "save-seconds", cli::number(&o.save_seconds, "--save-seconds", 0.1, 86400.0),
      "write progress this often (default 30), or 10 times as long as the last save took")(
      "redecide", "decide every rule again, verified and refuted ones too (after a verifier change)")(
      "revalidate",
      "run the concrete checks over the shape family on every verified rule too (derived ones always); "
      "refute those that fail, and decide again the rules derived from them")(
      "no-derive", "ask Z3 about every rule, without deriving from the smaller proven rules first")(
      "wave-rules", cli::non_negative(&o.wave_rules, "--wave-rules"),
      "rules of one size decided before the next ones may derive from them (default 0: a whole size)")(
      "max-steps", cli::positive(&o.derive.max_steps, "--max-steps"), "rewrites per derivation (default 2)")(
      "max-graphs", cli::positive(&o.derive.max_graphs, "--max-graphs"),
      "graphs reached from one side of a rule before giving up on a derivation (default 256)")(
      "max-class-path", cli::non_negative(&o.derive.max_class_path, "--max-class-path"),
      ("rewrites along a rule's fingerprint class, tried before the search; 0: none (default " +
       std::to_string(o.derive.max_class_path) + ")")
          .c_str())("json", "print the summary as one JSON object");
  cli::po::positional_options_description pos;
  pos.add("database", 1);
  // MPI first: under mpirun every rank parses, fails or succeeds alike, and only rank 0 speaks.
  MpiWorld world;
  try {
    auto vm = cli::parse(
        "superopt verify rules.h5 [--axioms FILE] [--timeout-ms T] [--rlimit R] [--redecide] [--no-derive] "
        "[--wave-rules N] [--revalidate] [--json]",
        opts, pos, args, world.rank() == 0);
    if (!vm) return cli::kExitOk;
    o.derive_first = !vm->count("no-derive");
    o.revalidate = vm->count("revalidate");
    RuleDatabase db;
    verify::AxiomSet axioms;
    // Rank 0 writes: it holds the writer's lock from before any rank reads
    // until the last write (the collective below orders the two).
    std::unique_ptr<WriterLock> lock;
    world.on_all_ranks([&] {
      if (world.rank() == 0) lock = lock_existing(o.save_path);
    });
    world.on_all_ranks([&] {
      db = RuleDatabase::read(o.save_path);
      axioms = verify::read_axiom_file((*vm)["axioms"].as<std::string>());
    });
    // Every rule undecided again: the saves during the run keep this, so an
    // interrupted run resumes (without --redecide) where it stopped.
    if (vm->count("redecide"))
      for (Rule& r : db.rules) {
        r.status = RuleStatus::candidate;
        r.derivation.clear();
      }
    const VerifySummary s = verify_rules(db, axioms, o);
    if (world.rank() != 0) return cli::kExitOk;
    if (vm->count("json"))
      print_json(s, o.save_path);
    else
      print_text(s, o.save_path);
    return cli::kExitOk;
  } catch (const Error& e) {
    if (world.rank() == 0) std::cerr << "superopt verify: " << e.what() << "\n";
    return cli::kExitUsage;
  }
}

}  // namespace superopt
