// Folding after the search (search/fold.h): operators on weights with data
// become new weights, and the folded graph computes the same outputs.
#include <catch2/catch.hpp>
#include <vector>

#include "search/fold.h"
#include "search/numerical_check.h"
#include "tests/rewrite_fixture.h"

using namespace superopt;
using namespace superopt::search;
using namespace superopt::test;

TEST_CASE("operators on weights with data are folded into weights after the search") {
  Graph g;
  NodeId x = g.add_input("x", {1, 4, 6, 6});
  std::vector<float> ones(4 * 4, 1.0f), threes(4 * 4 * 9, 0.5f);
  NodeId w1 = g.add_weight("w1", {4, 4, 1, 1}, ones);
  NodeId w2 = g.add_weight("w2", {4, 4, 3, 3}, threes);
  NodeId w3 = g.add_weight("w3", {4, 4, 3, 3});  // no data: known at load time only
  NodeId big = g.add(OpType::enlarge, {{w1}}, kernel(3));
  NodeId sum = g.add(OpType::ewadd, {{big}, {w2}});
  NodeId c = g.add(OpType::conv2d, {{x}, {sum}}, conv_params());
  NodeId t = g.add(OpType::relu, {{w3}});
  g.add_output({g.add(OpType::conv2d, {{c}, {t}}, conv_params())});
  Folded f = fold_precomputed(g);
  CHECK(f.operators == 2);  // enlarge and ewadd; relu(w3) has no values yet
  CHECK(f.weights == 1);
  CHECK(f.graph.num_operators() == 3);
  const Node* folded = nullptr;
  for (NodeId id = 0; id < f.graph.num_nodes(); ++id)
    if (f.graph.node(id).name.str() == "folded_0") folded = &f.graph.node(id);
  REQUIRE(folded);
  REQUIRE(f.graph.weight_data(*f.graph.find("folded_0")));
  // The centre of the enlarged 1x1 kernel is 1 + 0.5, elsewhere 0.5.
  const std::vector<float>& v = *f.graph.weight_data(*f.graph.find("folded_0"));
  CHECK(v[4] == 1.5f);
  CHECK(v[0] == 0.5f);
  CHECK(numerical_check(g, f.graph, 5, int64_t(1) << 40).passed);
}

// Imported models bring their weights: the check must compare on those values, not
// on seeded random ones, or a rewrite that changed a weight's data would pass.
TEST_CASE("the numerical check runs on the weights' own data") {
  auto model = [](float last) {
    Graph g;
    NodeId x = g.add_input("x", {1, 2, 4, 4});
    std::vector<float> w(2 * 2 * 3 * 3, 0.25f);
    w.back() = last;
    g.add_output({g.add(OpType::conv2d, {{x}, {g.add_weight("w", {2, 2, 3, 3}, w)}}, conv_params())});
    return g;
  };
  CHECK(numerical_check(model(0.25f), model(0.25f), 5, int64_t(1) << 40).passed);
  NumericalCheck differs = numerical_check(model(0.25f), model(0.5f), 5, int64_t(1) << 40);
  CHECK_FALSE(differs.passed);
  CHECK(differs.max_relative_error > 1e-3);
}

// TASO's merge of two convolutions (conv(x, concat(w1, w2)) then split) on weights
// with data: the concat carries the split tree the split undoes, so it must stay.
TEST_CASE("a concatenation of weights that a split undoes is not folded") {
  Graph g;
  NodeId x = g.add_input("x", {1, 2, 5, 5});
  NodeId w1 = g.add_weight("w1", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  NodeId w2 = g.add_weight("w2", {4, 2, 3, 3}, std::vector<float>(72, -0.25f));
  OpParams axis0;
  axis0.axis = 0;
  NodeId cat = g.add(OpType::concat, {{w1}, {w2}}, axis0);
  NodeId c = g.add(OpType::conv2d, {{x}, {cat}}, conv_params());
  OpParams axis1;
  axis1.axis = 1;
  NodeId sp = g.add(OpType::split, {{c}}, axis1);
  g.add_output({sp, 0});
  g.add_output({sp, 1});
  Folded f = fold_precomputed(g);
  CHECK(f.weights == 0);
  CHECK(f.graph.num_operators() == g.num_operators());
  CHECK(numerical_check(g, f.graph, 5, int64_t(1) << 40).passed);
}
