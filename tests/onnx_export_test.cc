// ONNX export: models written by onnx_model_bytes and read back by the importer
// compute the same values (imported models, builtin models whose weights become
// inputs, TASO's constants, enlarge, split, merge_groups, every imported operator),
// keep their input and output names, and write_model_file leaves nothing on failure.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <limits>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/formats/model_file.h"
#include "runtime/formats/onnx_read.h"
#include "runtime/formats/onnx_write.h"
#include "runtime/models/model_zoo.h"
#include "tests/temp_dir.h"

using namespace superopt;
using Catch::Matchers::Contains;

namespace {

const std::string kSourceDir = SUPEROPT_SOURCE_DIR;

// Worst |a - b| / max |a| over all outputs, both run on the same seeded sources.
double difference(const Graph& a, const Graph& b) {
  RealArith<double> ar;
  auto sources = random_sources(ar, 3);
  std::vector<Tensor<double>> x = evaluate(a, ar, sources), y = evaluate(b, ar, sources);
  REQUIRE(x.size() == y.size());
  double worst = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    REQUIRE(x[k].shape == y[k].shape);
    double scale = 1e-300;
    for (double v : x[k].data) scale = std::max(scale, std::abs(v));
    for (int64_t i = 0; i < x[k].size(); ++i) worst = std::max(worst, std::abs(x[k][i] - y[k][i]) / scale);
  }
  return worst;
}

OnnxModel round_trip(const Graph& g, const test::TempDir& dir, const std::vector<std::string>& names = {}) {
  const std::string path = dir.file("model.onnx");
  write_model_file(path, g, "test", names);
  return read_onnx_file(path);
}

// Operators the importer never produces, on weights with data and without.
Graph taso_graph() {
  Graph g;
  NodeId x = g.add_input("x", {1, 4, 7, 7});
  NodeId w = g.add_weight("w", {4, 2, 3, 3}, std::vector<float>(72, 0.25f));
  NodeId s = g.add_weight("s", {1, 1});
  OpParams conv;
  conv.stride_h = conv.stride_w = 2;
  conv.activation = Activation::relu;  // SAME, asymmetric at stride 2
  NodeId c = g.add(OpType::conv2d, {{x}, {w}}, conv, "conv");
  OpParams big;
  big.kernel_h = big.kernel_w = 5;
  NodeId e = g.add(OpType::enlarge,
                   {{g.add(OpType::i_conv, {},
                           [] {
                             OpParams p;
                             p.shape = Shape{4, 4, 3, 3};
                             return p;
                           }())}},
                   big);
  NodeId c2 = g.add(OpType::conv2d, {{x}, {e}}, {}, "conv5");
  OpParams merge;
  merge.groups = 2;
  merge.into = 1;
  NodeId mg = g.add(OpType::merge_groups, {{w}}, merge);
  NodeId c3 = g.add(OpType::conv2d, {{x}, {mg}}, {}, "merged");
  OpParams axis1;
  axis1.axis = 1;
  NodeId cat = g.add(OpType::concat, {{c2}, {c3}}, axis1);
  NodeId sp = g.add(OpType::split, {{cat}}, axis1, "sp");
  NodeId sm = g.add(OpType::smul, {{sp, 1}, {s}}, {}, "scaled");
  OpParams pool;
  pool.kernel_h = pool.kernel_w = 3;
  pool.stride_h = pool.stride_w = 2;
  NodeId pa = g.add(OpType::pool_avg, {{sm}}, pool, "pavg");
  NodeId pm = g.add(OpType::pool_max, {{sp, 0}}, pool, "pmax");
  g.add_output({c});
  g.add_output({pa});
  g.add_output({pm});
  g.add_output({c});  // the same tensor twice
  return g;
}

}  // namespace

TEST_CASE("onnx export: an imported model comes back equal, with its names", "[onnx]") {
  test::TempDir dir;
  OnnxModel m = read_onnx_file(kSourceDir + "/tests/data/onnx/tiny.onnx");
  OnnxModel back = round_trip(m.graph, dir, m.output_names);
  CHECK(back.output_names == m.output_names);
  CHECK(back.graph.find("x").has_value());
  CHECK(back.opset == kOnnxExportOpset);
  CHECK(difference(m.graph, back.graph) <= 1e-15);
}

// Past protobuf's 2 GB an ONNX model keeps its values in a file beside it; here
// the bound is set low enough for a small model to take that path.
TEST_CASE("onnx export: values as external data past the size bound", "[onnx]") {
  test::TempDir dir;
  OnnxModel m = read_onnx_file(kSourceDir + "/tests/data/onnx/tiny.onnx");
  const std::string path = dir.file("big.onnx");
  write_model_file(path, m.graph, "test", m.output_names, /*onnx_external_above_bytes=*/16);
  REQUIRE(std::filesystem::exists(path + ".data"));
  CHECK(std::filesystem::file_size(path + ".data") > 0);
  OnnxModel back = read_onnx_file(path);
  CHECK(difference(m.graph, back.graph) == 0);
  // Within the bound, no file beside it.
  write_model_file(dir.file("small.onnx"), m.graph, "test", m.output_names);
  CHECK_FALSE(std::filesystem::exists(dir.file("small.onnx") + ".data"));
  // Written over the big one, the values it kept beside it go with it.
  write_model_file(path, m.graph, "test", m.output_names);
  CHECK_FALSE(std::filesystem::exists(path + ".data"));
  CHECK(difference(m.graph, read_onnx_file(path).graph) == 0);
}

TEST_CASE("onnx export: TASO's operators and constants, outputs named after nodes", "[onnx]") {
  test::TempDir dir;
  Graph g = taso_graph();
  OnnxModel back = round_trip(g, dir);
  CHECK(back.output_names == std::vector<std::string>{"conv", "pavg", "pmax", "conv_1"});
  CHECK(back.graph.find("s").has_value());  // a weight without data is an input now
  CHECK(back.graph.node(*back.graph.find("s")).op == OpType::input);
  CHECK(difference(g, back.graph) <= 1e-12);
}

TEST_CASE("onnx export: builtin models round-trip", "[onnx]") {
  test::TempDir dir;
  for (const char* name : {"squeezenet", "nasrnn", "resnet_blocks:1"}) {
    INFO(name);
    Graph g = build_builtin_model(name);
    CHECK(difference(g, round_trip(g, dir).graph) <= 1e-12);
  }
}

TEST_CASE("onnx export: every imported operator round-trips", "[onnx]") {
  test::TempDir dir;
  Graph g;
  NodeId x = g.add_input("x", {1, 3, 5, 4});
  NodeId half = g.add_weight("half", {}, {0.5f});
  OpParams pads;
  pads.pads = {1, 2, 0, 1};
  pads.value = -std::numeric_limits<float>::infinity();
  NodeId pd = g.add(OpType::pad, {{x}}, pads);
  OpParams pool;
  pool.kernel_h = pool.kernel_w = 2;
  pool.padding = Padding::valid;
  NodeId pm = g.add(OpType::pool_max, {{pd}}, pool);
  OpParams range;
  range.axis = 1;
  range.begin = 1;
  range.end = 3;
  NodeId sl = g.add(OpType::slice, {{pm}}, range);
  OpParams axes;
  axes.axes = 0b1000;
  NodeId rm = g.add(OpType::reduce_mean, {{sl}}, axes);
  NodeId sub = g.add(OpType::ewsub, {{sl}, {rm}});
  NodeId div = g.add(OpType::ewdiv, {{sub}, {half}});
  NodeId er = g.add(OpType::erf, {{div}});
  NodeId sq = g.add(OpType::sqrt, {{g.add(OpType::ewmul, {{er}, {er}})}});
  OpParams clip;
  clip.lo = 0.1f;
  NodeId cl = g.add(OpType::clip, {{sq}}, clip, "out");
  g.add_output({cl});
  OnnxModel back = round_trip(g, dir, {"result"});
  CHECK(back.output_names == std::vector<std::string>{"result"});
  CHECK(difference(g, back.graph) <= 1e-15);
}

TEST_CASE("onnx export: what ONNX cannot hold is refused and nothing is written", "[onnx]") {
  test::TempDir dir;
  Graph g;
  NodeId x = g.add_input("x", {4});
  OpParams p;
  p.shape = Shape{4};
  g.add_output({g.add(OpType::opaque, {{x}}, p, "custom")});
  CHECK_THROWS_WITH(write_model_file(dir.file("o.onnx"), g, "t"),
                    Contains("opaque custom: no ONNX equivalent"));
  CHECK(dir.entries().empty());
  Graph ok = build_builtin_model("nasrnn");
  CHECK_THROWS_WITH(write_model_file("/nonexistent/dir/m.onnx", ok, "t"),
                    Contains("cannot write /nonexistent"));
}
