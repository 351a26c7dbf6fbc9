// Soundness over concats: a rule whose concats' parts line up only at the sizes
// it was found at (rule 1685 of data/rules/taso-3.h5 and the rules derived from
// it, then hand-made ones: parts equal by accident, three-way concats, a concat
// along another axis than the convolution's) is refuted, or proven for its
// size family and never applied outside it.
#include <catch2/catch.hpp>

#include <map>
#include <optional>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/rewrite/rewrite.h"
#include "runtime/rewrite/size_family.h"
#include "tests/application_check.h"
#include "tests/rule_builder.h"
#include "tests/verify_fixture.h"
#include "verify/rule_family.h"
#include "verify/rule_verifier.h"

using namespace superopt;
using namespace superopt::verify;
using superopt::test::axis;
using superopt::test::op;
using superopt::test::RuleBuilder;
using superopt::test::taso_axioms;

namespace {

using Sizes = std::map<std::string, Shape>;

// The graph `side` with its inputs and weights at the named shapes (the others
// as they are), every operator re-added so that its shapes are inferred again.
Graph at_sizes(const Graph& side, const Sizes& sizes) {
  Graph g;
  std::vector<NodeId> id(side.num_nodes());
  auto shape_of = [&](const Node& n) {
    auto it = sizes.find(std::string(n.name.str()));
    return it == sizes.end() ? n.output(0).shape : it->second;
  };
  for (NodeId k = 0; k < side.num_nodes(); ++k) {
    const Node& n = side.node(k);
    if (n.op == OpType::input) {
      id[k] = g.add_input(n.name.str(), shape_of(n));
    } else if (n.op == OpType::weight) {
      id[k] = g.add_weight(n.name.str(), shape_of(n));
    } else {
      std::vector<TensorRef> in;
      for (TensorRef t : n.inputs()) in.push_back({id[t.node], t.port});
      id[k] = g.add(n.op, in, n.params);
    }
  }
  for (TensorRef t : side.outputs()) g.add_output({id[t.node], t.port});
  return g;
}

// Every occurrence in g, forward and reversed, applied and checked.
int correct_applications(const Graph& g, const Rule& rule) {
  return test::applications_checked(g, rule, true);
}

// The verifier's verdict with the family it stores for a proven rule.
Rule decided(Rule r) {
  static RuleVerifier verifier(taso_axioms(), VerifyLimits{});
  RuleVerdict v = with_family(verifier.verify(r), r);
  INFO(rule_status_name(v.status) << ": " << v.note);
  CHECK(v.status != RuleStatus::candidate);
  r.status = v.status;
  r.note = v.note;
  r.family = v.family;
  return r;
}

// The rule's source, and its target, at sizes: both must be applied correctly
// or not at all; at `aligned` sizes a proven rule must still apply.
void never_wrong(const Rule& rule, const Sizes& misaligned, const Sizes& aligned) {
  INFO("rule " << rule_status_name(rule.status) << ", family "
               << (rule.family ? size_family_text(*rule.family) : std::string("not stated")));
  for (const Graph* side : {&rule.source, &rule.target}) {
    std::optional<Graph> g;
    try {
      g = at_sizes(*side, misaligned);
    } catch (const Error&) {
      continue;  // this side is not well formed at these sizes: nothing to match
    }
    correct_applications(*g, rule);
  }
  if (is_proven(rule.status)) CHECK(correct_applications(at_sizes(rule.source, aligned), rule) > 0);
}

OpParams conv_relu() {
  return test::conv(1, Padding::same, Activation::relu);
}

// conv(concat1(a, b), concat1(ka, kb)) = conv(concat1(b, a), concat1(kb, ka)):
// true where a meets ka, which the rule's own sizes (all 4) hide.
Rule swapped_channel_parts() {
  RuleBuilder r;
  auto [a, ab] = r.input("a", Shape{2, 4, 5, 5});
  auto [b, bb] = r.input("b", Shape{2, 4, 5, 5});
  auto [ka, kab] = r.input("ka", Shape{4, 4, 3, 3}, true);
  auto [kb, kbb] = r.input("kb", Shape{4, 4, 3, 3}, true);
  r.source.add_output(
      op(r.source, OpType::conv2d,
         {op(r.source, OpType::concat, {a, b}, axis(1)), op(r.source, OpType::concat, {ka, kb}, axis(1))},
         conv_relu()));
  r.target.add_output(
      op(r.target, OpType::conv2d,
         {op(r.target, OpType::concat, {bb, ab}, axis(1)), op(r.target, OpType::concat, {kbb, kab}, axis(1))},
         conv_relu()));
  return r.rule();
}

// matmul(concat1(x1, x2), concat0(y1, y2)) = matmul(x1, y1) + matmul(x2, y2):
// true where x1's columns are y1's rows.
Rule block_product() {
  RuleBuilder r;
  auto [x1, x1b] = r.input("x1", Shape{2, 4});
  auto [x2, x2b] = r.input("x2", Shape{2, 4});
  auto [y1, y1b] = r.input("y1", Shape{4, 4}, true);
  auto [y2, y2b] = r.input("y2", Shape{4, 4}, true);
  r.source.add_output(
      op(r.source, OpType::matmul,
         {op(r.source, OpType::concat, {x1, x2}, axis(1)), op(r.source, OpType::concat, {y1, y2}, axis(0))}));
  r.target.add_output(
      op(r.target, OpType::ewadd,
         {op(r.target, OpType::matmul, {x1b, y1b}), op(r.target, OpType::matmul, {x2b, y2b})}));
  return r.rule();
}

// Three-way: matmul(concat1(concat1(x1, x2), x3), concat0(y1, concat0(y2, y3)))
// = matmul(concat1(x3, concat1(x2, x1)), concat0(concat0(y3, y2), y1)).
Rule three_way_product() {
  RuleBuilder r;
  auto [x1, x1b] = r.input("x1", Shape{2, 4});
  auto [x2, x2b] = r.input("x2", Shape{2, 4});
  auto [x3, x3b] = r.input("x3", Shape{2, 4});
  auto [y1, y1b] = r.input("y1", Shape{4, 4}, true);
  auto [y2, y2b] = r.input("y2", Shape{4, 4}, true);
  auto [y3, y3b] = r.input("y3", Shape{4, 4}, true);
  Graph& s = r.source;
  s.add_output(op(s, OpType::matmul,
                  {op(s, OpType::concat, {op(s, OpType::concat, {x1, x2}, axis(1)), x3}, axis(1)),
                   op(s, OpType::concat, {y1, op(s, OpType::concat, {y2, y3}, axis(0))}, axis(0))}));
  Graph& t = r.target;
  t.add_output(op(t, OpType::matmul,
                  {op(t, OpType::concat, {x3b, op(t, OpType::concat, {x2b, x1b}, axis(1))}, axis(1)),
                   op(t, OpType::concat, {op(t, OpType::concat, {y3b, y2b}, axis(0)), y1b}, axis(0))}));
  return r.rule();
}

// A batch concat under a convolution, swapped in the kernel's channel concat:
// conv(concat0(a, b), concat1(ka, kb)) = concat0(conv(a, concat1(ka, kb)), conv(b, ...)):
// true at every size (the concat is along another axis than the convolution's).
Rule batch_concat_conv() {
  RuleBuilder r;
  auto [a, ab] = r.input("a", Shape{2, 8, 5, 5});
  auto [b, bb] = r.input("b", Shape{2, 8, 5, 5});
  auto [ka, kab] = r.input("ka", Shape{4, 4, 3, 3}, true);
  auto [kb, kbb] = r.input("kb", Shape{4, 4, 3, 3}, true);
  Graph& s = r.source;
  s.add_output(op(s, OpType::conv2d,
                  {op(s, OpType::concat, {a, b}, axis(0)), op(s, OpType::concat, {ka, kb}, axis(1))},
                  test::conv(1, Padding::same)));
  Graph& t = r.target;
  TensorRef k = op(t, OpType::concat, {kab, kbb}, axis(1));
  t.add_output(op(t, OpType::concat,
                  {op(t, OpType::conv2d, {ab, k}, test::conv(1, Padding::same)),
                   op(t, OpType::conv2d, {bb, k}, test::conv(1, Padding::same))},
                  axis(0)));
  return r.rule();
}

// Sizes for rule 1685's shape: the input parts as the issue found them, the
// kernel parts swapped (misaligned: the sums agree, the parts do not).
Sizes conv_parts(const std::string& a, const std::string& b, const std::string& ka, const std::string& kb,
                 int64_t kh, int64_t kw, bool aligned) {
  return {{a, Shape{5, 6, 7, 2}},
          {b, Shape{5, 4, 7, 2}},
          {ka, Shape{8, aligned ? 6 : 3, kh, kw}},
          {kb, Shape{8, aligned ? 4 : 7, kh, kw}}};
}

}  // namespace

TEST_CASE("rules 1685, 2301, 5716 of taso-3.h5 are not applied where their concats' parts miss",
          "[soundness]") {
  const RuleDatabase db = RuleDatabase::read(SUPEROPT_SOURCE_DIR "/data/rules/taso-3.h5");
  for (int k : {1685, 2301, 5716}) {
    const Rule& rule = db.rules.at(k);
    INFO("rule " << k << ": " << rule_status_name(rule.status));
    // conv2d(concat1(A, B), concat1(KA, KB)): the variables by their places.
    const Node* conv = nullptr;
    for (const Node& n : rule.source.nodes())
      if (n.op == OpType::conv2d) conv = &n;
    REQUIRE(conv);
    const Node& in = rule.source.node(conv->inputs()[0].node);
    const Node& kernel = rule.source.node(conv->inputs()[1].node);
    REQUIRE(in.op == OpType::concat);
    REQUIRE(kernel.op == OpType::concat);
    auto name = [&](const Node& concat, int i) {
      return std::string(rule.source.node(concat.inputs()[i].node).name.str());
    };
    const Shape& k_shape = rule.source.shape(kernel.inputs()[0]);
    auto sizes = [&](bool aligned) {
      return conv_parts(name(in, 0), name(in, 1), name(kernel, 0), name(kernel, 1), k_shape[2], k_shape[3],
                        aligned);
    };
    never_wrong(rule, sizes(false), sizes(true));
  }
}

TEST_CASE("concat rules are refuted, or proven for their family and applied only inside it", "[soundness]") {
  SECTION("swapped channel parts of a convolution") {
    never_wrong(decided(swapped_channel_parts()), conv_parts("a", "b", "ka", "kb", 3, 3, false),
                conv_parts("a", "b", "ka", "kb", 3, 3, true));
  }
  SECTION("a block product whose parts line up only by accident") {
    Sizes misaligned{{"x1", Shape{3, 2}}, {"x2", Shape{3, 5}}, {"y1", Shape{5, 4}}, {"y2", Shape{2, 4}}};
    Sizes aligned{{"x1", Shape{3, 2}}, {"x2", Shape{3, 5}}, {"y1", Shape{2, 4}}, {"y2", Shape{5, 4}}};
    never_wrong(decided(block_product()), misaligned, aligned);
  }
  SECTION("three-way concats") {
    Sizes misaligned{{"x1", Shape{3, 1}}, {"x2", Shape{3, 2}}, {"x3", Shape{3, 3}},
                     {"y1", Shape{3, 4}}, {"y2", Shape{2, 4}}, {"y3", Shape{1, 4}}};
    Sizes aligned{{"x1", Shape{3, 1}}, {"x2", Shape{3, 2}}, {"x3", Shape{3, 3}},
                  {"y1", Shape{1, 4}}, {"y2", Shape{2, 4}}, {"y3", Shape{3, 4}}};
    const Rule r = decided(three_way_product());
    never_wrong(r, misaligned, aligned);
  }
  SECTION("a concat along another axis than the convolution's") {
    const Rule r = decided(batch_concat_conv());
    CHECK(r.status == RuleStatus::verified);
    Sizes other{{"a", Shape{1, 6, 6, 6}},
                {"b", Shape{3, 6, 6, 6}},
                {"ka", Shape{2, 3, 3, 3}},
                {"kb", Shape{2, 3, 3, 3}}};
    never_wrong(r, other, other);
  }
}

TEST_CASE("a stated size family is what the matcher and the target builder enforce", "[soundness]") {
  Rule r = swapped_channel_parts();
  r.status = RuleStatus::verified;
  r.family = size_family_from_text("a.1=ka.1;b.1=kb.1");
  const Graph misaligned = at_sizes(r.source, conv_parts("a", "b", "ka", "kb", 3, 3, false));
  const Graph aligned = at_sizes(r.source, conv_parts("a", "b", "ka", "kb", 3, 3, true));
  CHECK(correct_applications(misaligned, r) == 0);
  CHECK(correct_applications(aligned, r) == 2);  // both directions match the swap
  // Without the family, the matcher would apply it where it is false.
  r.family = SizeFamily{};
  const DirectedRule d = compile_rule(r, 0).at(0);
  CHECK(find_matches(misaligned, GraphIndex(misaligned), d.source).size() == 1);
  // The family found from the rule alone ties each input part to a kernel part.
  r.family = size_family_of(r);
  CHECK(r.family->equal.size() > 2);
  CHECK(correct_applications(misaligned, r) == 0);
  CHECK(correct_applications(aligned, r) == 2);
}

TEST_CASE("the proof is made at a member where only what the family keeps equal is equal", "[soundness]") {
  const Rule r = swapped_channel_parts();
  const std::vector<RuleFamily> families = rule_families(r);
  REQUIRE_FALSE(families.empty());
  const RuleFamily& f = families.front();
  std::optional<RuleInstance> m = generic_instance(f);
  REQUIRE(m);
  // Each class's size, read back from the member: classes that moved differ.
  std::map<int64_t, int> classes_of_size;
  for (const std::vector<Slot>& c : f.classes) {
    const std::string& name = f.rule.source.variable_names[c[0].variable];
    const Shape& s = m->source.shape({*m->source.find(name), 0});
    if (s[c[0].axis] >= 11) ++classes_of_size[s[c[0].axis]];
  }
  CHECK(classes_of_size.size() >= 4);
  for (const auto& [size, n] : classes_of_size) CHECK(n == 1);
  // The swapped parts meet only where the family says: the proof at this member holds.
  CHECK(decided(r).status == RuleStatus::verified);
}
