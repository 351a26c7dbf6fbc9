// Graph files: round trips through write/read for every operator, and one
// malformed file per error the reader must name precisely.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <string>

#include "runtime/core/error.h"
#include "runtime/core/graph.h"
#include "runtime/core/graph_hash.h"
#include "runtime/formats/graph_json.h"

using namespace superopt;
using Catch::Contains;
using Catch::StartsWith;

namespace {

const std::string kSourceDir = SUPEROPT_SOURCE_DIR;

OpParams shape_params(const Shape& s) {
  OpParams p;
  p.shape = s;
  return p;
}

// Uses every operator of the registry, with non-default parameters where an
// operator takes any, weights with and without data, split ports and several outputs.
Graph every_operator_graph() {
  Graph g;
  NodeId x = g.add_input("x", {1, 4, 8, 8});
  NodeId m = g.add_input("m", {2, 3, 5});
  NodeId w = g.add_weight("w", {4, 2, 3, 3});  // grouped: 4 input channels, 2 per group
  NodeId s = g.add_weight("s", {}, {0.1f});
  NodeId bn = g.add_weight("bn", {4}, {1.5f, -0.25f, 3e-8f, -0.0f});
  OpParams conv;
  conv.stride_h = 2;
  conv.padding = Padding::valid;
  conv.activation = Activation::relu;
  NodeId c = g.add(OpType::conv2d, {{x}, {w}}, conv, "conv");
  NodeId k = g.add(OpType::i_conv, {}, shape_params({4, 2, 3, 3}), "iconv");
  OpParams big;
  big.kernel_h = big.kernel_w = 5;
  NodeId e = g.add(OpType::enlarge, {{k}}, big, "enlarge");
  NodeId cp = g.add(OpType::c_pool, {}, shape_params({4, 1, 3, 3}), "cpool");
  OpParams pool;
  pool.kernel_h = 3, pool.kernel_w = 2, pool.stride_w = 2;
  NodeId pa = g.add(OpType::pool_avg, {{x}}, pool, "pavg");
  pool.padding = Padding::valid;
  NodeId pm = g.add(OpType::pool_max, {{x}}, pool, "pmax");
  NodeId r = g.add(OpType::relu, {{pm}}, {}, "relu");
  NodeId sg = g.add(OpType::sigmoid, {{r}}, {}, "sigmoid");
  NodeId th = g.add(OpType::tanh, {{pa}}, {}, "tanh");
  OpParams axis1;
  axis1.axis = 1;
  NodeId cat = g.add(OpType::concat, {{th}, {th}, {pa}}, axis1, "cat");
  NodeId sp = g.add(OpType::split, {{cat}}, axis1, "split");
  NodeId add = g.add(OpType::ewadd, {{sp, 1}, {th}}, {}, "add");
  NodeId mul =
      g.add(OpType::ewmul, {{add}, {g.add(OpType::i_ewmul, {}, shape_params({1, 4, 8, 4}), "ones")}});
  NodeId sm = g.add(OpType::smul, {{mul}, {s}}, {}, "smul");
  OpParams eps;
  eps.epsilon = 1e-3f;
  NodeId norm = g.add(OpType::batchnorm, {{sm}, {bn}, {bn}, {bn}, {bn}}, eps, "norm");
  OpParams perm;
  perm.perm = {0, 2, 1, -1, -1, -1};
  NodeId t1 = g.add(OpType::transpose, {{m}}, perm, "t_perm");
  NodeId t2 = g.add(OpType::transpose, {{m}}, {}, "t_reverse");
  NodeId id = g.add(OpType::i_matmul, {}, shape_params({3, 3}), "eye");
  NodeId mm = g.add(OpType::matmul, {{t1}, {id}}, {}, "mm");
  NodeId rs = g.add(OpType::reshape, {{t2}}, shape_params({5, 6}), "reshape");
  OpParams last;
  last.axis = 2;
  NodeId soft = g.add(OpType::softmax, {{mm}}, last, "softmax");
  NodeId op = g.add(OpType::opaque, {{rs}, {soft}}, shape_params({7}), "custom");
  OpParams merge;
  merge.groups = 2;
  merge.into = 1;
  NodeId mg = g.add(OpType::merge_groups, {{w}}, merge, "merged");
  // The operators only imported models use.
  NodeId sub = g.add(OpType::ewsub, {{mm}, {soft}}, {}, "sub");
  NodeId div = g.add(OpType::ewdiv, {{sub}, {s}}, {}, "div");
  NodeId sq = g.add(OpType::sqrt, {{sg}}, {}, "sqrt");
  NodeId er = g.add(OpType::erf, {{g.add(OpType::exp, {{th}}, {}, "exp")}}, {}, "erf");
  OpParams limits;
  limits.lo = 0;
  limits.hi = 6;
  NodeId cl = g.add(OpType::clip, {{er}}, limits, "clip");
  limits.lo = -std::numeric_limits<float>::infinity();
  limits.hi = 0.5f;
  NodeId cl2 = g.add(OpType::clip, {{cl}}, limits, "clip_hi");
  OpParams pads;
  pads.pads = {1, 0, 2, 1};
  pads.value = -std::numeric_limits<float>::infinity();
  NodeId pd = g.add(OpType::pad, {{x}}, pads, "pad");
  OpParams range;
  range.axis = 1;
  range.begin = 1;
  range.end = 3;
  NodeId sl = g.add(OpType::slice, {{pd}}, range, "slice");
  OpParams axes;
  axes.axes = 0b1100;
  NodeId rm = g.add(OpType::reduce_mean, {{sl}}, axes, "mean");
  // The torchvision zoo's (issue 36).
  OpParams ln;
  ln.axis = 2;
  ln.epsilon = 1e-6f;
  NodeId lw = g.add_weight("ln_w", {5});
  NodeId lnorm = g.add(OpType::layer_norm, {{m}, {lw}, {lw}}, ln, "layer_norm");
  NodeId act = g.add(OpType::hardsigmoid, {{lnorm}}, {}, "hardsigmoid");
  act = g.add(OpType::hardswish, {{act}}, {}, "hardswish");
  act = g.add(OpType::silu, {{act}}, {}, "silu");
  act = g.add(OpType::gelu, {{act}}, {}, "gelu");
  act = g.add(OpType::relu6, {{act}}, {}, "relu6");
  NodeId ex = g.add(OpType::expand, {{act}}, shape_params({4, 2, 3, 5}), "expand");
  NodeId rz = g.add(OpType::resize, {{ex}}, shape_params({4, 2, 7, 2}), "resize");
  OpParams gelu;
  gelu.activation = Activation::gelu;
  NodeId lin = g.add(OpType::linear, {{m}, {g.add_weight("lin_w", {5, 3})}, {g.add_weight("lin_b", {3})}},
                     gelu, "linear");
  for (TensorRef out : std::initializer_list<TensorRef>{
           {c}, {e}, {cp}, {sg}, {sp, 1}, {norm}, {op}, {sp, 1}, {mg}, {div}, {sq}, {cl2}, {rm}, {rz}, {lin}})
    g.add_output(out);
  return g;
}

// What the file format promises to keep beyond structural equality.
void require_same_details(const Graph& a, const Graph& b) {
  REQUIRE(structurally_equal(a, b));
  REQUIRE(canonical_hash(a) == canonical_hash(b));
  REQUIRE(a.outputs().size() == b.outputs().size());
  for (size_t i = 0; i < a.outputs().size(); ++i)
    CHECK(tensor_label(a, a.outputs()[i]) == tensor_label(b, b.outputs()[i]));
  for (NodeId id = 0; id < a.num_nodes(); ++id) {
    const Node& n = a.node(id);
    if (n.name.empty()) continue;
    std::optional<NodeId> other = b.find(n.name.str());
    REQUIRE(other);
    CHECK(b.node(*other).op == n.op);
    CHECK(params_equal(n.op, n.params, b.node(*other).params));
    const std::vector<float>* data = a.weight_data(id);
    REQUIRE((data == nullptr) == (b.weight_data(*other) == nullptr));
    if (data)
      for (size_t i = 0; i < data->size(); ++i)
        CHECK(std::bit_cast<uint32_t>((*data)[i]) == std::bit_cast<uint32_t>((*b.weight_data(*other))[i]));
  }
}

std::string malformed(const std::string& name) {
  return kSourceDir + "/tests/data/malformed/" + name;
}

// The error is one line, starts with the file's path and names the problem.
void require_error(const std::string& name, const std::string& expected) {
  std::string path = malformed(name);
  REQUIRE(std::filesystem::exists(path));
  REQUIRE_THROWS_WITH(read_graph_file(path), StartsWith(path) && Contains(expected) && !Contains("\n"));
}

}  // namespace

TEST_CASE("json: every operator round-trips", "[json]") {
  Graph g = every_operator_graph();
  for (int op = 0; op < kNumOpTypes; ++op) {
    INFO("operator " << op_name(OpType(op)));
    CHECK(std::any_of(g.nodes().begin(), g.nodes().end(), [&](const Node& n) { return int(n.op) == op; }));
  }
  std::string text = write_graph_json(g, "every_operator");
  Graph back = read_graph_json(text, "every_operator.json");
  require_same_details(g, back);
  SECTION("writing is stable") {
    CHECK(write_graph_json(back, "every_operator") == text);
  }
  SECTION("split ports and repeated outputs are kept") {
    CHECK(back.outputs()[4] == back.outputs()[7]);
    CHECK(back.outputs()[4].port == 1);
    CHECK_THAT(text, Contains("\"outputs\": [\"conv\", \"enlarge\", \"cpool\", \"sigmoid\", \"split:1\""));
  }
  SECTION("one entry per line, floats in their shortest form") {
    CHECK_THAT(text, Contains("\n    {\"name\": \"s\", \"shape\": [], \"data\": [0.1]},\n"));
    CHECK_THAT(text, Contains("\"data\": [1.5, -0.25, 3e-08, -0.0]"));
    CHECK_THAT(text, Contains("\"params\": {\"epsilon\": 0.001}"));
  }
}

TEST_CASE("json: unnamed nodes get fresh names that avoid existing ones", "[json]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 2});
  NodeId a = g.add(OpType::relu, {{x}});              // n1
  NodeId b = g.add(OpType::tanh, {{a}}, {}, "n1");    // takes "n1" first
  NodeId c = g.add(OpType::sigmoid, {{b}}, {}, "x");  // clashes with the input
  g.add_output({g.add(OpType::ewadd, {{a}, {c}})});
  std::string text = write_graph_json(g);
  Graph back = read_graph_json(text, "unnamed.json");
  REQUIRE(structurally_equal(g, back));
  CHECK_THAT(text, Contains("{\"name\": \"n1_1\", \"op\": \"relu\", \"inputs\": [\"x\"]}"));
  CHECK_THAT(text, Contains("{\"name\": \"n3\", \"op\": \"sigmoid\", \"inputs\": [\"n1\"]}"));
  CHECK_THAT(text, Contains("\"inputs\": [\"n1_1\", \"n3\"]"));
}

TEST_CASE("json: infinities in weight data (an attention mask) round-trip as strings", "[json]") {
  const float inf = std::numeric_limits<float>::infinity();
  Graph g;
  g.add_output({g.add_weight("mask", {4}, {0.0f, -inf, inf, -2.5f})});
  const std::string text = write_graph_json(g);
  CHECK_THAT(text, Contains("[0.0, \"-inf\", \"inf\", -2.5]"));
  require_same_details(g, read_graph_json(text, "mask.json"));
  const std::string other = R"({"format": "superopt-graph", "version": 1, "inputs": [],
    "weights": [{"name": "w", "shape": [2], "data": [1, "Infinity"]}], "nodes": [], "outputs": ["w"]})";
  REQUIRE_THROWS_WITH(read_graph_json(other, "w.json"),
                      Contains("data[1]") && Contains("\"inf\" or \"-inf\"") && Contains("Infinity"));
}

TEST_CASE("json: weight data round-trips bit for bit", "[json]") {
  std::mt19937 rng(7);
  std::vector<float> values;
  while (values.size() < 20000) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isfinite(f)) values.push_back(f);
  }
  values.insert(values.end(), {0.0f, -0.0f, 1.0f, 0.1f, 1e-45f, 3.4028235e38f, -1.17549435e-38f});
  Graph g;
  g.add_output({g.add_weight("w", {int64_t(values.size())}, values)});
  Graph back = read_graph_json(write_graph_json(g), "data.json");
  require_same_details(g, back);
}

TEST_CASE("json: graphs a file cannot hold are refused when writing", "[json]") {
  Graph g;
  NodeId w = g.add_weight("w", {2}, {1.0f, std::nanf("")});
  REQUIRE_THROWS_WITH(write_graph_json(g), Contains("cannot write a graph without outputs"));
  g.add_output({w});
  REQUIRE_THROWS_WITH(write_graph_json(g), Contains("weight 'w'") && Contains("holds nan"));
  Graph cyclic;
  NodeId x = cyclic.add_input("x", {2});
  NodeId a = cyclic.add(OpType::relu, {{x}});
  NodeId b = cyclic.add(OpType::tanh, {{a}});
  cyclic.set_input(a, 0, {b});
  cyclic.add_output({b});
  REQUIRE_THROWS_WITH(write_graph_json(cyclic), Contains("cannot write a graph with a cycle"));
}

TEST_CASE("json: the bundled examples read, and round-trip", "[json]") {
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir + "/data/graphs")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path());
    NamedGraph file = read_named_graph_file(entry.path());
    CHECK(file.name == entry.path().stem());
    require_same_details(file.graph, read_graph_json(write_graph_json(file.graph, file.name), "copy.json"));
  }
}

TEST_CASE("json: forward references, defaults and negative axes", "[json]") {
  Graph g = read_graph_file(kSourceDir + "/data/graphs/concat_split.json");
  NodeId halves = *g.find("halves"), probs = *g.find("probs");
  CHECK(g.node(halves).params.axis == 1);  // written as -2 on a rank-3 input
  CHECK(g.node(probs).params.axis == 2);   // softmax: the last axis by default
  CHECK(g.shape({halves, 1}) == Shape{2, 5, 4});
  CHECK(g.shape(g.outputs()[1]) == Shape{2, 5, 4});
  CHECK(*g.weight_data(*g.find("bias")) == std::vector<float>{0.25f, -0.5f, 1.0f, 2.0f});

  Graph r = read_graph_file(kSourceDir + "/data/graphs/resnet_bottleneck.json");
  const Node& expand = r.node(*r.find("expand"));
  CHECK(expand.params.stride_h == 1);
  CHECK(expand.params.padding == Padding::same);
  CHECK(expand.params.activation == Activation::none);
  CHECK(r.shape(r.outputs()[0]) == Shape{1, 256, 56, 56});
  CHECK(r.num_operators() == 5);
}

TEST_CASE("json: a file that cannot be opened", "[json]") {
  REQUIRE_THROWS_WITH(read_graph_file("/nonexistent/graph.json"),
                      Contains("cannot open /nonexistent/graph.json: No such file or directory"));
  REQUIRE_THROWS_WITH(read_graph_file(kSourceDir + "/data"), Contains("is a directory"));
}

TEST_CASE("json: duplicate keys are reported with their path", "[json]") {
  std::string text = R"({"format": "superopt-graph", "version": 1, "inputs": [{"name": "x", "shape": [2]},
    {"name": "y", "shape": [2], "name": "z"}], "outputs": ["x"]})";
  REQUIRE_THROWS_WITH(read_graph_json(text, "dup.json"),
                      Contains("dup.json: inputs[1]: duplicate key 'name'"));
}

TEST_CASE("json: long chains listed backwards read without deep recursion", "[json]") {
  const int n = 50000;
  std::string nodes;
  for (int i = n - 1; i >= 1; --i)
    nodes += R"({"name": "r)" + std::to_string(i) + R"(", "op": "relu", "inputs": ["r)" +
             std::to_string(i - 1) + "\"]},\n";
  std::string text = R"({"format": "superopt-graph", "version": 1, "inputs": [{"name": "r0", "shape": [2]}],
    "nodes": [)" + nodes +
                     R"({"name": "out", "op": "tanh", "inputs": ["r)" + std::to_string(n - 1) +
                     R"("]}], "outputs": ["out"]})";
  Graph g = read_graph_json(text, "chain.json");
  CHECK(g.num_nodes() == n + 1);
  CHECK(g.node(g.outputs()[0].node).op == OpType::tanh);
}

TEST_CASE("json: a node reading itself is a cycle", "[json]") {
  std::string text = R"({"format": "superopt-graph", "version": 1, "inputs": [{"name": "x", "shape": [2]}],
    "nodes": [{"name": "loop", "op": "ewadd", "inputs": ["x", "loop"]}], "outputs": ["loop"]})";
  REQUIRE_THROWS_WITH(read_graph_json(text, "self.json"), Contains("self.json: nodes: cycle: loop -> loop"));
}

TEST_CASE("json: unknown top-level fields and control characters", "[json]") {
  std::string extra = R"({"format": "superopt-graph", "version": 1, "output": ["x"]})";
  REQUIRE_THROWS_WITH(read_graph_json(extra, "top.json"), Contains("top.json: unknown field 'output'"));
  std::string newline =
      R"({"format": "superopt-graph", "version": 1, "inputs": [{"name": "a\nb", "shape": [2]}],
    "outputs": ["a\nb"]})";
  REQUIRE_THROWS_WITH(read_graph_json(newline, "ctl.json"),
                      Contains("'a\\x0ab' contains a control character") && !Contains("\n"));
}

TEST_CASE("json: malformed text", "[json]") {
  require_error("syntax_error.json", "syntax_error.json:4:10: JSON syntax error while parsing object");
  require_error("truncated.json", "truncated.json:11:19: JSON syntax error");
  require_error("truncated.json", "unexpected end of input");
  require_error("empty.json", "empty.json:1:1: JSON syntax error");
  require_error("duplicate_key.json", "nodes[0].params: duplicate key 'stride'");
  require_error("not_an_object.json", "expected a JSON object at the top level");
}

TEST_CASE("json: malformed header and fields", "[json]") {
  require_error("wrong_format.json", "format: expected \"superopt-graph\", got \"onnx\"");
  require_error("wrong_version.json", "version: this superopt reads version 1 only, got 2");
  require_error("unknown_field.json",
                "nodes[0] (\"c\"): unknown field 'param' (expected name, op, inputs, params)");
  require_error("empty_outputs.json", "outputs: expected a non-empty array of tensor names");
  require_error("missing_outputs.json", "missing field 'outputs'");
  require_error("bad_shape.json",
                "inputs[0] (\"x\"): shape: expected an array of at most 6 positive integers");
  require_error("weight_data_length.json", "weights[0] (\"s\"): data: 3 values for shape 2x2 (4 elements)");
}

TEST_CASE("json: malformed operators and parameters", "[json]") {
  require_error("unknown_operator.json", "nodes[0] (\"c\"): op: unknown operator 'conv3d'");
  require_error("input_as_node.json", "'input' entries belong in the top-level \"inputs\" array");
  require_error("wrong_param_type.json",
                "nodes[0] (\"conv2\"): params.stride: expected an array of 2 positive integers, got \"2\"");
  require_error("bad_padding.json", "params.padding: expected \"same\" or \"valid\", got \"full\"");
  require_error("unknown_param.json", "params.dilation: conv2d takes no parameter 'dilation'");
  require_error("missing_param.json", "nodes[0] (\"cat\"): params: concat requires parameter 'axis'");
  require_error("wrong_arity.json", "nodes[1] (\"r\"): inputs: relu takes 1 input, got 2");
  require_error("axis_out_of_range.json", "params.axis: axis -3 is out of range for the first input 2x3");
}

TEST_CASE("json: malformed references and graphs", "[json]") {
  require_error("dangling_reference.json", "nodes[1] (\"add\"): inputs[1]: no tensor named 'w9'");
  require_error("bad_port.json",
                "nodes[1] (\"r\"): inputs[0]: bad output port in 'c:1': 'c' (conv2d) has 1 output");
  require_error("bad_port_syntax.json", "outputs[0]: bad output port in 'c:first'");
  require_error("duplicate_name.json", "nodes[1] (\"x\"): name: duplicate name 'x' (also inputs[0] (\"x\"))");
  require_error("cycle.json", "cycle: a -> b -> a");
  require_error("shape_mismatch.json",
                "nodes[2] (\"mm\"): matmul: inner dimensions differ (inputs 2x4, 3x4)");
  require_error("split_without_concat.json", "nodes[0] (\"sp\"): split: no concatenation on axis 1 to undo");
  require_error(
      "huge_dimension.json",
      "inputs[0] (\"x\"): shape: dimension 2147483648 is over the limit of 2147483647 (a 32-bit integer)");
}

TEST_CASE("json: every malformed file is covered by a test", "[json]") {
  // Keeps tests/data/malformed and the cases above in step: a new file needs a
  // case here and an expected message in cli_tests.cmake, then a new count. The
  // malformed ONNX files have theirs in onnx_import_test.cc and onnx_tests.cmake,
  // the malformed files of other formats theirs where the format is tested.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir + "/tests/data/malformed")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path());
    CHECK_THROWS_AS(read_graph_file(entry.path()), Error);
    ++files;
  }
  CHECK(files == 28);
}
