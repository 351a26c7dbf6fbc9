// OCGGS's searches (search/sequence_search.h): on graphs small enough to
// enumerate every sequence, Pruning and DPP find ENU's optimum and reach every
// graph ENU reaches (the partial order drops only redundant orders), Sampling
// with a large Q does too and honours Q, K and the limits.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/graph_hash.h"
#include "search/search.h"
#include "search/sequence_search.h"
#include "tests/rewrite_fixture.h"
#include "tests/search_fixture.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// MetaFlow Figure 1 twice, on two inputs: two independent places to rewrite,
// each needing a cost increase (enlarge) before the decrease (merge).
Graph two_figure1() {
  Graph g;
  std::vector<TensorRef> outs;
  for (const char* name : {"x", "y"}) {
    NodeId x = g.add_input(name, {1, 16, 8, 8});
    NodeId w1 = g.add_weight(std::string(name) + "1", {16, 16, 1, 1});
    NodeId w2 = g.add_weight(std::string(name) + "2", {16, 16, 3, 3});
    NodeId c1 = g.add(OpType::conv2d, {{x}, {w1}}, conv_params());
    NodeId c2 = g.add(OpType::conv2d, {{x}, {w2}}, conv_params());
    g.add_output({g.add(OpType::ewadd, {{c1}, {c2}})});
  }
  return g;
}

// Two convolutions followed by relu, on two inputs: conv_relu fuses each, independently.
Graph two_conv_relu() {
  Graph g;
  for (const char* name : {"x", "y"}) {
    NodeId x = g.add_input(name, {1, 16, 8, 8});
    NodeId w = g.add_weight(std::string(name) + "w", {16, 16, 3, 3});
    g.add_output({g.add(OpType::relu, {{g.add(OpType::conv2d, {{x}, {w}}, conv_params())}})});
  }
  return g;
}

RuleIndex index_of(const std::vector<Rule>& rules) {
  std::vector<DirectedRule> directed;
  for (size_t i = 0; i < rules.size(); ++i)
    for (DirectedRule& d : compile_rule(rules[i], int(i))) directed.push_back(std::move(d));
  return index_rules(std::move(directed));
}

SearchOptions ocggs(SearchKind kind, int k) {
  SearchOptions o = options(1.05);
  o.search = kind;
  o.max_length = k;
  o.budget = 1'000'000;
  return o;
}

// The graphs a search examines (by canonical hash) and how many sequences of each length.
struct Examined {
  std::set<uint64_t> graphs;
  std::vector<int> per_length = std::vector<int>(8);
};

Examined examine(search::SearchOutcome (*search)(const Graph&, const RuleIndex&, CostModel&,
                                                 const search::SequenceLimits&),
                 const Graph& g, const RuleIndex& rules, int k) {
  Examined e;
  search::SequenceLimits limits;
  limits.max_length = k;
  limits.budget = 1'000'000;
  limits.examined = [&](const Graph& reached, int length) {
    e.graphs.insert(canonical_hash(reached));
    ++e.per_length.at(size_t(length));
  };
  LaunchCost cost;
  search(g, rules, cost, limits);
  return e;
}

}  // namespace

using search::SearchOutcome;

TEST_CASE("Pruning, DPP and Sampling with a large Q find the optimum of enumeration (OCGGS Table 3)") {
  Graph g = two_figure1();
  std::vector<Rule> rules = {enlarge_rule(), merge_convs_rule()};
  LaunchCost cost;
  OptimizeResult enu = optimize(g, rules, cost, ocggs(SearchKind::exhaustive, 4));
  REQUIRE(enu.finished);
  CHECK(enu.cost_after_ms < 0.75 * enu.cost_before_ms);  // both branches enlarged and merged
  for (SearchKind kind : {SearchKind::pruning, SearchKind::dpp, SearchKind::sampling}) {
    SearchOptions o = ocggs(kind, 4);
    o.sample_size = 64;
    OptimizeResult r = optimize(g, rules, cost, o);
    INFO(search_kind_name(kind));
    CHECK(r.finished);
    CHECK(r.cost_after_ms == Approx(enu.cost_after_ms));
    CHECK(r.rule_sequence.size() <= 4);
    CHECK(r.check.passed);
    CHECK(r.graphs_explored < enu.graphs_explored);
  }
}

TEST_CASE("the partial order skips exactly the redundant order of two independent substitutions") {
  Graph g = two_conv_relu();
  RuleIndex rules = index_of({conv_relu_rule()});
  Examined enu = examine(search::enumeration_search, g, rules, 2);
  Examined pruning = examine(search::pruning_search, g, rules, 2);
  Examined dpp = examine(search::dpp_search, g, rules, 2);
  CHECK(enu.per_length[1] == 2);  // fuse either
  CHECK(pruning.per_length[1] == 2);
  // ENU fuses both in both orders; Pruning and DPP in one.
  CHECK(pruning.per_length[2] == enu.per_length[2] - 1);
  CHECK(dpp.per_length == pruning.per_length);
  CHECK(pruning.graphs == enu.graphs);
  CHECK(dpp.graphs == enu.graphs);
}

TEST_CASE("the partial order drops no graph that enumeration reaches (brute force, K = 3)") {
  Graph g = two_figure1();
  RuleIndex rules = index_of({enlarge_rule(), merge_convs_rule()});
  Examined enu = examine(search::enumeration_search, g, rules, 3);
  Examined pruning = examine(search::pruning_search, g, rules, 3);
  Examined dpp = examine(search::dpp_search, g, rules, 3);
  CHECK(pruning.graphs == enu.graphs);
  CHECK(dpp.graphs == enu.graphs);
  CHECK(dpp.per_length == pruning.per_length);  // the reuse finds the same substitutions
  CHECK(pruning.per_length[3] < enu.per_length[3]);
}

TEST_CASE("Sampling honours Q, eta and K and is never worse than its input") {
  Graph g = two_figure1();
  RuleIndex rules = index_of({enlarge_rule(), merge_convs_rule()});
  LaunchCost cost;
  for (int q : {2, 4, 20})
    for (int eta : {1, 2})
      for (int k : {1, 2, 5}) {
        search::SequenceLimits limits;
        limits.max_length = k;
        limits.sample_size = q;
        limits.eta = eta;
        int longest = 0;
        limits.examined = [&](const Graph&, int length) { longest = std::max(longest, length); };
        SearchOutcome out = search::sampling_search(g, rules, cost, limits);
        INFO("Q " << q << " eta " << eta << " K " << k);
        CHECK(out.finished);
        CHECK(out.widest_level <= q);
        CHECK(longest <= k);
        CHECK(out.best_cost_ms <= out.start_cost_ms);
        REQUIRE(out.traces.size() == 1);
        CHECK(int(out.traces[0].steps.size()) <= k);
        // With K >= 2 the enlarge-then-merge of one branch is found (with Q = 2
        // the one look-ahead taken may be another cost increase).
        if (k >= 2 && q >= 4) CHECK(out.best_cost_ms < 0.9 * out.start_cost_ms);
      }
}

TEST_CASE("every OCGGS search stops at its budget and deadline with a checked result") {
  Graph g = two_figure1();
  std::vector<Rule> rules = {enlarge_rule(), merge_convs_rule()};
  LaunchCost cost;
  for (SearchKind kind :
       {SearchKind::exhaustive, SearchKind::pruning, SearchKind::dpp, SearchKind::sampling}) {
    INFO(search_kind_name(kind));
    SearchOptions o = ocggs(kind, 10);
    o.budget = 3;
    OptimizeResult r = optimize(g, rules, cost, o);
    CHECK_FALSE(r.finished);
    CHECK(r.graphs_explored == 3);
    CHECK(r.check.passed);
    o.budget = 1'000'000;
    o.time_limit_s = 1e-9;  // past before the first graph is expanded
    r = optimize(g, rules, cost, o);
    CHECK_FALSE(r.finished);
    CHECK(r.graphs_explored == 0);
    CHECK(r.cost_after_ms == r.cost_before_ms);
    CHECK(r.check.passed);
  }
}
