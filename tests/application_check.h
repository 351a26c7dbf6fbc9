// The soundness suites' check of a rule in a graph: every occurrence the
// matcher finds is applied, and each result must compute what the graph
// computes (double, seeded random values), or the test fails there.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/rewrite/rewrite.h"

namespace superopt::test {

// How many applied; `reversed_too`: the rule's target -> source direction as well.
inline int applications_checked(const Graph& g, const Rule& rule, bool reversed_too = false) {
  int applied = 0;
  GraphIndex index(g);
  RealArith<double> ar;
  auto expected = evaluate(g, ar, random_sources(ar, 7));
  for (const DirectedRule& d : compile_rule(rule, 0)) {
    if (d.reversed && !reversed_too) continue;
    for (const Match& m : find_matches(g, index, d.source)) {
      std::optional<Graph> out = apply_rule(g, m, d);
      if (!out) continue;
      ++applied;
      auto got = evaluate(*out, ar, random_sources(ar, 7));
      REQUIRE(got.size() == expected.size());
      for (size_t k = 0; k < got.size(); ++k) {
        REQUIRE(got[k].shape == expected[k].shape);
        for (int64_t i = 0; i < got[k].size(); ++i) REQUIRE(std::abs(got[k][i] - expected[k][i]) < 1e-9);
      }
    }
  }
  return applied;
}

}  // namespace superopt::test
