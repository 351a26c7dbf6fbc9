// The limits that stop the optimizer short of its end (issue 17): the search's
// graph copies against the memory budget, the numerical check against the
// deadline, a check that cannot tell (the input overflows) blaming nothing, a
// stop requested from another thread (Ctrl-C in Python), and rules compiled
// once for many searches.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <vector>

#include "runtime/rewrite/rewrite.h"
#include "runtime/rewrite/rule_index.h"
#include "search/backtrack.h"
#include "search/graph_bytes.h"
#include "search/numerical_check.h"
#include "tests/rewrite_fixture.h"
#include "tests/search_fixture.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// MetaFlow Figure 1: a 1x1 and a 3x3 convolution reading the same input.
Graph two_convs() {
  Graph g;
  NodeId x = g.add_input("x", {1, 16, 8, 8});
  NodeId c1 = g.add(OpType::conv2d, {{x}, {g.add_weight("w1", {16, 16, 1, 1})}}, conv_params());
  NodeId c2 = g.add(OpType::conv2d, {{x}, {g.add_weight("w2", {16, 16, 3, 3})}}, conv_params());
  g.add_output({g.add(OpType::ewadd, {{c1}, {c2}})});
  return g;
}

RuleIndex figure1_rules() {
  std::vector<DirectedRule> directed;
  int i = 0;
  for (const Rule& r : {enlarge_rule(), merge_convs_rule()})
    for (DirectedRule& d : compile_rule(r, i++)) directed.push_back(std::move(d));
  return index_rules(std::move(directed));
}

// x -> matmul(w0) -> ... -> matmul(w_{n-1}), 16x16.
Graph matmul_chain(int n) {
  Graph g;
  NodeId prev = g.add_input("x", {16, 16});
  for (int i = 0; i < n; ++i) {
    // append, not "w" + to_string: GCC 12 warns a false -Wrestrict on the inlined operator+.
    NodeId w = g.add_weight(std::string("w").append(std::to_string(i)), {16, 16});
    prev = g.add(OpType::matmul, {{prev}, {w}});
  }
  g.add_output({prev});
  return g;
}

}  // namespace

TEST_CASE("the search's graph copies count against the memory budget: it stops there, keeping the best") {
  Graph g = two_convs();
  RuleIndex rules = figure1_rules();
  LaunchCost cost;
  search::SearchLimits limits;
  search::SearchOutcome free_run = search::backtracking_search(g, rules, cost, limits);
  CHECK_FALSE(free_run.memory_full);
  CHECK(free_run.held_bytes > 2 * search::graph_copy_bytes(g));  // it held several graphs

  limits.max_held_bytes = 2 * search::graph_copy_bytes(g);  // the input and about one more
  search::SearchOutcome held = search::backtracking_search(g, rules, cost, limits);
  CHECK(held.memory_full);
  CHECK_FALSE(held.finished);
  CHECK(held.held_bytes >= limits.max_held_bytes);
  CHECK(held.held_bytes < free_run.held_bytes);
  CHECK(held.explored < free_run.explored);
  CHECK(held.best_cost_ms <= held.start_cost_ms);
}

TEST_CASE("a graph copy's bytes grow with its nodes, not its weights' data") {
  Graph small = matmul_chain(2), large = matmul_chain(20);
  CHECK(search::graph_copy_bytes(large) > 5 * search::graph_copy_bytes(small));
  Graph with_data;
  with_data.add_output({with_data.add_weight("w", {1024, 1024}, std::vector<float>(1024 * 1024, 1.0f))});
  CHECK(search::graph_copy_bytes(with_data) < 4096);
}

TEST_CASE("the numerical check stops at its deadline, neither run nor passed") {
  Graph g = matmul_chain(4);
  NumericalCheck past = search::numerical_check(g, g, 1, int64_t(1) << 40, std::chrono::steady_clock::now());
  CHECK(past.cut_short);
  CHECK_FALSE(past.ran);
  CHECK_FALSE(past.passed);
  CHECK_THAT(past.note,
             Catch::StartsWith("cut short by the time limit after 0 of 4 operators of the input graph"));
  NumericalCheck in_time = search::numerical_check(g, g, 1, int64_t(1) << 40,
                                                   std::chrono::steady_clock::now() + std::chrono::hours(1));
  CHECK(in_time.ran);
  CHECK(in_time.passed);
  CHECK_FALSE(in_time.cut_short);
}

TEST_CASE("a check whose input overflows is inconclusive and blames nothing") {
  // Random 16x16 matmuls grow values about 2x each: 1,500 of them overflow double.
  Graph g = matmul_chain(1500);
  NumericalCheck check = search::numerical_check(g, g, 1, int64_t(1) << 40);
  CHECK(check.inconclusive);
  CHECK_FALSE(check.ran);
  CHECK_FALSE(check.passed);
  CHECK_THAT(check.note, Catch::StartsWith("inconclusive: the input graph's outputs overflow"));
  CHECK_FALSE(search::numerical_check(matmul_chain(20), matmul_chain(20), 1, int64_t(1) << 40).inconclusive);
}

TEST_CASE("a stop request (Ctrl-C in Python) stops the search and the check as their deadline does") {
  Graph g = two_convs();
  std::atomic<bool> stop{true};
  LaunchCost cost;
  search::SearchLimits limits;
  limits.deadline.stop = &stop;
  search::SearchOutcome stopped = search::backtracking_search(g, figure1_rules(), cost, limits);
  CHECK(stopped.explored == 0);
  CHECK_FALSE(stopped.finished);
  NumericalCheck check =
      search::numerical_check(g, g, 1, int64_t(1) << 40, {search::Deadline::max().at, &stop});
  CHECK(check.cut_short);
  CHECK_FALSE(check.ran);

  // optimize(): the input graph comes back, the search's work dropped unchecked.
  std::vector<Rule> rules = {enlarge_rule(), merge_convs_rule()};
  SearchOptions o = options(1.05);
  o.stop_requested = &stop;
  OptimizeResult r = optimize(g, rules, cost, o);
  CHECK(r.graph.num_operators() == g.num_operators());
  CHECK(r.rule_sequence.empty());
  CHECK(r.check.cut_short);
  stop = false;  // not stopped: it merges the convolutions
  CHECK_FALSE(optimize(g, rules, cost, o).rule_sequence.empty());
}

TEST_CASE("rules compiled once (compile_usable_rules) give the search what it compiles itself") {
  Graph g = two_convs();
  std::vector<Rule> rules = {enlarge_rule(), merge_convs_rule()};
  LaunchCost cost;
  SearchOptions o = options(1.05);
  OptimizeResult own = optimize(g, rules, cost, o);
  o.compiled_rules = compile_usable_rules(rules, o);
  OptimizeResult reused = optimize(g, rules, cost, o);
  CHECK(reused.rule_sequence == own.rule_sequence);
  CHECK(reused.cost_after_ms == own.cost_after_ms);
  CHECK(reused.rules_used == own.rules_used);
  CHECK_FALSE(reused.rule_sequence.empty());
}
