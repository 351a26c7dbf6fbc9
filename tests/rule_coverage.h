// Whether a rule database covers what the brute force finds (the
// completeness test's judge, written apart from enum/'s canonical forms and
// pruning): in each class of graphs that compute the same values, every two
// graphs must be joined by a chain of
//  - database rules, under any renaming of interchangeable sources and with a
//    commutative operator's inputs in either order, in either direction;
//  - pairs a smaller rule implies (TASO's common-subgraph pruning): the two
//    graphs apply one operator to the same sources, or every output of both
//    comes from one operator whose inputs agree but in one place, where they
//    are equal tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/db/rule_database.h"
#include "tests/brute_force_rules.h"

namespace superopt::test {

struct Coverage {
  int64_t classes = 0;     // brute-force classes (graphs that compute the same values)
  int64_t graphs = 0;      // graphs in them
  int64_t rule_edges = 0;  // pairs of those graphs that a database rule joins under some renaming
  // One line per class left in pieces: a graph from each of two pieces no chain joins.
  std::vector<std::string> missing;
};

Coverage check_coverage(const BruteForce& bf, const enumeration::Opset& opset, const RuleDatabase& db);

// The database's rules that an earlier rule of it gives under a renaming of
// interchangeable sources, in either direction (TASO's input-renaming
// pruning leaves none), as "source  =  target" lines.
std::vector<std::string> renamed_twice(const RuleDatabase& db, const enumeration::Opset& opset);

}  // namespace superopt::test
