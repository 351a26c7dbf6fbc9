// The verifier pool: rank 0 hands out rules one at a time to the worker ranks
// as they ask (a slow proof never holds up the others) and collects verdicts.
// A single process does the work itself.
#pragma once

#include <functional>
#include <vector>

#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"
#include "verify/rule_verifier.h"

namespace superopt::verify {

// Verifies the rules `todo` names with `verify` on the workers; on rank 0,
// `record` sees every verdict as it arrives. Returns the number of workers.
int run_verifier_pool(const MpiWorld& world, const std::vector<int>& todo,
                      const std::function<RuleVerdict(int)>& verify,
                      const std::function<void(int, const RuleVerdict&)>& record);

// Whether the ranks of this pool release the graphs they are done with
// (RuleDatabase::release_graphs): a pool of several ranks over a database read
// from a file, where write() finds the graphs again. Rank 0, which only hands
// rules out, records and saves, then releases every rule's graphs at once.
bool pool_releases_graphs(const MpiWorld& world, RuleDatabase& db);

}  // namespace superopt::verify
