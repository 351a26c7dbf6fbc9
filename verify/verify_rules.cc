// verify_rules(): the run behind `superopt verify` (see verify.h): which rules
// to decide, the verifier pool over the MPI ranks, and the periodic saves.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>

#include "runtime/core/error.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/rule_verifier.h"
#include "verify/verifier_pool.h"
#include "verify/verify.h"

namespace superopt {
namespace {

using Clock = std::chrono::steady_clock;
using verify::RuleVerdict;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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

// Unknown rules are tried again (a later run may have more time or axioms);
// verified and refuted ones are settled.
std::vector<int> undecided_rules(const RuleDatabase& db) {
  std::vector<int> todo;
  for (int i = 0; i < static_cast<int>(db.rules.size()); ++i)
    if (db.rules[i].status == RuleStatus::candidate || db.rules[i].status == RuleStatus::unknown)
      todo.push_back(i);
  return todo;
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

// A rule the encoding cannot express stays unknown rather than ending the run.
RuleVerdict decide(verify::RuleVerifier& verifier, const Rule& rule) {
  try {
    return verifier.verify(rule);
  } catch (const Error& e) {
    return RuleVerdict{RuleStatus::unknown, 0, std::string("cannot be encoded: ") + e.what()};
  }
}

// Rank 0's side: writes each verdict into the database as it arrives and saves
// it every save_seconds, so that a preempted job loses little work.
class VerdictRecorder {
 public:
  VerdictRecorder(RuleDatabase& db, const VerifyOptions& options, Clock::time_point start)
      : db_(db), options_(options), exit_after_(exit_after_rules()), saved_(start) {}

  void record(int i, const RuleVerdict& v) {
    Rule& r = db_.rules[i];
    r.status = v.status;
    r.proof_ms = v.ms;
    r.note = v.note;
    rule_ms_.push_back(v.ms);
    if (static_cast<int64_t>(rule_ms_.size()) == exit_after_) {
      db_.write(options_.save_path);
      _exit(3);
    }
    if (seconds_since(saved_) >= options_.save_seconds) {
      db_.write(options_.save_path);
      saved_ = Clock::now();
    }
  }

  const std::vector<double>& rule_ms() const { return rule_ms_; }

 private:
  RuleDatabase& db_;
  const VerifyOptions& options_;
  const int64_t exit_after_;
  Clock::time_point saved_;
  std::vector<double> rule_ms_;  // one per verdict
};

VerifySummary summarize(const RuleDatabase& db, const std::vector<double>& rule_ms) {
  VerifySummary s;
  s.rules = static_cast<int64_t>(db.rules.size());
  for (const Rule& r : db.rules) ++s.counts[static_cast<int>(r.status)];
  s.checked = static_cast<int64_t>(rule_ms.size());
  s.median_ms = percentile(rule_ms, 0.5);
  s.p95_ms = percentile(rule_ms, 0.95);
  return s;
}

}  // namespace

VerifySummary verify_rules(RuleDatabase& db, const verify::AxiomSet& axioms, const VerifyOptions& options) {
  const MpiWorld world;  // MPI is already running: the caller started it
  world.on_all_ranks([&] { check_axioms_cover(db, axioms); });
  const std::vector<int> todo = undecided_rules(db);
  verify::VerifyLimits limits;
  limits.timeout_ms = options.timeout_ms;
  limits.proof_rlimit = options.proof_rlimit;
  verify::RuleVerifier verifier(axioms, limits);
  const Clock::time_point start = Clock::now();
  VerdictRecorder recorder(db, options, start);
  const int workers = verify::run_verifier_pool(
      world, todo, [&](int i) { return decide(verifier, db.rules[i]); },
      [&](int i, const RuleVerdict& v) { recorder.record(i, v); });
  const double wall_seconds = seconds_since(start);
  if (world.rank() == 0 && !todo.empty()) db.write(options.save_path);
  VerifySummary s = summarize(db, recorder.rule_ms());
  s.workers = workers;
  s.wall_seconds = wall_seconds;
  return s;
}

}  // namespace superopt
