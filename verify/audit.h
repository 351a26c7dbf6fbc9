// The soundness sweep (`superopt db audit`): every proven rule checked in
// double at members drawn across its whole stated family (or, for a file from
// before families, the family its compiled rule gets) and at compensating
// moves of its tied classes. Read-only: the database is never written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"

namespace superopt::verify {

struct AuditOptions {
  int draws = 12;     // members drawn per direction with every class a size of its own
  uint64_t seed = 1;  // of the draws: the same members on every rank and every run
};

// Why the rule is false at a member of its family (shapes, output, element,
// values), or nullopt when it agrees at every member tried.
std::optional<std::string> audit_rule(const Rule& rule, const AuditOptions& options);

// `superopt db audit FILE [--draws N] [--seed S] [--json]`: under mpirun the
// rules are shared out over the verifier pool. Exit 1 naming each false rule.
int audit_command(const std::vector<std::string>& args);

}  // namespace superopt::verify
