// The rule generator: canonical enumeration, the rules of TASO's Figure 2, an
// independent floating-point re-check of every rule, and bad options.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#include "enum/enumerate.h"
#include "enum/generator.h"
#include "enum/opset.h"
#include "runtime/core/arith.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/graph_hash.h"
#include "runtime/core/hashing.h"
#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::enumeration;
using Catch::Contains;

namespace {

const std::string kSmall = SUPEROPT_SOURCE_DIR "/data/opsets/small.json";

void ensure_mpi() {
  static MpiWorld world;
}

// A folder of its own for each test process (removed at exit), so that two
// runs at once never share one.
std::string temp_path(const std::string& name) {
  static const test::TempDir process_dir;
  return process_dir.file(name);
}

RuleDatabase generate(int max_ops, const std::string& name, const std::string& opset = kSmall) {
  ensure_mpi();
  EnumerateOptions o;
  o.opset_path = opset;
  o.max_ops = max_ops;
  o.out_path = temp_path(name);
  o.force = true;
  enumerate_rules(o);
  return RuleDatabase::read(o.out_path);
}

const Node* producer(const Graph& g, TensorRef t) {
  return &g.node(t.node);
}

bool is_source(const Graph& g, TensorRef t) {
  OpType op = g.node(t.node).op;
  return op == OpType::input || op == OpType::weight;
}

// matmul(matmul(A, B), C) with A, B, C distinct sources.
bool left_nested_matmul(const Graph& g) {
  if (g.outputs().size() != 1) return false;
  const Node* top = producer(g, g.outputs()[0]);
  if (top->op != OpType::matmul || !is_source(g, top->inputs()[1])) return false;
  const Node* inner = producer(g, top->inputs()[0]);
  return inner->op == OpType::matmul && is_source(g, inner->inputs()[0]) && is_source(g, inner->inputs()[1]);
}
bool right_nested_matmul(const Graph& g) {
  if (g.outputs().size() != 1) return false;
  const Node* top = producer(g, g.outputs()[0]);
  if (top->op != OpType::matmul || !is_source(g, top->inputs()[0])) return false;
  const Node* inner = producer(g, top->inputs()[1]);
  return inner->op == OpType::matmul && is_source(g, inner->inputs()[0]) && is_source(g, inner->inputs()[1]);
}

// Two matmuls sharing their first input, as two outputs.
bool shared_input_matmuls(const Graph& g) {
  if (g.outputs().size() != 2 || g.num_operators() != 2) return false;
  const Node *a = producer(g, g.outputs()[0]), *b = producer(g, g.outputs()[1]);
  return a->op == OpType::matmul && b->op == OpType::matmul && a->inputs()[0] == b->inputs()[0];
}
// split(matmul(x, concat(w1, w2))) on axis 1.
bool fused_by_concat_split(const Graph& g) {
  if (g.outputs().size() != 2 || g.outputs()[0].node != g.outputs()[1].node) return false;
  const Node* split = producer(g, g.outputs()[0]);
  if (split->op != OpType::split || split->params.axis != 1) return false;
  const Node* mm = producer(g, split->inputs()[0]);
  return mm->op == OpType::matmul && producer(g, mm->inputs()[1])->op == OpType::concat;
}

// conv2d(x, k) with k a source, and conv2d(x, enlarge(k)) with the same activation.
bool plain_conv(const Graph& g) {
  if (g.outputs().size() != 1) return false;
  const Node* conv = producer(g, g.outputs()[0]);
  return conv->op == OpType::conv2d && conv->params.activation == Activation::none &&
         is_source(g, conv->inputs()[1]);
}
bool conv_of_enlarged(const Graph& g) {
  if (g.outputs().size() != 1) return false;
  const Node* conv = producer(g, g.outputs()[0]);
  return conv->op == OpType::conv2d && conv->params.activation == Activation::none &&
         producer(g, conv->inputs()[1])->op == OpType::enlarge;
}

bool has_rule(const RuleDatabase& db, bool (*a)(const Graph&), bool (*b)(const Graph&)) {
  for (const Rule& r : db.rules)
    if ((a(r.source) && b(r.target)) || (b(r.source) && a(r.target))) return true;
  return false;
}

}  // namespace

TEST_CASE("enumeration makes each graph once", "[enumerate]") {
  Opset opset = read_opset_file(kSmall);
  Generator gen(opset, 3, 1);
  std::set<uint64_t> hashes;
  uint64_t graphs = 0;
  gen.run_unit(GraphCode{}, 4, [&](const GeneratedGraph& g) {
    ++graphs;
    hashes.insert(canonical_hash(code_to_graph(g.code, opset)));
  });
  REQUIRE(graphs == gen.counts().graphs);
  REQUIRE(graphs > 1000);
  REQUIRE(hashes.size() == graphs);  // no graph twice, in any operator order
  REQUIRE(gen.counts().not_canonical > 0);
  REQUIRE(gen.counts().renamed_inputs > 0);
}

TEST_CASE("work units partition the enumeration", "[enumerate]") {
  Opset opset = read_opset_file(kSmall);
  Generator whole(opset, 3, 1), split(opset, 3, 1);
  std::multiset<uint64_t> all, by_units;
  whole.run_unit(GraphCode{}, 4, [&](const GeneratedGraph& g) { all.insert(g.fingerprint); });
  std::vector<GraphCode> units = split.prefixes(2);
  units.insert(units.begin(), GraphCode{});
  for (const GraphCode& u : units)
    split.run_unit(u, 2, [&](const GeneratedGraph& g) { by_units.insert(g.fingerprint); });
  REQUIRE(by_units == all);
}

TEST_CASE("the rules of TASO's Figure 2 are generated", "[enumerate]") {
  RuleDatabase db = generate(3, "figure2.h5");
  REQUIRE(db.info.opset_name == "small");
  REQUIRE(db.info.max_ops == 3);
  REQUIRE(db.info.stage_counts.size() == 3);
  REQUIRE(db.info.stage_counts[0].second >= db.info.stage_counts[1].second);
  REQUIRE(db.info.stage_counts[1].second >= db.info.stage_counts[2].second);
  CHECK(has_rule(db, left_nested_matmul, right_nested_matmul));      // (a) associativity
  CHECK(has_rule(db, shared_input_matmuls, fused_by_concat_split));  // (b) fusing through concat and split
}

// The common-subgraph pruning must not drop it as "implied by enlarge(k) = k",
// which is no rule (the shapes differ): MetaFlow's enlarge-then-merge needs it.
TEST_CASE("enlarging a kernel is a rule of its own", "[enumerate]") {
  RuleDatabase db = generate(2, "enlarge.h5", SUPEROPT_SOURCE_DIR "/data/opsets/taso.json");
  CHECK(has_rule(db, plain_conv, conv_of_enlarged));
}

// relu(conv2d(i, k, b)) against conv2d[relu](i, k, b): the bias a weight, the third input.
bool relu_of_biased_conv(const Graph& g) {
  const Node* relu = producer(g, g.outputs()[0]);
  if (relu->op != OpType::relu) return false;
  const Node* conv = producer(g, relu->inputs()[0]);
  return conv->op == OpType::conv2d && conv->num_inputs == 3 && conv->params.activation == Activation::none &&
         producer(g, conv->inputs()[2])->op == OpType::weight && g.shape(conv->inputs()[2]).rank() == 1;
}
bool biased_conv_with_relu(const Graph& g) {
  const Node* conv = producer(g, g.outputs()[0]);
  return conv->op == OpType::conv2d && conv->num_inputs == 3 && conv->params.activation == Activation::relu;
}

TEST_CASE("convolutions with a bias input are enumerated", "[enumerate]") {
  RuleDatabase db = generate(2, "conv-bias.h5", SUPEROPT_SOURCE_DIR "/data/opsets/conv-bias.json");
  CHECK(has_rule(db, relu_of_biased_conv, biased_conv_with_relu));
  for (const Rule& r : db.rules)
    for (const Graph* g : {&r.source, &r.target}) {
      const std::vector<bool> weight_only = weight_only_nodes(*g);
      for (const Node& n : g->nodes())
        if (n.op == OpType::conv2d) {
          REQUIRE(n.num_inputs == 3);
          CHECK(weight_only[size_t(n.inputs()[2].node)]);  // a weight, or weight-only work on weights
        }
    }
}

TEST_CASE("every candidate passes an independent floating-point re-check", "[enumerate]") {
  RuleDatabase db = generate(3, "recheck.h5");
  REQUIRE(db.rules.size() > 100);
  // Other inputs than the generator's, and the relu polynomial the generator uses.
  RealArith<double> real(/*relu_as_polynomial=*/true);
  auto inputs = random_sources(real, 0xabcdef);
  for (const Rule& r : db.rules) {
    REQUIRE(r.status == RuleStatus::candidate);
    auto a = evaluate(r.source, real, inputs), b = evaluate(r.target, real, inputs);
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      REQUIRE(a[k].shape == b[k].shape);
      for (size_t i = 0; i < a[k].data.size(); ++i)
        REQUIRE(std::abs(a[k].data[i] - b[k].data[i]) <= 1e-9 * std::max(1.0, std::abs(a[k].data[i])));
    }
  }
}

TEST_CASE("bad enumerate options give clear errors", "[enumerate]") {
  ensure_mpi();
  EnumerateOptions o;
  o.opset_path = kSmall;
  o.max_ops = 2;
  o.out_path = temp_path("exists.h5");
  o.force = true;
  enumerate_rules(o);
  o.force = false;
  REQUIRE_THROWS_WITH(enumerate_rules(o), Contains("exists (use --force"));
  o.out_path = "/nonexistent-dir/rules.h5";
  REQUIRE_THROWS_WITH(enumerate_rules(o), Contains("no directory"));
  o.out_path = temp_path("zero.h5");
  o.max_ops = 0;
  REQUIRE_THROWS_WITH(enumerate_rules(o), Contains("--max-ops must be between 1 and 8"));
  o.max_ops = 2;
  o.opset_path = "/nonexistent.json";
  REQUIRE_THROWS_WITH(enumerate_rules(o), Contains("cannot open /nonexistent.json"));
}

namespace {

// A structural hash of a code that does not depend on operator order or on
// the order of a commutative operator's inputs.
uint64_t unordered_hash(const GraphCode& code, const Opset& opset) {
  int s = static_cast<int>(opset.sources.size());
  std::vector<uint64_t> h(s + 2 * code.ops.size());
  for (int t = 0; t < s; ++t) h[t] = hash_combine(1, static_cast<uint64_t>(t));
  std::vector<uint64_t> ops;
  for (size_t k = 0; k < code.ops.size(); ++k) {
    const CodeOp& op = code.ops[k];
    std::vector<uint64_t> in;
    for (int i = 0; i < op.num_inputs; ++i) in.push_back(h[op.inputs[i]]);
    if (op_info(opset.operators[op.variant].op).commutative) std::sort(in.begin(), in.end());
    uint64_t v = hash_combine(2, op.variant);
    for (uint64_t x : in) v = hash_combine(v, x);
    h[s + 2 * k] = hash_combine(v, 0);
    h[s + 2 * k + 1] = hash_combine(v, 1);
    ops.push_back(v);
  }
  std::sort(ops.begin(), ops.end());
  return hash_bytes(ops.data(), ops.size() * 8, 3);
}

// The smallest canonical hash over every renaming of interchangeable sources.
uint64_t hash_up_to_renaming(const GraphCode& code, const Opset& opset) {
  std::vector<std::vector<int>> classes;
  for (size_t t = 0; t < opset.sources.size(); ++t) {
    size_t c = opset.sources[t].interchange_class;
    if (classes.size() <= c) classes.resize(c + 1);
    classes[c].push_back(static_cast<int>(t));
  }
  std::vector<int> rename(opset.sources.size());
  uint64_t best = ~uint64_t{0};
  std::function<void(size_t)> permute = [&](size_t c) {
    if (c == classes.size()) {
      GraphCode renamed = code;
      for (CodeOp& op : renamed.ops)
        for (int i = 0; i < op.num_inputs; ++i)
          if (op.inputs[i] < static_cast<int>(rename.size()))
            op.inputs[i] = static_cast<uint8_t>(rename[op.inputs[i]]);
      best = std::min(best, unordered_hash(renamed, opset));
      return;
    }
    std::vector<int> order = classes[c];
    do {
      for (size_t k = 0; k < order.size(); ++k) rename[classes[c][k]] = order[k];
      permute(c + 1);
    } while (std::next_permutation(order.begin(), order.end()));
  };
  permute(0);
  return best;
}

}  // namespace

TEST_CASE("ordering interchangeable inputs loses no graph up to renaming", "[enumerate]") {
  Opset opset = read_opset_file(kSmall);
  std::set<uint64_t> ordered, all;
  Generator with(opset, 3, 1), without(opset, 3, 1, /*order_inputs=*/false);
  with.run_unit(GraphCode{}, 4,
                [&](const GeneratedGraph& g) { ordered.insert(hash_up_to_renaming(g.code, opset)); });
  without.run_unit(GraphCode{}, 4,
                   [&](const GeneratedGraph& g) { all.insert(hash_up_to_renaming(g.code, opset)); });
  REQUIRE(without.counts().graphs > with.counts().graphs);  // the rule does cut renamings
  REQUIRE(ordered == all);                                  // ... and loses no graph
}
