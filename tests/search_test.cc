// The optimizer: matching (parameters, mapped outputs, identities), rule
// application (cycles, constants), backtracking versus greedy (MetaFlow Figure 1),
// the graph split, and the numerical check that refuses wrong graphs.
#include <catch2/catch.hpp>

#include "runtime/core/graph_hash.h"
#include "runtime/cost/analytic_cost.h"
#include "search/backtrack.h"
#include "search/fold.h"
#include "search/graph_split.h"
#include "search/numerical_check.h"
#include "search/search.h"
#include "search/stitch.h"

using namespace superopt;
using namespace superopt::search;

namespace {

// A launch overhead per kernel plus FLOPs at 1 TFLOP/s; split is a view (free).
// Small tensors make launches dominate, as in MetaFlow's Figure 1.
class LaunchCost : public CostModel {
 public:
  double node_cost_ms(const Graph& g, NodeId id) override {
    const Node& n = g.node(id);
    if (n.op == OpType::input || n.op == OpType::weight || is_constant(n.op) || n.op == OpType::split)
      return 0;
    std::vector<const TensorDesc*> in;
    for (TensorRef t : n.inputs()) in.push_back(&g.desc(t));
    OpCost c = op_cost(n.op, n.params, in, std::span(n.output_array.data(), size_t(n.num_outputs())));
    return 0.01 + double(c.flops) / 1e9;
  }
  std::string name() const override { return "test:launch"; }
};

OpParams conv_params(int stride = 1, Activation act = Activation::none) {
  OpParams p;
  p.stride_h = p.stride_w = stride;
  p.activation = act;
  return p;
}

OpParams kernel(int k) {
  OpParams p;
  p.kernel_h = p.kernel_w = k;
  return p;
}

OpParams axis(int a) {
  OpParams p;
  p.axis = a;
  return p;
}

Rule verified(Rule r) {
  r.status = RuleStatus::verified;
  return r;
}

// conv(x, w) = conv(x, enlarge(w)): a 1x1 kernel padded to 3x3.
Rule enlarge_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4, 5, 5});
    g->add_weight("w", {4, 4, 1, 1});
  }
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {1}}, conv_params())});
  NodeId big = r.target.add(OpType::enlarge, {{1}}, kernel(3));
  r.target.add_output({r.target.add(OpType::conv2d, {{0}, {big}}, conv_params())});
  return verified(r);
}

// conv(x, w1), conv(x, w2) = split(conv(x, concat(w1, w2))).
Rule merge_convs_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4, 5, 5});
    g->add_weight("w1", {4, 4, 3, 3});
    g->add_weight("w2", {4, 4, 3, 3});
  }
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {1}}, conv_params())});
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {2}}, conv_params())});
  NodeId cat = r.target.add(OpType::concat, {{1}, {2}}, axis(0));
  NodeId conv = r.target.add(OpType::conv2d, {{0}, {cat}}, conv_params());
  NodeId split = r.target.add(OpType::split, {{conv}}, axis(1));
  r.target.add_output({split, 0});
  r.target.add_output({split, 1});
  return verified(r);
}

// matmul(x, w1), matmul(x, w2) = split(matmul(x, concat(w1, w2))) (TASO Figure 2).
Rule merge_matmuls_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4});
    g->add_weight("w1", {4, 4});
    g->add_weight("w2", {4, 4});
  }
  r.source.add_output({r.source.add(OpType::matmul, {{0}, {1}})});
  r.source.add_output({r.source.add(OpType::matmul, {{0}, {2}})});
  NodeId cat = r.target.add(OpType::concat, {{1}, {2}}, axis(1));
  NodeId mm = r.target.add(OpType::matmul, {{0}, {cat}});
  NodeId split = r.target.add(OpType::split, {{mm}}, axis(1));
  r.target.add_output({split, 0});
  r.target.add_output({split, 1});
  return verified(r);
}

// relu(conv(x, w)) = conv_relu(x, w).
Rule conv_relu_rule() {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("x", {2, 4, 5, 5});
    g->add_weight("w", {4, 4, 3, 3});
  }
  NodeId c = r.source.add(OpType::conv2d, {{0}, {1}}, conv_params());
  r.source.add_output({r.source.add(OpType::relu, {{c}})});
  r.target.add_output({r.target.add(OpType::conv2d, {{0}, {1}}, conv_params(1, Activation::relu))});
  return verified(r);
}

// conv(i, kg) with 2 groups = conv(i, merge_groups[groups=2, into=1](kg)), as enumerated.
Rule merge_groups_rule(Activation act = Activation::none) {
  Rule r;
  for (Graph* g : {&r.source, &r.target}) {
    g->add_input("i", {2, 4, 5, 5});
    g->add_weight("kg", {4, 2, 3, 3});
  }
  r.source.add_output({r.source.add(OpType::conv2d, {{0}, {1}}, conv_params(1, act))});
  OpParams merge;
  merge.groups = 2;
  merge.into = 1;
  NodeId m = r.target.add(OpType::merge_groups, {{1}}, merge);
  r.target.add_output({r.target.add(OpType::conv2d, {{0}, {m}}, conv_params(1, act))});
  return verified(r);
}

RuleIndex index_of(const std::vector<Rule>& rules) {
  std::vector<DirectedRule> all;
  for (size_t i = 0; i < rules.size(); ++i)
    for (DirectedRule& d : compile_rule(rules[i], int(i))) all.push_back(std::move(d));
  return index_rules(std::move(all));
}

std::vector<Match> forward_matches(const Graph& g, const Rule& rule) {
  DirectedRule d = compile_rule(rule, 0).at(0);
  REQUIRE_FALSE(d.reversed);
  return find_matches(g, GraphIndex(g), d.source);
}

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

SearchOptions options(double alpha, int split_threshold = 0) {
  SearchOptions o;
  o.alpha = alpha;
  o.budget = 200;
  o.time_limit_s = 30;
  o.split_threshold = split_threshold;
  return o;
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

TEST_CASE("matching respects parameters, ranks and group kinds") {
  Rule rule = conv_relu_rule();
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 6, 6});
  NodeId w = g.add_weight("w", {8, 8, 3, 3});
  NodeId dw = g.add_weight("dw", {8, 1, 3, 3});
  NodeId strided = g.add(OpType::conv2d, {{x}, {w}}, conv_params(2));
  NodeId fused = g.add(OpType::conv2d, {{x}, {w}}, conv_params(1, Activation::relu));
  NodeId depthwise = g.add(OpType::conv2d, {{x}, {dw}}, conv_params());
  NodeId plain = g.add(OpType::conv2d, {{x}, {w}}, conv_params());
  for (NodeId c : {strided, fused, depthwise, plain}) g.add_output({g.add(OpType::relu, {{c}})});
  std::vector<Match> m = forward_matches(g, rule);
  REQUIRE(m.size() == 1);  // stride 2, an activation already fused and a depthwise kernel do not match
  CHECK(m[0].nodes[m[0].nodes.size() - 2] == plain);
}

TEST_CASE("an intermediate used outside the occurrence must be a mapped output") {
  Rule rule = conv_relu_rule();
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 6, 6});
  NodeId w = g.add_weight("w", {8, 8, 3, 3});
  NodeId c = g.add(OpType::conv2d, {{x}, {w}}, conv_params());
  g.add_output({g.add(OpType::relu, {{c}})});
  CHECK(forward_matches(g, rule).size() == 1);
  g.add_output({g.add(OpType::tanh, {{c}})});  // the convolution is read outside the match
  CHECK(forward_matches(g, rule).empty());
}

TEST_CASE("a variable used twice must match the same tensor") {
  Rule rule = merge_matmuls_rule();
  Graph g;
  NodeId x = g.add_input("x", {8, 16});
  NodeId y = g.add_input("y", {8, 16});
  NodeId w1 = g.add_weight("w1", {16, 4});
  NodeId w2 = g.add_weight("w2", {16, 4});
  g.add_output({g.add(OpType::matmul, {{x}, {w1}})});
  g.add_output({g.add(OpType::matmul, {{y}, {w2}})});
  CHECK(forward_matches(g, rule).empty());
  g.add_output({g.add(OpType::matmul, {{x}, {w2}})});
  CHECK(forward_matches(g, rule).size() == 2);  // (first, third) and (third, first)
}

TEST_CASE("a substitution that would create a cycle is rejected (TASO Figure 6)") {
  Rule rule = merge_matmuls_rule();
  Graph g;
  NodeId x = g.add_input("x", {4, 4});
  NodeId w1 = g.add_weight("w1", {4, 4});
  NodeId y1 = g.add(OpType::matmul, {{x}, {w1}});
  NodeId w2 = g.add(OpType::relu, {{y1}});  // the second matmul's weight depends on the first
  NodeId y2 = g.add(OpType::matmul, {{x}, {w2}});
  g.add_output({y2});
  g.add_output({y1});
  DirectedRule d = compile_rule(rule, 0).at(0);
  std::vector<Match> m = find_matches(g, GraphIndex(g), d.source);
  REQUIRE(m.size() == 2);
  for (const Match& match : m) {
    RewriteFailure why = RewriteFailure::none;
    CHECK_FALSE(apply_rule(g, match, d, &why));
    CHECK(why == RewriteFailure::cycle);
  }
}

TEST_CASE("applying a rule builds the target, keeps outputs aligned and shapes generic") {
  Rule rule = merge_matmuls_rule();
  Graph g;
  NodeId x = g.add_input("x", {64, 256});
  NodeId w1 = g.add_weight("w1", {256, 128});
  NodeId w2 = g.add_weight("w2", {256, 32});
  NodeId a = g.add(OpType::relu, {{g.add(OpType::matmul, {{x}, {w1}})}});
  NodeId b = g.add(OpType::tanh, {{g.add(OpType::matmul, {{x}, {w2}})}});
  g.add_output({a});
  g.add_output({b});
  DirectedRule d = compile_rule(rule, 0).at(0);
  std::vector<Match> m = find_matches(g, GraphIndex(g), d.source);
  REQUIRE(m.size() == 2);
  std::optional<Graph> out = apply_rule(g, m[0], d);
  REQUIRE(out);
  CHECK(out->shape(out->outputs()[0]) == Shape{64, 128});
  CHECK(out->shape(out->outputs()[1]) == Shape{64, 32});
  CHECK(out->num_operators() == 5);  // concat, matmul, split, relu, tanh
  CHECK(numerical_check(g, *out, 7, int64_t(1) << 40).passed);
}

TEST_CASE("target constants get their shapes from the tensors they meet") {
  // x = matmul(x, I): the identity's size comes from x's columns.
  Rule r;
  for (Graph* side : {&r.source, &r.target}) side->add_input("x", {2, 4});
  r.source.add_output({r.source.add(OpType::relu, {{0}})});
  OpParams eye;
  eye.shape = {4, 4};
  NodeId i = r.target.add(OpType::i_matmul, {}, eye);
  r.target.add_output({r.target.add(OpType::relu, {{r.target.add(OpType::matmul, {{0}, {i}})}})});
  Graph g;
  NodeId x = g.add_input("x", {3, 7});
  g.add_output({g.add(OpType::relu, {{x}})});
  DirectedRule d = compile_rule(r, 0).at(0);
  std::vector<Match> m = find_matches(g, GraphIndex(g), d.source);
  REQUIRE(m.size() == 1);
  std::optional<Graph> out = apply_rule(g, m[0], d);
  REQUIRE(out);
  bool found = false;
  for (const Node& n : out->nodes())
    if (n.op == OpType::i_matmul) found = n.output(0).shape == Shape{7, 7};
  CHECK(found);
  CHECK(numerical_check(g, *out, 3, int64_t(1) << 40).passed);
}

TEST_CASE("the numerical check refuses a wrong rule and returns the input graph") {
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
  OptimizeResult r = optimize(g, {wrong}, cost, o);
  REQUIRE(!r.rule_sequence.empty());
  CHECK_FALSE(r.check.passed);
  CHECK(structurally_equal(r.graph, g));
}

namespace {

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

TEST_CASE("a group-merging rule matches every even group count and derives merge_groups' parameters") {
  Rule rule = merge_groups_rule();
  Graph g;
  NodeId x = g.add_input("x", {1, 64, 6, 6});
  NodeId grouped = g.add(OpType::conv2d, {{x}, {g.add_weight("w32", {64, 2, 3, 3})}}, conv_params());
  NodeId dense3 = g.add(OpType::conv2d, {{grouped}, {g.add_weight("w1", {64, 64, 3, 3})}}, conv_params());
  NodeId dense = g.add(OpType::conv2d, {{dense3}, {g.add_weight("w1b", {63, 64, 1, 1})}}, conv_params());
  NodeId three = g.add(OpType::conv2d, {{dense}, {g.add_weight("w3", {63, 21, 1, 1})}}, conv_params());
  g.add_output({three});
  std::vector<Match> m = forward_matches(g, rule);
  REQUIRE(m.size() == 1);  // 32 groups; not 1 (dense) nor 3 groups
  CHECK(m[0].nodes[m[0].nodes.size() - 1] == grouped);
  DirectedRule d = compile_rule(rule, 0).at(0);
  std::optional<Graph> out = apply_rule(g, m[0], d);
  REQUIRE(out);
  bool found = false;
  for (const Node& n : out->nodes())
    if (n.op == OpType::merge_groups) {
      found = true;
      CHECK(n.params.groups == 32);
      CHECK(n.params.into == 16);
      CHECK(n.output(0).shape == Shape{64, 4, 3, 3});
    }
  CHECK(found);
  CHECK(numerical_check(g, *out, 5, int64_t(1) << 40).passed);
  // Applied again, to the merged kernel: 16 groups into 8, reading merge_groups' output.
  std::vector<Match> again = forward_matches(*out, rule);
  REQUIRE(again.size() == 1);
  std::optional<Graph> twice = apply_rule(*out, again[0], d);
  REQUIRE(twice);
  int merges = 0;
  for (const Node& n : twice->nodes())
    if (n.op == OpType::merge_groups) merges += n.params.groups == 16 && n.params.into == 8;
  CHECK(merges == 1);
  CHECK(numerical_check(g, *twice, 6, int64_t(1) << 40).passed);
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
