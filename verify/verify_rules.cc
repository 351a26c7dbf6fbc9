// verify_rules(): the run behind `superopt verify` (see verify.h): which rules
// to decide, size by size in waves (waves.h), derived where the rules proven
// before the wave allow and by the verifier pool over the MPI ranks otherwise,
// and the periodic saves.

#include <algorithm>
#include <chrono>
#include <set>

#include "runtime/core/error.h"
#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/derivation.h"
#include "runtime/rewrite/rule_index.h"
#include "verify/progress_line.h"
#include "verify/progress_saver.h"
#include "verify/rule_validation.h"
#include "verify/rule_verifier.h"
#include "verify/verifier_pool.h"
#include "verify/verify.h"
#include "verify/waves.h"

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

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// A rule the encoding cannot express stays unknown rather than ending the run.
RuleVerdict decide(verify::RuleVerifier& verifier, const Rule& rule) {
  try {
    return verifier.verify(rule);
  } catch (const Error& e) {
    RuleVerdict verdict;
    verdict.note = std::string("cannot be encoded: ") + e.what();
    return verdict;
  }
}

// Rank 0's side: writes each verdict into the database as it arrives; the
// saver saves it now and then.
class VerdictRecorder {
 public:
  VerdictRecorder(RuleDatabase& db, const VerifyOptions& options, int64_t to_decide)
      : db_(db),
        saver_(db, options.save_path, options.save_seconds),
        progress_("verify", "decided", to_decide) {}

  void record(int i, const RuleVerdict& v) {
    Rule& r = db_.rules[i];
    r.status = v.status;
    r.proof_ms = v.ms;
    r.note = v.note;
    r.derivation = v.derivation;
    r.family = is_proven(v.status) ? v.family : std::nullopt;
    rule_ms_.push_back(v.ms);
    if (v.status == RuleStatus::derived) {
      ++derived_;
      if (v.note == verify::kClassPathNote) ++derived_by_class_path_;
      if (v.note == verify::kPartsNote) ++derived_by_parts_;
      if (v.note == verify::kPerOutputNote) ++derived_by_outputs_;
      if (uses_own_size(r)) ++derived_same_size_;
    } else
      z3_ms_.push_back(v.ms);
    if (v.proof_ms > 0) proof_ms_.push_back(v.proof_ms);
    saver_.recorded();
    progress_.update(static_cast<int64_t>(rule_ms_.size()),
                     " (" + std::to_string(derived_) + " derived, " +
                         std::to_string(static_cast<int64_t>(rule_ms_.size()) - derived_) + " by Z3)");
  }

  const std::vector<double>& rule_ms() const { return rule_ms_; }
  const std::vector<double>& z3_ms() const { return z3_ms_; }
  const std::vector<double>& proof_ms() const { return proof_ms_; }
  int64_t derived() const { return derived_; }
  int64_t derived_same_size() const { return derived_same_size_; }
  int64_t derived_by_class_path() const { return derived_by_class_path_; }
  int64_t derived_by_parts() const { return derived_by_parts_; }
  int64_t derived_by_outputs() const { return derived_by_outputs_; }

 private:
  // Whether r's derivation uses a rule of r's own size: one an earlier wave proved.
  bool uses_own_size(const Rule& r) const {
    for (const DerivationStep& step : r.derivation)
      if (db_.rules[step.rule].num_operators() == r.num_operators()) return true;
    return false;
  }

  RuleDatabase& db_;
  verify::ProgressSaver saver_;
  verify::ProgressLine progress_;  // every 10 s: at 4 operators a run takes the better part of an hour
  std::vector<double> rule_ms_;    // one per verdict
  std::vector<double> z3_ms_;      // one per verdict not by derivation
  std::vector<double> proof_ms_;   // one per proof Z3 ran
  int64_t derived_ = 0;
  int64_t derived_same_size_ = 0;      // of derived_: using a rule of the same size
  int64_t derived_by_class_path_ = 0;  // of derived_: along the rule's fingerprint class
  int64_t derived_by_parts_ = 0;       // of derived_: part by part (rule_parts.h)
  int64_t derived_by_outputs_ = 0;     // of derived_: output by output (derive_by_outputs)
};

VerifySummary summarize(const RuleDatabase& db, const VerdictRecorder& recorder) {
  VerifySummary s;
  s.rules = static_cast<int64_t>(db.rules.size());
  for (const Rule& r : db.rules) ++s.counts[static_cast<int>(r.status)];
  s.checked = static_cast<int64_t>(recorder.rule_ms().size());
  s.derived = recorder.derived();
  s.derived_same_size = recorder.derived_same_size();
  s.derived_by_class_path = recorder.derived_by_class_path();
  s.derived_by_parts = recorder.derived_by_parts();
  s.derived_by_outputs = recorder.derived_by_outputs();
  s.median_ms = percentile(recorder.rule_ms(), 0.5);
  s.p95_ms = percentile(recorder.rule_ms(), 0.95);
  s.z3_median_ms = percentile(recorder.z3_ms(), 0.5);
  s.z3_p95_ms = percentile(recorder.z3_ms(), 0.95);
  s.proof_median_ms = percentile(recorder.proof_ms(), 0.5);
  return s;
}

// A derivation from the proven rules in `proven`, else the verifier's verdict.
// A derivation replays at the rule's own shapes only, so the rule must also
// agree at the members of its family (family_difference); one that does not
// goes to validation, which refutes it.
RuleVerdict derive_or_decide(verify::RuleVerifier& verifier, const Rule& rule,
                             const verify::ProvenRules* proven, const verify::DeriveOptions& bounds) {
  if (proven) {
    const Clock::time_point start = Clock::now();
    std::optional<verify::FoundDerivation> d = verify::derive_rule(rule, *proven, bounds);
    if (d) {
      const std::vector<verify::RuleFamily> families = verify::rule_families(rule);
      if (!verify::family_difference_in(rule, families)) {
        RuleVerdict v{RuleStatus::derived, seconds_since(start) * 1000, 0, d->note, std::move(d->steps)};
        // A candidate compiles without a family: its classes are what size_family_of finds.
        if (!rule.family && !is_proven(rule.status)) v.family = verify::stated_family(families);
        return verify::with_family(std::move(v), rule);
      }
    }
  }
  return verify::with_family(decide(verifier, rule), rule);
}

// Proven rules without a size family (a file from before families) go back to
// candidates: their proofs never said for which sizes they hold.
int64_t reset_without_family(std::vector<Rule>& rules) {
  int64_t reset = 0;
  for (Rule& r : rules)
    if (is_proven(r.status) && !r.family) {
      r.status = RuleStatus::candidate;
      r.derivation.clear();
      r.note.clear();
      ++reset;
    }
  return reset;
}

// Without derivation a wave gains nothing: one per size.
int wave_rules_for(const VerifyOptions& options) {
  return options.derive_first ? options.wave_rules : 0;
}

}  // namespace

VerifySummary verify_rules(RuleDatabase& db, const verify::AxiomSet& axioms, const VerifyOptions& options) {
  const MpiWorld world;  // MPI is already running: the caller started it
  world.on_all_ranks([&] { check_axioms_cover(db, axioms); });
  const int64_t without_family = reset_without_family(db.rules);
  // A derivation proves a rule at its own shapes only, and a rule verified
  // before validation drew some members may be false at them: both are
  // checked over their family first (the verified ones on request).
  const Clock::time_point recheck_start = Clock::now();
  const verify::RecheckSummary recheck = verify::recheck_families(world, db.rules, options.revalidate);
  const double recheck_seconds = seconds_since(recheck_start);
  // A derivation through a rule that is no longer proven is no proof: decided again.
  invalidate_broken_derivations(db.rules);
  const std::vector<int> order = verify::derivation_sequence(db.rules);
  // A worker is done with a rule once it is indexed (below).
  const bool release = verify::pool_releases_graphs(world, db);
  verify::VerifyLimits limits;
  limits.timeout_ms = options.timeout_ms;
  limits.proof_rlimit = options.proof_rlimit;
  verify::RuleVerifier verifier(axioms, limits);
  const Clock::time_point start = Clock::now();
  const std::vector<verify::Wave> waves = verify::undecided_waves(db.rules, order, wave_rules_for(options));
  int64_t to_decide = 0;
  for (const verify::Wave& wave : waves) to_decide += static_cast<int64_t>(wave.todo.size());
  VerdictRecorder recorder(db, options, to_decide);
  verify::ProvenRules proven;  // the proven rules before the current wave, in derivation order
  size_t indexed = 0;          // rules of `order` looked at for `proven`
  int workers = world.size() == 1 ? 1 : world.size() - 1;
  bool any = false;
  // Each wave is derived from every rule proven before it (smaller sizes and
  // the earlier waves of its size), and share_results gives every rank the
  // same statuses, so every rank grows the same index whatever the rank count.
  for (const verify::Wave& wave : waves) {
    // Built only where derivations are tried: not without derivation, and not
    // on rank 0 of a pool, which only hands rules out (at 4 operators the
    // index is about 1.7 GB a rank).
    const bool attempts = world.size() == 1 || world.rank() != 0;
    for (; options.derive_first && attempts && indexed < wave.first_position; ++indexed) {
      const int k = order[indexed];
      if (is_proven(db.rules[k].status)) proven.add(db.rules[k], k);
      // Decided, and indexed if proven: no later wave looks at its graphs.
      if (release) db.release_graphs(size_t(k));
    }
    const verify::ProvenRules* from = options.derive_first ? &proven : nullptr;
    workers = verify::run_verifier_pool(
        world, wave.todo,
        [&](int i) { return derive_or_decide(verifier, db.rules[i], from, options.derive); },
        [&](int i, const RuleVerdict& v) { recorder.record(i, v); });
    verify::share_results(&world, db.rules, wave.todo);
    any = true;
  }
  const double wall_seconds = seconds_since(start);
  if (world.rank() == 0 && (any || recheck.refuted || without_family)) db.write(options.save_path);
  VerifySummary s = summarize(db, recorder);
  s.recheck = recheck;
  s.recheck_seconds = recheck_seconds;
  s.redecided_without_family = without_family;
  s.workers = workers;
  s.wall_seconds = wall_seconds;
  return s;
}

}  // namespace superopt
