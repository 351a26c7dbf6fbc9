// The verifier's public face: verify_rules() decides a database's undecided
// rules from the axioms; the `verify` and `verify-axioms` commands.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"
#include "verify/axiom_set.h"
#include "verify/derive.h"
#include "verify/family_recheck.h"

namespace superopt {

struct VerifyOptions {
  std::string save_path;           // where rank 0 writes the database: progress and the result
  unsigned timeout_ms = 10000;     // wall clock per Z3 query
  unsigned proof_rlimit = 200000;  // Z3's deterministic resource limit per proof; 0: none
  double save_seconds = 30;        // write progress this often (or 10x the last save's time)
  // Derive first: a rule that a short chain of proven smaller rules proves is
  // `derived`, and Z3 is asked only about the others.
  bool derive_first = true;
  // Rules of one size decided per wave (waves.h): each wave derives from the
  // rules of its size that the earlier waves proved; 0: a whole size at once.
  // Fixed, not growing: a rule derives mostly from rules near it in the order.
  // Default 0, by measurement: once proofs took ~2 ms (simple solver first),
  // a derivation attempt against the grown index cost more than the Z3 call it
  // saved. 3 operators (TASO's opset, 2 workers): verify 17.0 s at 0 against
  // 24.1 s at 64 (Z3 on 3,473 against 1,216 rules), then derive 7.1 s against
  // 3.5 s; a 10 % sample of 4 operators: verify 26.9 s against 45.8 s, derive
  // 31.3 s against 34.7 s. Waves paid off while a proof took ~15 ms.
  int wave_rules = 0;
  verify::DeriveOptions derive;
  // Before deciding: run the concrete family checks on every verified rule
  // too, not only on the derived ones (family_recheck.h).
  bool revalidate = false;
};

struct VerifySummary {
  int64_t rules = 0;                               // in the database
  std::array<int64_t, kNumRuleStatuses> counts{};  // rules by status after the run, indexed by RuleStatus
  int64_t checked = 0;                             // rules this run decided
  int64_t derived = 0;                             // of which by a derivation
  int64_t derived_same_size = 0;      // of those, using a rule of the same size (an earlier wave)
  int64_t derived_by_class_path = 0;  // of those, along the rule's fingerprint class (class_paths.h)
  int64_t derived_by_parts = 0;       // of those, part by part (rule_parts.h)
  int64_t derived_by_outputs = 0;     // of those, output by output (derive_by_outputs)
  int workers = 1;
  double wall_seconds = 0;
  double median_ms = 0;  // per rule checked
  double p95_ms = 0;
  double z3_median_ms = 0;  // per rule decided without a derivation: validation and proof
  double z3_p95_ms = 0;
  double proof_median_ms = 0;      // per proof Z3 ran: the proof alone
  verify::RecheckSummary recheck;  // stored verdicts re-checked first
  double recheck_seconds = 0;
  // Proven rules of a file from before size families, decided again (a proof
  // that does not say for which sizes it holds is no proof for the matcher).
  int64_t redecided_without_family = 0;
};

// First the derived rules (and with options.revalidate the verified ones)
// must pass the concrete checks over their shape family; those that fail are
// refuted and the derivations that used them dropped. Then decides every
// undecided rule of db (candidate or unknown) as derived,
// verified, refuted or unknown, on every rank of MPI_COMM_WORLD (MPI must be
// initialised). Rules go by size (operators on both sides), smallest first, and
// within a size in waves of options.wave_rules; a wave's rules are derived from
// the rules proven before the wave (smaller sizes and earlier waves) where they
// can be (options.derive_first), and decided by validation and Z3 otherwise.
// Every rank passes the same database and axioms: workers read their rules from
// it, rank 0 records the verdicts in it, saves it to options.save_path now and
// then and at the end, and gets the summary. Throws Error on every rank alike
// when the axioms never mention an operator the rules use.
VerifySummary verify_rules(RuleDatabase& db, const verify::AxiomSet& axioms, const VerifyOptions& options);

// `superopt verify rules.h5 [--axioms FILE] [--timeout-ms T] [--json]`: decides
// every undecided rule (verified, refuted or unknown) and updates the database.
int verify_command(const std::vector<std::string>& args);

// `superopt verify-axioms [--axioms FILE] [--max-dim N] [--json]`: validates
// the axioms on small symbolic tensors and checks them for redundancy.
int verify_axioms_command(const std::vector<std::string>& args);

}  // namespace superopt
