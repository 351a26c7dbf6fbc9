// The backtracking search (search/): greedy versus backtracking (MetaFlow
// Figure 1), the numerical check that refuses wrong graphs, ResNeXt's groups,
// the other cheapest graphs kept for end-to-end timing.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "runtime/core/graph_hash.h"
#include "runtime/cost/analytic_cost.h"
#include "search/search.h"
#include "tests/rewrite_fixture.h"
#include "tests/search_fixture.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// MetaFlow Figure 1: a 1x1 and a 3x3 convolution reading the same input.
Graph figure1_graph() {
  Graph g;
  NodeId x = g.add_input("x", {1, 16, 8, 8});
  NodeId w1 = g.add_weight("w1", {16, 16, 1, 1});
  NodeId w2 = g.add_weight("w2", {16, 16, 3, 3});
  NodeId c1 = g.add(OpType::conv2d, {{x}, {w1}}, conv_params());
  NodeId c2 = g.add(OpType::conv2d, {{x}, {w2}}, conv_params());
  g.add_output({g.add(OpType::ewadd, {{c1}, {c2}})});
  return g;
}

bool applied(const OptimizeResult& r, const std::string& ops) {
  for (const auto& [label, count] : r.rules_applied)
    if (label.find(ops) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("greedy search is stuck where backtracking enlarges a kernel and merges convolutions") {
  Graph g = figure1_graph();
  std::vector<Rule> rules = {enlarge_rule(), merge_convs_rule()};
  LaunchCost cost;
  OptimizeResult greedy = optimize(g, rules, cost, options(1.0));
  CHECK(greedy.cost_after_ms == greedy.cost_before_ms);
  CHECK(greedy.rule_sequence.empty());

  OptimizeResult back = optimize(g, rules, cost, options(1.05));
  CHECK(back.cost_after_ms < 0.75 * back.cost_before_ms);
  CHECK(applied(back, "conv2d -> enlarge,conv2d"));
  CHECK(applied(back, "conv2d,conv2d -> concat,conv2d,split"));
  CHECK(back.check.ran);
  CHECK(back.check.passed);
  // The merged graph has one convolution reading x, plus the weights' enlarge and concat.
  int convs = 0;
  for (const Node& n : back.graph.nodes()) convs += n.op == OpType::conv2d;
  CHECK(convs == 1);
  CHECK(back.precomputed_operators == 2);
}

TEST_CASE("the numerical check refuses a wrong rule: dropped as suspect, or the input graph") {
  // relu(x w) = x w is false; as a candidate rule it must never reach the output.
  Rule wrong;
  for (Graph* side : {&wrong.source, &wrong.target}) {
    side->add_input("x", {2, 4});
    side->add_weight("w", {4, 4});
  }
  wrong.source.add_output({wrong.source.add(OpType::relu, {{wrong.source.add(OpType::matmul, {{0}, {1}})}})});
  wrong.target.add_output({wrong.target.add(OpType::matmul, {{0}, {1}})});
  Graph g;
  NodeId x = g.add_input("x", {8, 8});
  NodeId w = g.add_weight("w", {8, 8});
  g.add_output({g.add(OpType::relu, {{g.add(OpType::matmul, {{x}, {w}})}})});
  LaunchCost cost;
  SearchOptions o = options(1.05);
  CHECK_THROWS_WITH(optimize(g, {wrong}, cost, o), Catch::Contains("no verified rule"));
  o.allow_unverified = true;
  o.max_suspects = 0;  // no second search: the wrong graph is refused
  OptimizeResult r = optimize(g, {wrong}, cost, o);
  REQUIRE(!r.rule_sequence.empty());
  CHECK_FALSE(r.check.passed);
  CHECK(structurally_equal(r.graph, g));

  o.max_suspects = 1;  // the rule is dropped and the search without it finds nothing
  OptimizeResult again = optimize(g, {wrong}, cost, o);
  CHECK(again.check.passed);
  REQUIRE(again.suspect_rules.size() == 1);
  CHECK(again.suspect_rules[0].id == 0);
  CHECK(again.rule_sequence.empty());
  CHECK(structurally_equal(again.graph, g));
}

TEST_CASE("under the H100 roofline with tiles the search merges ResNeXt's tiny groups") {
  // A ResNeXt-50 stage-1 3x3 convolution: 128 channels in 32 groups of 4, 56x56.
  Graph g;
  NodeId x = g.add_input("x", {1, 128, 56, 56});
  NodeId c =
      g.add(OpType::conv2d, {{x}, {g.add_weight("w", {128, 4, 3, 3})}}, conv_params(1, Activation::relu));
  g.add_output({c});
  AnalyticCostModel cost("analytic:h100", find_device_profile("h100"));
  OptimizeResult r = optimize(g, {merge_groups_rule(Activation::relu)}, cost, options(1.05));
  CHECK(applied(r, "conv2d -> merge_groups,conv2d"));
  CHECK(r.cost_after_ms < r.cost_before_ms);
  CHECK(r.check.passed);
  for (const Node& n : r.graph.nodes())
    if (n.op == OpType::conv2d)
      CHECK(conv_groups(r.graph.shape(n.inputs()[0]), r.graph.shape(n.inputs()[1])) < 32);
}

TEST_CASE("the search keeps its cheapest other graphs: distinct, cheapest first, at most the limit") {
  Graph g = figure1_graph();
  std::vector<Rule> rules = {enlarge_rule(), merge_convs_rule()};
  LaunchCost cost;
  OptimizeResult r = optimize(g, rules, cost, options(1.05));
  REQUIRE_FALSE(r.rule_sequence.empty());
  REQUIRE_FALSE(r.alternatives.empty());
  CHECK(r.alternatives.size() <= 3);
  std::vector<uint64_t> hashes = {canonical_hash(r.graph), canonical_hash(g)};
  for (size_t k = 0; k < r.alternatives.size(); ++k) {
    const AlternativeGraph& a = r.alternatives[k];
    CHECK_FALSE(a.rule_sequence.empty());  // how it was reached
    if (k > 0) CHECK(r.alternatives[k - 1].cost_ms <= a.cost_ms);
    for (uint64_t h : hashes) CHECK(canonical_hash(a.graph) != h);
    hashes.push_back(canonical_hash(a.graph));
  }
  SearchOptions none = options(1.05);
  none.alternatives = 0;
  CHECK(optimize(g, rules, cost, none).alternatives.empty());
}
