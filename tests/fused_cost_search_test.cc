// The search under a cost model that costs graphs whole (CostModel::
// costs_whole_graphs: the CPU executor's fused groups, runtime/cost/fusion.h):
// a rewrite is judged by what runs fused, not by its operators' costs alone,
// and a model that adds operators alone is searched as before.
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include <cmath>

#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_spread.h"
#include "runtime/cost/cost_table.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cost_models.h"
#include "search/search.h"
#include "search/window_cost.h"
#include "tests/rewrite_fixture.h"
#include "tests/search_fixture.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// Operators alone: a convolution 0.3 ms plus 0.0375 ms per output channel (a
// merged convolution is cheaper than its halves), a bias add or relu 0.5 ms,
// split (a view) and load-time work nothing. With `whole`, graph_sum_ms costs
// each fused group (fusion.h) as its convolution alone: the bias add and the
// relu run inside it as post-ops, as on the CPU executor.
class FusedCost : public CostModel {
 public:
  explicit FusedCost(bool whole) : whole_(whole) {}
  double node_cost_ms(const Graph& g, NodeId id) override {
    const Node& n = g.node(id);
    if (n.op == OpType::conv2d) return 0.3 + 0.0375 * double(n.output(0).shape[1]);
    if (n.op == OpType::ewadd || n.op == OpType::relu) return 0.5;
    return 0;  // sources, split, concat of weights
  }
  double graph_sum_ms(const Graph& g, const std::vector<bool>& weight_only) override {
    if (!whole_) return CostModel::graph_sum_ms(g, weight_only);
    return fused_sum_ms(g, weight_only, *this,
                        [&](const Graph& graph, const Fusion& f) -> std::optional<double> {
                          return node_cost_ms(graph, f.producer);
                        });
  }
  bool costs_whole_graphs() const override { return whole_; }
  std::string name() const override { return whole_ ? "test:fused" : "test:alone"; }

 private:
  bool whole_;
};

// One convolution with two concatenated 8-channel kernels, split in two
// halves, each followed by a bias add and a relu, which cannot fuse into it
// (the split stands between). Split into two convolutions (merge_convs_rule
// backwards), each half fuses its bias and relu:
//   as it is:  0.9 + 2 x (0.5 + 0.5)          = 2.9 ms, alone or fused;
//   split:     2 x (0.6 + 0.5 + 0.5) = 3.2 ms alone, 2 x 0.6 = 1.2 ms fused.
Graph split_candidate() {
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 6, 6});
  NodeId w1 = g.add_weight("w1", {8, 8, 3, 3});
  NodeId w2 = g.add_weight("w2", {8, 8, 3, 3});
  NodeId cat = g.add(OpType::concat, {{w1}, {w2}}, axis(0));
  NodeId conv = g.add(OpType::conv2d, {{x}, {cat}}, conv_params());
  NodeId split = g.add(OpType::split, {{conv}}, axis(1));
  for (int half = 0; half < 2; ++half) {
    NodeId b = g.add_weight("b" + std::to_string(half), {1, 8, 1, 1});
    NodeId biased = g.add(OpType::ewadd, {{split, half}, {b}});
    g.add_output({g.add(OpType::relu, {{biased}})});
  }
  return g;
}

bool split_into_two(const OptimizeResult& r) {
  int convs = 0;
  for (const Node& n : r.graph.nodes()) convs += n.op == OpType::conv2d;
  return convs == 2;
}

}  // namespace

TEST_CASE("a rewrite that pays only fused is taken under a model that costs graphs whole") {
  const Graph g = split_candidate();
  FusedCost fused(true);
  CHECK(graph_cost_ms(g, fused) == Approx(2.9));
  OptimizeResult r = optimize(g, {merge_convs_rule()}, fused, options(1.05));
  // Judged by the operators alone (3.2 ms against 2.9, beyond alpha 1.05) the
  // split would be pruned before it is costed; fused it costs 1.2 ms.
  CHECK(split_into_two(r));
  CHECK(r.cost_after_ms == Approx(1.2));
  CHECK(r.check.passed);
}

TEST_CASE("a model that adds operators alone keeps the input where the split costs more") {
  const Graph g = split_candidate();
  FusedCost alone(false);
  CHECK(graph_cost_ms(g, alone) == Approx(2.9));
  OptimizeResult r = optimize(g, {merge_convs_rule()}, alone, options(1.05));
  CHECK_FALSE(split_into_two(r));
  CHECK(r.cost_after_ms == Approx(2.9));
  CHECK(r.rule_sequence.empty());
}

TEST_CASE("the window's cost change is the whole graph's where fusions change around the rewrite") {
  const Graph g = split_candidate();
  FusedCost fused(true);
  const std::vector<bool> weight_only = weight_only_nodes(g);
  search::WindowCost window(g, weight_only, fused);
  const std::vector<DirectedRule> directions = compile_rule(merge_convs_rule(), 0);
  int applications = 0;
  for (const DirectedRule& d : directions)
    for (const Match& m : find_matches(g, GraphIndex(g), d.source)) {
      const std::optional<Graph> after = apply_rule(g, m, d);
      if (!after) continue;
      ++applications;
      const std::optional<double> delta = window.delta_ms(d, m);
      REQUIRE(delta);
      CHECK(*delta == Approx(graph_cost_ms(*after, fused) - graph_cost_ms(g, fused)));
      CHECK(*delta == Approx(1.2 - 2.9));
      // The window reaches the followers of the split: both bias adds and relus.
      CHECK(window.window(d, m).size() == 7);  // concat, conv, split, 2 x (ewadd, relu)
    }
  CHECK(applications == 1);
}

TEST_CASE("the noise of a rewrite under a CPU table is that of the fused entries it changes") {
  // a: a convolution and its relu, run fused; b: the convolution with the relu as its parameter.
  Graph a, b;
  for (Graph* g : {&a, &b}) {
    g->add_input("x", {1, 8, 6, 6});
    g->add_weight("w", {8, 8, 3, 3});
  }
  const NodeId conv = a.add(OpType::conv2d, {{0}, {1}}, conv_params());
  const NodeId relu = a.add(OpType::relu, {{conv}});
  a.add_output({relu});
  b.add_output({b.add(OpType::conv2d, {{0}, {1}}, conv_params(1, Activation::relu))});
  const std::vector<Fusion> groups = plan_fusions(a, weight_only_nodes(a)).groups;
  REQUIRE(groups.size() == 1);
  TempDir dir;
  CostTable t;
  t.info.device_kind = "cpu";
  t.info.analytic_profile = "cpu";
  t.insert(op_signature(a, conv), {1.0, "", 20, 0.01});
  t.insert(op_signature(a, relu), {0.5, "", 20, 0.01});
  t.insert(fused_signature(a, groups[0]), {0.8, "", 20, 0.3});  // what a runs: noisy
  t.insert(op_signature(b, 2), {1.0, "", 20, 0.01});
  t.write(dir.file("cpu.h5"));
  auto model = make_cost_model("table:" + dir.file("cpu.h5"));
  REQUIRE(model->costs_whole_graphs());
  CHECK(graph_cost_ms(a, *model) == Approx(0.8));
  CHECK(graph_cost_ms(b, *model) == Approx(1.0));
  // The fused entry's spread, not those of the convolution and relu measured alone (0.017 ms).
  CHECK(difference_spread_ms(a, b, *model) == Approx(std::sqrt(0.3 * 0.3 + 0.01 * 0.01)));
  CHECK_FALSE(cheaper_beyond_noise(0.8, a, 1.0, b, *model));  // 0.2 ms within the fused entry's 0.3
}
