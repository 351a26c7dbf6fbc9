// Re-checking stored verdicts against the concrete family checks
// (family_difference): a derivation stored before derived rules were
// family-checked, or a rule verified before validation drew the members it
// misses, may be false at a member the matcher admits. Failing rules become
// refuted with the counterexample, and every derivation that used them is
// dropped (those rules are decided again).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"

namespace superopt::verify {

struct RecheckSummary {
  int64_t checked = 0;      // rules run through the checks
  int64_t refuted = 0;      // of which failed them: now refuted
  int64_t invalidated = 0;  // derivations dropped after: their rules are candidates again
};

// The derived rules (and the verified ones too when `verified_too`) are
// checked over the verifier pool on the ranks of `world`; every rank ends with
// the same statuses, rank 0 with the notes.
RecheckSummary recheck_families(const MpiWorld& world, std::vector<Rule>& rules, bool verified_too);

}  // namespace superopt::verify
