// Several rule databases searched as one (`optimize --rules A.h5,B.h5`, and
// Python's RuleDatabase of several paths): an imported CNN wants TASO's rules
// and those over biased convolutions (data/rules/conv-bias-3.h5) together.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"

namespace superopt {

// "A.h5,B.h5" -> {"A.h5", "B.h5"}; throws Error on an empty name.
std::vector<std::string> split_rule_paths(const std::string& list);

// The databases' rules one after another in `all` (the search numbers them so:
// the second database's rule k is rule first[1] + k); `all.info` is the first's.
struct RuleDatabases {
  std::vector<std::string> paths;    // the databases searched
  std::vector<std::string> skipped;  // why each database left out was (none of its operators in the model)
  std::vector<size_t> first;         // per database: the index in `all` of its rule 0
  RuleDatabase all;

  // The database rule `id` of `all` came from, and the end of a database's rules in `all`.
  size_t database_of(size_t id) const;
  size_t end_of(size_t which) const { return which + 1 < first.size() ? first[which + 1] : all.rules.size(); }
};

// Reads each (RuleDatabase::read with `wanted`); with a model, checks each
// database's operators against it: of several, one that shares no operator
// with the model is skipped (`skipped` says why); alone, or when all are, that
// is an Error.
RuleDatabases read_rule_databases(const std::vector<std::string>& paths, const Graph* model = nullptr,
                                  const RuleDatabase::GraphsWanted& wanted = {});

}  // namespace superopt
