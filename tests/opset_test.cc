// Operator-set files: the shipped opsets parse to the expected sources, classes
// and variants, and every malformed file gets its own precise one-line error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "enum/opset.h"
#include "runtime/core/error.h"
#include "runtime/formats/json_text.h"

using namespace superopt;
using namespace superopt::enumeration;
using Catch::Contains;
using Catch::Equals;
using Catch::StartsWith;

namespace {

const std::string kSourceDir = SUPEROPT_SOURCE_DIR;

const OpsetSource& source(const Opset& opset, const std::string& name) {
  auto it = std::find_if(opset.sources.begin(), opset.sources.end(),
                         [&](const OpsetSource& s) { return s.name == name; });
  REQUIRE(it != opset.sources.end());
  return *it;
}

std::vector<OpsetOperator> variants(const Opset& opset, OpType op) {
  std::vector<OpsetOperator> out;
  for (const OpsetOperator& o : opset.operators)
    if (o.op == op) out.push_back(o);
  return out;
}

size_t num_classes(const Opset& opset) {
  std::set<int> classes;
  for (const OpsetSource& s : opset.sources) classes.insert(s.interchange_class);
  return classes.size();
}

// A valid opset with one part replaced, so that each case differs in one place.
std::string opset_text(
    const std::string& sources, const std::string& operators,
    const std::string& header = R"("format": "superopt-opset", "version": 1, "name": "t")") {
  return "{" + header + ",\n \"sources\": " + sources + ",\n \"operators\": " + operators + "}";
}

const std::string kSources = R"([{"name": "x", "count": 2, "kind": "input", "shape": [2, 4]}])";
const std::string kOperators = R"([{"op": "matmul"}])";

std::string with_sources(const std::string& sources) {
  return opset_text(sources, kOperators);
}
std::string with_operators(const std::string& operators) {
  return opset_text(kSources, operators);
}

void require_error(const std::string& text, const std::string& message) {
  REQUIRE_THROWS_WITH(parse_opset(text, "t.json"), Equals(message));
}

}  // namespace

TEST_CASE("taso.json: TASO's sources, classes and operator variants", "[opset]") {
  std::string path = kSourceDir + "/data/opsets/taso.json";
  Opset opset = read_opset_file(path);
  CHECK(opset.name == "taso");
  CHECK(opset.text == json::read_text_file(path));
  CHECK(opset.sources.size() == 21);
  CHECK(num_classes(opset) == 9);
  CHECK(opset.operators.size() == 21);

  for (std::string group : {"x", "w", "i", "k", "kh", "kv"}) {
    int cls = source(opset, group + "1").interchange_class;
    CHECK(source(opset, group + "2").interchange_class == cls);
    CHECK(source(opset, group + "3").interchange_class == cls);
  }
  CHECK(source(opset, "x1").shape == Shape{2, 4});
  CHECK(source(opset, "w3").kind == OpType::weight);
  CHECK(source(opset, "i2").shape == Shape{2, 4, 5, 5});
  CHECK(source(opset, "k1").interchange_class != source(opset, "kh1").interchange_class);
  CHECK(source(opset, "kv1").shape == Shape{4, 4, 3, 1});
  CHECK(source(opset, "dw").shape == Shape{4, 1, 3, 3});
  CHECK(source(opset, "s").shape == Shape{});
  CHECK(source(opset, "kg").shape == Shape{4, 2, 3, 3});  // 2 groups for the 4-channel images

  for (const OpsetSource& s : opset.sources) CHECK((s.kind == OpType::input || s.kind == OpType::weight));

  // The constants are operators, each variant a shape.
  auto constant_shapes = [&](OpType op) {
    std::vector<Shape> shapes;
    for (const OpsetOperator& o : variants(opset, op)) shapes.push_back(o.params.shape);
    return shapes;
  };
  CHECK(constant_shapes(OpType::c_pool) == std::vector<Shape>{{4, 1, 3, 3}});
  CHECK(constant_shapes(OpType::i_conv) == std::vector<Shape>{{4, 4, 3, 3}});
  CHECK(constant_shapes(OpType::i_matmul) == std::vector<Shape>{{4, 4}});
  CHECK(constant_shapes(OpType::i_ewmul) == std::vector<Shape>{{2, 4}, {2, 4, 5, 5}});

  CHECK(variants(opset, OpType::matmul).at(0).input_rank == 2);  // TASO's matmul and transpose are 2-D
  CHECK(variants(opset, OpType::transpose).at(0).input_rank == 2);
  CHECK(variants(opset, OpType::conv2d).at(0).input_rank == 0);

  std::vector<OpsetOperator> conv = variants(opset, OpType::conv2d);
  REQUIRE(conv.size() == 2);
  CHECK(conv[0].params.activation == Activation::none);
  CHECK(conv[1].params.activation == Activation::relu);
  CHECK(conv[1].params.padding == Padding::same);
  std::vector<OpsetOperator> concat = variants(opset, OpType::concat);
  REQUIRE(concat.size() == 2);
  CHECK(concat[0].params.axis == 0);
  CHECK(concat[1].params.axis == 1);
  CHECK(variants(opset, OpType::split).size() == 2);
  std::vector<OpsetOperator> enlarge = variants(opset, OpType::enlarge);
  REQUIRE(enlarge.size() == 1);
  CHECK(enlarge[0].sources_only);
  CHECK(enlarge[0].params.kernel_h == 3);
  CHECK(enlarge[0].params.kernel_w == 3);
  std::vector<OpsetOperator> merge = variants(opset, OpType::merge_groups);
  REQUIRE(merge.size() == 1);
  CHECK(merge[0].sources_only);
  CHECK(merge[0].params.groups == 2);
  CHECK(merge[0].params.into == 1);
  CHECK(variants(opset, OpType::pool_avg).at(0).params.kernel_w == 3);
  CHECK(variants(opset, OpType::transpose).at(0).params.perm[0] == -1);  // reverse
  CHECK(std::count_if(opset.operators.begin(), opset.operators.end(),
                      [](const OpsetOperator& o) { return o.sources_only; }) == 2);
}

TEST_CASE("small.json: TASO Figure 2's matrices in few sources", "[opset]") {
  Opset opset = read_opset_file(kSourceDir + "/data/opsets/small.json");
  CHECK(opset.name == "small");
  CHECK(opset.sources.size() == 5);
  CHECK(num_classes(opset) == 3);
  CHECK(opset.operators.size() == 8);
  CHECK(source(opset, "x2").interchange_class == source(opset, "x1").interchange_class);
  CHECK(source(opset, "w1").interchange_class != source(opset, "x1").interchange_class);
  CHECK(source(opset, "s").kind == OpType::weight);
  CHECK(variants(opset, OpType::split).at(0).params.axis == 1);

  // matmul(x1, matmul(w1, w2)) is expressible: the shapes fit.
  TensorDesc x{source(opset, "x1").shape}, w{source(opset, "w1").shape}, ww, out;
  const TensorDesc* inner[] = {&w, &w};
  infer_outputs(OpType::matmul, {}, inner, {&ww, 1});
  const TensorDesc* outer[] = {&x, &ww};
  infer_outputs(OpType::matmul, {}, outer, {&out, 1});
  CHECK(out.shape == Shape{2, 4});
}

// Whether two variants are the same operator with the same parameters (the
// fields an opset file can set for the 2-D operators).
bool same_variant(const OpsetOperator& a, const OpsetOperator& b) {
  return a.op == b.op && a.input_rank == b.input_rank && a.sources_only == b.sources_only &&
         a.params.axis == b.params.axis && a.params.shape == b.params.shape && a.params.perm == b.params.perm;
}

TEST_CASE("taso-2d.json: exactly the 2-D part of taso.json", "[opset]") {
  Opset taso = read_opset_file(kSourceDir + "/data/opsets/taso.json");
  Opset opset = read_opset_file(kSourceDir + "/data/opsets/taso-2d.json");
  CHECK(opset.name == "taso-2d");
  CHECK(opset.sources.size() == 7);  // x1..x3, w1..w3, s
  CHECK(num_classes(opset) == 3);

  // Its sources are taso.json's scalar and 2-D ones, with the same kinds and classes.
  std::vector<std::string> taso_2d_sources;
  for (const OpsetSource& s : taso.sources)
    if (s.shape.rank() <= 2) taso_2d_sources.push_back(s.name);
  std::vector<std::string> names;
  for (const OpsetSource& s : opset.sources) {
    names.push_back(s.name);
    CHECK(source(taso, s.name).shape == s.shape);
    CHECK(source(taso, s.name).kind == s.kind);
  }
  CHECK(names == taso_2d_sources);
  CHECK(source(opset, "x3").interchange_class == source(opset, "x1").interchange_class);

  // Every variant is one of taso.json's, and it has all of taso.json's that
  // can read or make a 2-D tensor (not conv2d, pooling, enlarge, merge_groups,
  // C_pool, I_conv, nor I_ewmul's 4-D shape).
  for (const OpsetOperator& o : opset.operators)
    CHECK(std::any_of(taso.operators.begin(), taso.operators.end(),
                      [&](const OpsetOperator& t) { return same_variant(o, t); }));
  CHECK(opset.operators.size() == 12);
  CHECK(variants(opset, OpType::concat).size() == 2);
  CHECK(variants(opset, OpType::split).size() == 2);
  CHECK(variants(opset, OpType::i_ewmul).at(0).params.shape == Shape{2, 4});
  CHECK(variants(opset, OpType::conv2d).empty());
}

TEST_CASE("conv-bias.json: every convolution with its bias, stride 2 on sources only", "[opset]") {
  Opset opset = read_opset_file(kSourceDir + "/data/opsets/conv-bias.json");
  CHECK(source(opset, "b1").shape == Shape{4});
  const std::vector<OpsetOperator> convs = variants(opset, OpType::conv2d);
  REQUIRE(convs.size() == 8);
  for (const OpsetOperator& v : convs) {
    CHECK(v.arity() == 3);
    CHECK(v.sources_only == (v.params.stride_h == 2));
  }
  CHECK(variants(opset, OpType::relu).at(0).arity() == 1);
  // Two variants that differ only in their inputs are two variants.
  Opset two = parse_opset(with_operators(R"([{"op": "conv2d", "params": [{"stride": [1, 1]}]},
                                             {"op": "conv2d", "inputs": 3, "params": [{"stride": [1, 1]}]}])"),
                          "t.json");
  CHECK(two.operators.size() == 2);
}

TEST_CASE("opset: counts expand into shared classes, numbered in file order", "[opset]") {
  Opset opset = parse_opset(with_sources(R"([
    {"name": "a", "kind": "weight", "shape": []},
    {"name": "x", "count": 3, "kind": "input", "shape": [2, 4]},
    {"name": "y", "count": 1, "kind": "input", "shape": [2, 4]}])"),
                            "t.json");
  std::vector<std::string> names;
  std::vector<int> classes;
  for (const OpsetSource& s : opset.sources) names.push_back(s.name), classes.push_back(s.interchange_class);
  CHECK(names == std::vector<std::string>{"a", "x1", "x2", "x3", "y1"});
  CHECK(classes == std::vector<int>{0, 1, 1, 1, 2});
  REQUIRE(opset.operators.size() == 1);
  CHECK(opset.operators[0].op == OpType::matmul);
  CHECK_FALSE(opset.operators[0].sources_only);
}

TEST_CASE("opset: malformed headers", "[opset]") {
  REQUIRE_THROWS_WITH(parse_opset("{\"format\": ", "t.json"),
                      StartsWith("t.json:1:12: JSON syntax error") && !Contains("\n"));
  require_error("[1]", "t.json: expected a JSON object at the top level, got [1]");
  require_error(opset_text(kSources, kOperators, R"("format": "superopt-graph", "version": 1, "name": "t")"),
                "t.json: format: expected \"superopt-opset\", got \"superopt-graph\"");
  require_error(opset_text(kSources, kOperators, R"("format": "superopt-opset", "version": 2, "name": "t")"),
                "t.json: version: this superopt reads version 1 only, got 2");
  require_error(opset_text(kSources, kOperators, R"("format": "superopt-opset", "version": 1)"),
                "t.json: missing field 'name'");
  require_error(opset_text(kSources, kOperators, R"("format": "superopt-opset", "version": 1, "name": "")"),
                "t.json: name: expected a non-empty name without control characters, got \"\"");
  require_error(
      opset_text(kSources, kOperators, R"("format": "superopt-opset", "version": 1, "name": "t", "size": 3)"),
      "t.json: unknown field 'size' (expected format, version, name, description, sources, operators)");
  require_error(R"({"format": "superopt-opset", "version": 1, "name": "t", "operators": []})",
                "t.json: missing field 'sources'");
  require_error(with_sources("[]"), "t.json: sources: expected a non-empty array of source objects, got []");
  require_error(with_operators("{}"),
                "t.json: operators: expected a non-empty array of operator objects, got {}");
  REQUIRE_THROWS_WITH(read_opset_file("/nonexistent/t.json"),
                      Equals("cannot open /nonexistent/t.json: No such file or directory"));
}

TEST_CASE("opset: malformed sources", "[opset]") {
  require_error(with_sources("[3]"), "t.json: sources[0]: expected an object, got 3");
  require_error(with_sources(R"([{"name": "x", "kind": "input", "shape": [2], "data": [1, 2]}])"),
                "t.json: sources[0] (\"x\"): unknown field 'data' (expected name, count, kind, shape)");
  require_error(with_sources(R"([{"kind": "input", "shape": [2]}])"),
                "t.json: sources[0]: missing field 'name'");
  require_error(
      with_sources(R"([{"name": "x:0", "kind": "input", "shape": [2]}])"),
      "t.json: sources[0] (\"x:0\"): name: 'x:0' contains ':', which separates a name from an output port");
  require_error(with_sources(R"([{"name": "x", "kind": "tensor", "shape": [2]}])"),
                "t.json: sources[0] (\"x\"): kind: expected \"input\" or \"weight\", got \"tensor\"");
  require_error(with_sources(R"([{"name": "x", "kind": "input", "shape": [2]},
                                 {"name": "C", "kind": "C_pool", "shape": [4, 1, 3, 3]}])"),
                "t.json: sources[1] (\"C\"): kind: constants are operators in an operator set; list "
                "{\"op\": \"C_pool\", \"params\": [{\"shape\": [...]}]} under \"operators\"");
  require_error(with_sources(R"([{"name": "x", "kind": "input"}])"),
                "t.json: sources[0] (\"x\"): missing field 'shape'");
  require_error(
      with_sources(R"([{"name": "x", "kind": "input", "shape": [2, 0]}])"),
      "t.json: sources[0] (\"x\"): shape: expected an array of at most 6 positive integers, got [2,0]");
  require_error(with_sources(R"([{"name": "x", "count": 0, "kind": "input", "shape": [2]}])"),
                "t.json: sources[0] (\"x\"): count: expected an integer from 1 to 64, got 0");
  require_error(with_sources(R"([{"name": "x", "count": "3", "kind": "input", "shape": [2]}])"),
                "t.json: sources[0] (\"x\"): count: expected an integer from 1 to 64, got \"3\"");
  require_error(with_sources(R"([{"name": "x", "count": 2, "kind": "input", "shape": [2]},
                                 {"name": "x2", "kind": "weight", "shape": [2]}])"),
                "t.json: sources[1] (\"x2\"): name: duplicate name 'x2' (also sources[0] (\"x\"))");
}

TEST_CASE("opset: malformed operators", "[opset]") {
  require_error(with_operators("[\"relu\"]"), "t.json: operators[0]: expected an object, got \"relu\"");
  require_error(with_operators(R"([{"op": "relu", "arity": 1}])"),
                "t.json: operators[0] (\"relu\"): unknown field 'arity' (expected op, params, sources_only, "
                "rank, inputs)");
  require_error(with_operators(R"([{"op": "relu", "inputs": 2}])"),
                "t.json: operators[0] (\"relu\"): inputs: expected an integer from 1 to 1 for relu, got 2");
  require_error(
      with_operators(R"([{"op": "conv2d", "inputs": 4, "params": [{"stride": [1, 1]}]}])"),
      "t.json: operators[0] (\"conv2d\"): inputs: expected an integer from 2 to 3 for conv2d, got 4");
  require_error(with_operators(R"([{"params": []}])"), "t.json: operators[0]: missing field 'op'");
  REQUIRE_THROWS_WITH(parse_opset(with_operators(R"([{"op": "conv3d"}])"), "t.json"),
                      StartsWith("t.json: operators[0] (\"conv3d\"): op: 'conv3d' is not an operator to "
                                 "enumerate (allowed: C_pool, I_conv, I_matmul, I_ewmul, ewadd, ewmul,") &&
                          Contains("softmax, hardswish, silu, gelu, relu6, linear)") && !Contains("opaque") &&
                          !Contains("input") && !Contains("ewsub"));
  for (std::string op : {"input", "weight", "opaque", "pad", "erf"})  // pad, erf: only imported models
    REQUIRE_THROWS_WITH(
        parse_opset(with_operators(R"([{"op": ")" + op + "\"}]"), "t.json"),
        StartsWith("t.json: operators[0] (\"" + op + "\"): op: '" + op + "' is not an operator"));
  require_error(
      with_operators(R"([{"op": "conv2d", "params": {"stride": [1, 1]}}])"),
      "t.json: operators[0] (\"conv2d\"): params: expected a non-empty array of parameter objects, got "
      "{\"stride\":[1,1]}");
  require_error(
      with_operators(R"([{"op": "conv2d", "params": []}])"),
      "t.json: operators[0] (\"conv2d\"): params: expected a non-empty array of parameter objects, got []");
  require_error(with_operators(R"([{"op": "conv2d", "params": [{}, 1]}])"),
                "t.json: operators[0] (\"conv2d\"): params[1]: expected an object, got 1");
  require_error(
      with_operators(R"([{"op": "matmul", "params": [{"axis": 0}]}])"),
      "t.json: operators[0] (\"matmul\"): params[0].axis: matmul takes no parameter 'axis' (it takes none)");
  require_error(
      with_operators(R"([{"op": "conv2d", "params": [{"stride": [1, 1]}, {"stride": 1}]}])"),
      "t.json: operators[0] (\"conv2d\"): params[1].stride: expected an array of 2 positive integers, got 1");
  require_error(
      with_operators(R"([{"op": "conv2d", "params": [{"padding": "full"}]}])"),
      "t.json: operators[0] (\"conv2d\"): params[0].padding: expected \"same\" or \"valid\", got \"full\"");
  require_error(with_operators(R"([{"op": "pool_max"}])"),
                "t.json: operators[0] (\"pool_max\"): params: pool_max requires parameter 'kernel'");
  require_error(with_operators(R"([{"op": "concat"}])"),
                "t.json: operators[0] (\"concat\"): params: concat requires parameter 'axis'");
  require_error(with_operators(R"([{"op": "split", "params": [{"axis": 0}, {}]}])"),
                "t.json: operators[0] (\"split\"): params[1]: split requires parameter 'axis'");
  require_error(
      with_operators(R"([{"op": "softmax"}])"),
      "t.json: operators[0] (\"softmax\"): params: softmax requires parameter 'axis' (an operator set "
      "has no input rank to find the last axis)");
  require_error(
      with_operators(R"([{"op": "concat", "params": [{"axis": -1}]}])"),
      "t.json: operators[0] (\"concat\"): params[0].axis: expected an integer from 0 to 5 (an operator "
      "set has no input rank to count a negative axis from), got -1");
  require_error(with_operators(R"([{"op": "concat", "params": [{"axis": 6}]}])"),
                "t.json: operators[0] (\"concat\"): params[0].axis: expected an integer from -6 to 5, got 6");
  require_error(with_operators(R"([{"op": "matmul", "rank": 0}])"),
                "t.json: operators[0] (\"matmul\"): rank: expected an integer from 1 to 6, got 0");
  require_error(with_operators(R"([{"op": "enlarge", "params": [{"kernel": [3, 3]}], "sources_only": 1}])"),
                "t.json: operators[0] (\"enlarge\"): sources_only: expected true or false, got 1");
}

TEST_CASE("opset: constants are operators with a valid shape", "[opset]") {
  Opset opset = parse_opset(with_operators(R"([{"op": "matmul"},
    {"op": "I_matmul", "params": [{"shape": [4, 4]}, {"shape": [3, 2, 2]}]},
    {"op": "I_conv", "params": [{"shape": [4, 2, 1, 3]}]}])"),
                            "t.json");
  REQUIRE(opset.operators.size() == 4);
  CHECK(opset.operators[1].op == OpType::i_matmul);
  CHECK(opset.operators[2].params.shape == Shape{3, 2, 2});
  CHECK(opset.operators[3].op == OpType::i_conv);
  CHECK(opset.operators[3].params.shape == Shape{4, 2, 1, 3});

  require_error(
      with_operators(R"([{"op": "C_pool", "params": [{"shape": [4, 1, 3, 3]}, {"shape": [4, 4, 3, 3]}]}])"),
      "t.json: operators[0] (\"C_pool\"): params[1].shape: C_pool: shape 4x4x3x3 is not a depthwise "
      "kernel [C,1,kh,kw]");
  require_error(with_operators(R"([{"op": "I_conv", "params": [{"shape": [4, 4, 2, 2]}]}])"),
                "t.json: operators[0] (\"I_conv\"): params[0].shape: I_conv: shape 4x4x2x2 is not a kernel "
                "[C,C/g,kh,kw] with odd kh, kw");
  require_error(with_operators(R"([{"op": "I_matmul", "params": [{"shape": [4, 3]}]}])"),
                "t.json: operators[0] (\"I_matmul\"): params[0].shape: I_matmul: shape 4x3 is not square in "
                "its last two dimensions");
  require_error(with_operators(R"([{"op": "I_ewmul"}])"),
                "t.json: operators[0] (\"I_ewmul\"): params: I_ewmul requires parameter 'shape'");
  require_error(with_operators(R"([{"op": "C_pool", "params": [{}]}])"),
                "t.json: operators[0] (\"C_pool\"): params[0]: C_pool requires parameter 'shape'");
  require_error(
      with_operators(R"([{"op": "I_ewmul", "params": [{"shape": [2, 4]}, {"shape": [2, 4]}]}])"),
      "t.json: operators[0] (\"I_ewmul\"): params[1]: duplicate variant of I_ewmul (also operators[0] "
      "(\"I_ewmul\") params[0])");
}

TEST_CASE("opset: duplicate operator variants", "[opset]") {
  require_error(
      with_operators(R"([{"op": "concat", "params": [{"axis": 1}, {"axis": 0}, {"axis": 1}]}])"),
      "t.json: operators[0] (\"concat\"): params[2]: duplicate variant of concat (also operators[0] "
      "(\"concat\") params[0])");
  require_error(with_operators(R"([{"op": "relu"}, {"op": "matmul"}, {"op": "relu"}])"),
                "t.json: operators[2] (\"relu\"): duplicate variant of relu (also operators[0] (\"relu\"))");
  // Written defaults are the same variant as absent parameters.
  require_error(
      with_operators(
          R"([{"op": "conv2d"}, {"op": "conv2d", "params": [{"stride": [1, 1], "padding": "same"}]}])"),
      "t.json: operators[1] (\"conv2d\"): params[0]: duplicate variant of conv2d (also operators[0] "
      "(\"conv2d\"))");
  Opset ok = parse_opset(
      with_operators(R"([{"op": "conv2d"}, {"op": "conv2d", "params": [{"activation": "relu"}]}])"),
      "t.json");
  CHECK(ok.operators.size() == 2);
}
