// The rule index (runtime/rewrite/rule_index.h) visits exactly the occurrences a
// brute-force scan of every rule at every node visits, in the same order, on
// the shipped 3-operator rules (both directions; TASO's set and the matrix
// set, where thousands of rules share an anchor) over rule sides and bundled
// models, whole and cut to a prefix (first_n). Derivations and searches depend
// on that order. The features a rule needs (FeatureMask) are found in its own
// sides and missed where an operator or edge is gone.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/models/model_zoo.h"
#include "runtime/rewrite/rule_index.h"
#include "runtime/rewrite/rule_instance.h"

using namespace superopt;

namespace {

// (rule position, matched nodes, matched variables) in visiting order.
using Visit = std::tuple<int, std::vector<NodeId>, std::vector<std::pair<NodeId, int>>>;

Visit visit_of(int r, const Match& m) {
  std::vector<std::pair<NodeId, int>> vars;
  for (TensorRef t : m.variables) vars.push_back({t.node, t.port});
  return {r, m.nodes, vars};
}

// The reference: every rule (of the first first_n) at every node of its anchor
// operator, by operator, then rule, then node.
std::vector<Visit> brute_force(const Graph& g, const RuleIndex& rules, int first_n) {
  GraphIndex index(g);
  std::vector<Visit> out;
  for (int op = 0; op < kNumOpTypes; ++op)
    for (int r = 0; r < int(rules.rules.size()) && (first_n < 0 || r < first_n); ++r) {
      const Pattern& p = rules.rules[r].source;
      if (static_cast<int>(p.anchor_op()) != op) continue;
      std::function<void(const Match&)> keep = [&](const Match& m) { out.push_back(visit_of(r, m)); };
      for (NodeId a : index.nodes_of(static_cast<OpType>(op))) match_at(g, index, p, a, keep);
    }
  return out;
}

std::vector<Visit> indexed(const Graph& g, const RuleIndex& rules, int first_n) {
  std::vector<Visit> out;
  for_each_occurrence(
      g, rules,
      [&](const DirectedRule& d, const Match& m) {
        out.push_back(visit_of(int(&d - rules.rules.data()), m));
      },
      first_n);
  return out;
}

RuleIndex index_of(const std::string& file) {
  RuleDatabase db = RuleDatabase::read(SUPEROPT_SOURCE_DIR "/data/rules/" + file);
  std::vector<DirectedRule> directed;
  for (size_t i = 0; i < db.rules.size(); ++i)
    for (DirectedRule& d : compile_rule(db.rules[i], int(i))) directed.push_back(std::move(d));
  return index_rules(std::move(directed));
}

const RuleIndex& taso3_index() {
  static const RuleIndex index = index_of("taso-3.h5");
  return index;
}

// Both sides of every `every`-th rule: small graphs where many rules meet.
std::vector<Graph> rule_sides(const std::string& file = "taso-3.h5", size_t every = 25) {
  RuleDatabase db = RuleDatabase::read(SUPEROPT_SOURCE_DIR "/data/rules/" + file);
  std::vector<Graph> sides;
  for (size_t i = 0; i < db.rules.size(); i += every) {
    sides.push_back(db.rules[i].source);
    sides.push_back(db.rules[i].target);
  }
  return sides;
}

}  // namespace

TEST_CASE("the rule index visits what trying every rule at every node visits, in order") {
  const RuleIndex& rules = taso3_index();
  REQUIRE(rules.rules.size() > 1000);
  const int half = int(rules.rules.size()) / 2;
  size_t visits = 0;
  for (const Graph& g : rule_sides()) {
    for (int first_n : {-1, half, 0}) {
      std::vector<Visit> want = brute_force(g, rules, first_n);
      REQUIRE(indexed(g, rules, first_n) == want);
      visits += want.size();
    }
  }
  CHECK(visits > 10000);  // the comparison saw many occurrences, not a few
}

TEST_CASE("the rule index visits what every rule at every node visits where anchors crowd") {
  const RuleIndex rules = index_of("matmul-2d-3.h5");
  REQUIRE(rules.rules.size() > 1000);
  size_t visits = 0;
  for (const Graph& g : rule_sides("matmul-2d-3.h5", 5)) {
    std::vector<Visit> want = brute_force(g, rules, -1);
    REQUIRE(indexed(g, rules, -1) == want);
    visits += want.size();
  }
  CHECK(visits > 1000);
}

TEST_CASE("a rule's source has the features it needs and a graph without one cannot match") {
  const RuleIndex& rules = taso3_index();
  int lacking = 0;
  for (size_t r = 0; r < rules.rules.size(); r += 7) {
    const DirectedRule& d = rules.rules[r];
    const std::optional<RuleInstance> own = instantiate(d, rule_variable_shapes(d));
    if (!own) continue;  // a direction that does not apply at the rule's own shapes
    REQUIRE(graph_features(own->source).covers(rules.needs[r]));
    // The rule's other side is a different graph: where it lacks a feature
    // (an operator, a second one of it, or an edge), the rule cannot match it.
    if (!graph_features(own->target).covers(rules.needs[r])) {
      ++lacking;
      CHECK(brute_force(own->target, index_rules({d}), -1).empty());
    }
  }
  CHECK(lacking > 100);  // the filter does leave rules out
}

TEST_CASE("the rule index visits the same occurrences in bundled models") {
  const RuleIndex& rules = taso3_index();
  for (const char* name : {"resnet50", "bert", "nasnet_a"}) {
    Graph g = build_builtin_model(name);
    std::vector<Visit> want = brute_force(g, rules, -1);
    INFO(name);
    CHECK(!want.empty());
    CHECK(indexed(g, rules, -1) == want);
    CHECK(indexed(g, rules, int(rules.rules.size()) / 3) ==
          brute_force(g, rules, int(rules.rules.size()) / 3));
  }
}
