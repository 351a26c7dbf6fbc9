// Rule instances at new shapes (runtime/rewrite/rule_instance.h): shapes that do
// not fit give nullopt without a throw (Graph::try_add), shapes that fit give the
// graphs the throwing Graph::add builds, node for node.
#include <catch2/catch.hpp>
#include <optional>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/rewrite/rule_instance.h"
#include "tests/rewrite_fixture.h"

using namespace superopt;
using namespace superopt::test;

namespace {

// g rebuilt node by node through Graph::add, which throws on a misfit.
Graph rebuilt(const Graph& g) {
  Graph out;
  for (const Node& n : g.nodes()) out.add(n.op, n.inputs(), n.params, n.name.str());
  for (TensorRef t : g.outputs()) out.add_output(t);
  return out;
}

void require_same_nodes(const Graph& a, const Graph& b) {
  REQUIRE(a.num_nodes() == b.num_nodes());
  for (NodeId i = 0; i < a.num_nodes(); ++i) {
    CHECK(a.node(i).op == b.node(i).op);
    CHECK(a.node(i).output_array == b.node(i).output_array);
  }
  CHECK(a.outputs() == b.outputs());
}

}  // namespace

TEST_CASE("a rule instance that fits is the graph Graph::add builds; one that does not is nullopt") {
  // x w1, x w2 = split(x concat(w1, w2)); variables x, w1, w2.
  DirectedRule d = compile_rule(merge_matmuls_rule(), 0).at(0);
  std::optional<RuleInstance> fits = instantiate(d, {{6, 16}, {16, 16}, {16, 16}});
  REQUIRE(fits);
  require_same_nodes(fits->source, rebuilt(fits->source));
  require_same_nodes(fits->target, rebuilt(fits->target));
  CHECK(fits->target.shape(fits->target.outputs()[1]) == Shape{6, 16});

  // Inner dimensions differ: Graph::add throws, an instance is simply absent.
  const std::vector<Shape> misfit = {{6, 16}, {15, 15}, {15, 15}};
  CHECK_FALSE(instantiate(d, misfit));
  Graph g;
  NodeId x = g.add_input("x", misfit[0]);
  NodeId w1 = g.add_weight("w1", misfit[1]);
  CHECK_THROWS_WITH(g.add(OpType::matmul, {{x}, {w1}}), Catch::Contains("inner dimensions differ"));
  CHECK_FALSE(g.try_add(OpType::matmul, std::vector<TensorRef>{{x}, {w1}}, {}));
  CHECK(g.num_nodes() == 2);  // a misfit adds nothing
}

TEST_CASE("rule instances of the shipped rules are the graphs Graph::add builds") {
  RuleDatabase db = RuleDatabase::read(SUPEROPT_SOURCE_DIR "/data/rules/taso-3.h5");
  int built = 0, absent = 0;
  for (size_t i = 0; i < db.rules.size(); i += 11)
    for (const DirectedRule& d : compile_rule(db.rules[i], int(i))) {
      std::vector<Shape> shapes = rule_variable_shapes(d);
      std::optional<RuleInstance> own = instantiate(d, shapes);
      if (own) {
        ++built;
        require_same_nodes(own->source, rebuilt(own->source));
        require_same_nodes(own->target, rebuilt(own->target));
      }
      // Every variable one larger in its last dimension: mostly misfits.
      for (Shape& s : shapes)
        if (s.rank() > 0) s.set(s.rank() - 1, s.back(0) + 1);
      absent += !instantiate(d, shapes).has_value();
    }
  CHECK(built > 100);
  CHECK(absent > 100);
}
