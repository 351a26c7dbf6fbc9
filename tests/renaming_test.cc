// Class keys and aligned codes: graphs equal up to a renaming of
// interchangeable sources meet in one class, each under the naming that
// makes it compute the class's values, and a function with a symmetry its
// graph lacks is handed out under each naming that gives another graph.
#include <catch2/catch.hpp>

#include <map>

#include "enum/generator.h"
#include "enum/opset.h"
#include "enum/renaming.h"

using namespace superopt::enumeration;

namespace {

struct Visited {
  uint64_t fingerprint, class_key;
  std::vector<std::string> aligned;
};

std::map<std::string, Visited> generate(const Opset& opset, int max_ops) {
  Generator gen(opset, max_ops, 1);
  std::map<std::string, Visited> graphs;
  gen.run_unit(GraphCode{}, max_ops + 1, [&](const GeneratedGraph& g) {
    Visited v{g.fingerprint, g.class_key, {}};
    for (const GraphCode& a : g.aligned) v.aligned.push_back(code_str(a, opset));
    graphs[code_str(g.code, opset)] = v;
  });
  return graphs;
}

const Opset& three_inputs() {
  static Opset opset = read_opset_file(SUPEROPT_SOURCE_DIR "/tests/data/opsets/three_inputs.json");
  return opset;
}

}  // namespace

TEST_CASE("graphs equal up to a renaming share a class key", "[renaming]") {
  std::map<std::string, Visited> graphs = generate(three_inputs(), 3);
  // x3 (x1 + x2) and x1 x2 + x1 x3 = x1 (x2 + x3): the same function once x1 and x3 trade places.
  const Visited& product = graphs.at("ewadd(x1, x2); ewmul(x3, #0)");
  const Visited& sum = graphs.at("ewmul(x1, x2); ewmul(x1, x3); ewadd(#0, #1)");
  CHECK(product.fingerprint != sum.fingerprint);
  CHECK(product.class_key == sum.class_key);
  // Each is handed out under a naming with the class's values: its own, or a renaming.
  REQUIRE(product.aligned.size() == 1);
  REQUIRE(sum.aligned.size() == 1);
  CHECK(product.aligned[0] != sum.aligned[0]);
  // Another function stays apart.
  CHECK(graphs.at("ewmul(x1, x2); ewadd(x3, #0)").class_key != product.class_key);
}

TEST_CASE("a function with a symmetry its graph lacks is handed out under each naming", "[renaming]") {
  std::map<std::string, Visited> graphs = generate(three_inputs(), 3);
  // (x1 + x2) + x3: which input is added last makes three graphs of one function.
  const Visited& sum3 = graphs.at("ewadd(x1, x2); ewadd(x3, #0)");
  CHECK(sum3.aligned.size() == 3);
  // x1 + x2: swapping the inputs gives the same graph again, handed out once.
  CHECK(graphs.at("ewadd(x1, x2)").aligned.size() == 1);
  // A graph reading one source of its class has no renaming but itself.
  CHECK(graphs.at("ewadd(x1, x1)").class_key == graphs.at("ewadd(x1, x1)").fingerprint);
}

TEST_CASE("a rule is stored under the naming that makes its target canonical", "[renaming]") {
  const Opset& opset = three_inputs();
  // Found as x2 (x3 + x1) = x2 x3 + x1 x2 (aligned codes of a class).
  CandidateRule rule;
  auto code = [&](std::vector<CodeOp> ops) { return GraphCode{std::move(ops)}; };
  const uint8_t x1 = 0, x2 = 1, x3 = 2, op0 = 3, op1 = 5;
  rule.source = code({{1, 2, {x2, x3}}, {1, 2, {x1, x2}}, {0, 2, {op0, op1}}});
  rule.target = code({{0, 2, {x3, x1}}, {1, 2, {x2, op0}}});
  rule.source_outputs = {7};
  rule.target_outputs = {5};
  name_canonically(rule, opset);
  CHECK(code_str(rule.target, opset) == "ewadd(x1, x2); ewmul(x3, #0)");
  CHECK(code_str(rule.source, opset) == "ewmul(x1, x3); ewmul(x2, x3); ewadd(#0, #1)");
}
