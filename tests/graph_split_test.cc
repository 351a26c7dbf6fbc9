// MetaFlow's graph split and the stitching of searched parts (search/): parts
// within the threshold in dependency order, and the unsplit result recovered.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "runtime/core/graph_hash.h"
#include "search/backtrack.h"
#include "search/graph_split.h"
#include "search/search.h"
#include "search/stitch.h"
#include "tests/rewrite_fixture.h"
#include "tests/search_fixture.h"

using namespace superopt;
using namespace superopt::search;
using namespace superopt::test;

namespace {

RuleIndex index_of(const std::vector<Rule>& rules) {
  std::vector<DirectedRule> all;
  for (size_t i = 0; i < rules.size(); ++i)
    for (DirectedRule& d : compile_rule(rules[i], int(i))) all.push_back(std::move(d));
  return index_rules(std::move(all));
}

// K blocks of two matmuls sharing an input, added together: K merges to find.
Graph matmul_blocks(int k) {
  Graph g;
  TensorRef x{g.add_input("x", {16, 32}), 0};
  for (int i = 0; i < k; ++i) {
    // Appending, not operator+: GCC 12 warns falsely (-Wrestrict) on "w" + string.
    std::string name = std::to_string(i);
    NodeId w1 = g.add_weight(std::string("wa").append(name), {32, 32});
    NodeId w2 = g.add_weight(std::string("wb").append(name), {32, 32});
    NodeId a = g.add(OpType::matmul, {x, {w1}});
    NodeId b = g.add(OpType::matmul, {x, {w2}});
    x = {g.add(OpType::relu, {{g.add(OpType::ewadd, {{a}, {b}})}}), 0};
  }
  g.add_output(x);
  return g;
}

}  // namespace

TEST_CASE("the graph split keeps parts within the threshold and in dependency order") {
  Graph g = matmul_blocks(25);  // 100 operators
  RuleIndex rules = index_of({merge_matmuls_rule()});
  std::vector<int64_t> capacity = occurrence_capacity(g, rules);
  for (int threshold : {4, 7, 10, 30}) {
    std::vector<std::vector<NodeId>> parts = split_graph(g, capacity, threshold);
    std::vector<int> part_of(g.num_nodes(), -1);
    size_t total = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
      CHECK(int(parts[p].size()) <= threshold);
      total += parts[p].size();
      for (NodeId id : parts[p]) {
        CHECK(part_of[id] == -1);
        part_of[id] = int(p);
      }
    }
    CHECK(int(total) == g.num_operators());
    for (NodeId id = 0; id < g.num_nodes(); ++id)
      for (TensorRef t : g.node(id).inputs())
        if (part_of[id] >= 0 && part_of[t.node] >= 0) CHECK(part_of[t.node] <= part_of[id]);
  }
  // Occurrences of the merge span no operator (they are two parallel matmuls), so
  // no occurrence is lost: the cut falls between blocks.
  std::vector<std::vector<NodeId>> parts = split_graph(g, capacity, 4);
  for (const auto& part : parts) {
    int matmuls = 0;
    for (NodeId id : part) matmuls += g.node(id).op == OpType::matmul;
    CHECK(matmuls % 2 == 0);
  }
}

TEST_CASE("stitching searched parts gives the unsplit optimization on small models") {
  LaunchCost cost;
  for (int k : {3, 8}) {
    Graph g = matmul_blocks(k);
    std::vector<Rule> rules = {merge_matmuls_rule()};
    OptimizeResult whole = optimize(g, rules, cost, options(1.05, 0));
    OptimizeResult split = optimize(g, rules, cost, options(1.05, 4));
    CHECK(split.parts > 1);
    CHECK(whole.rule_sequence.size() == size_t(k));
    CHECK(split.rule_sequence.size() == size_t(k));
    CHECK(split.cost_after_ms == Approx(whole.cost_after_ms).epsilon(1e-12));
    CHECK(split.graph.num_operators() == whole.graph.num_operators());
    CHECK(split.check.passed);
    CHECK(whole.check.passed);
  }
}

TEST_CASE("extracting a part and stitching it back unchanged gives the same graph") {
  Graph g = matmul_blocks(4);
  std::vector<NodeId> first, rest;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (g.node(id).op == OpType::input || g.node(id).op == OpType::weight) continue;
    (first.size() < 6 ? first : rest).push_back(id);
  }
  std::vector<Part> parts = {extract_part(g, first), extract_part(g, rest)};
  CHECK(parts[0].graph.num_operators() == 6);
  CHECK(parts[1].inputs.size() == 2);  // the two matmuls of the second block
  Stitched s = stitch(g, {first, rest}, parts);
  CHECK(structurally_equal(s.graph, g));
}
