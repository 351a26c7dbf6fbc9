// ONNX import: tests/data/onnx/tiny.onnx (nodes out of order, explicit and
// asymmetric pads, a conv bias, ceil-mode max pooling, average pooling that
// excludes padding, a folded Shape->Gather->Concat->Reshape chain, Gemm with
// transB and alpha) against a naive evaluation written here, --input-shape,
// and every malformed file in tests/data/malformed/onnx_*.onnx.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/regular_file.h"
#include "runtime/formats/onnx_bytes.h"
#include "runtime/formats/onnx_read.h"

using namespace superopt;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kSourceDir = SUPEROPT_SOURCE_DIR;
const std::string kTiny = kSourceDir + "/tests/data/onnx/tiny.onnx";

std::vector<double> weight(const Graph& g, const std::string& name) {
  std::optional<NodeId> id = g.find(name);
  REQUIRE(id);
  const std::vector<float>* data = g.weight_data(*id);
  REQUIRE(data != nullptr);
  return {data->begin(), data->end()};
}

// tiny.onnx computed directly from its definition (tests/make_onnx_fixtures.py), NCHW.
std::vector<double> naive_tiny(const Graph& g, const std::vector<double>& x) {
  const std::vector<double> w = weight(g, "w"), b = weight(g, "b"), fc = weight(g, "fc"),
                            fc_b = weight(g, "fc_b");
  // Conv: 2 -> 4 channels, 3x3, pads top 2, left 1, bottom 0, right 1; input 9x8 -> 9x8. Relu.
  const int H = 9, W = 8, OH = 9, OW = 8;
  std::vector<double> conv(4 * OH * OW);
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < OH; ++i)
      for (int j = 0; j < OW; ++j) {
        double s = b[o];
        for (int c = 0; c < 2; ++c)
          for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) {
              const int y = i + r - 2, z = j + q - 1;
              if (y >= 0 && y < H && z >= 0 && z < W)
                s += w[((o * 2 + c) * 3 + r) * 3 + q] * x[(c * H + y) * W + z];
            }
        conv[(o * OH + i) * OW + j] = std::max(s, 0.0);
      }
  // MaxPool 3x3 stride 2, ceil mode (which adds the last column): 9x8 -> 4x4.
  const int MH = 4, MW = 4;
  std::vector<double> mx(4 * MH * MW);
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < MH; ++i)
      for (int j = 0; j < MW; ++j) {
        double m = -INFINITY;
        for (int r = 0; r < 3; ++r)
          for (int q = 0; q < 3; ++q)
            if (2 * i + r < OH && 2 * j + q < OW)
              m = std::max(m, conv[(o * OH + 2 * i + r) * OW + 2 * j + q]);
        mx[(o * MH + i) * MW + j] = m;
      }
  // AveragePool 3x3 stride 2 pads 1, padding excluded from the count: 4x4 -> 2x2.
  std::vector<double> avg(16);
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        int n = 0;
        for (int r = 0; r < 3; ++r)
          for (int q = 0; q < 3; ++q) {
            const int y = 2 * i + r - 1, z = 2 * j + q - 1;
            if (y >= 0 && y < MH && z >= 0 && z < MW) s += mx[(o * MH + y) * MW + z], ++n;
          }
        avg[(o * 2 + i) * 2 + j] = s / n;
      }
  // Gemm: 0.5 * flat . fc^T + fc_b, then softmax. The graph's weight fc is already
  // transposed (16x5), as the importer stores a transB constant.
  std::vector<double> logits(5);
  for (int k = 0; k < 5; ++k) {
    double s = 0;
    for (int i = 0; i < 16; ++i) s += avg[i] * fc[i * 5 + k];
    logits[k] = 0.5 * s + fc_b[k];
  }
  const double top = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (double& v : logits) sum += (v = std::exp(v - top));
  for (double& v : logits) v /= sum;
  return logits;
}

// The import error for a malformed file: one line starting with its path.
std::string import_error(const std::string& name, const OnnxImportOptions& options = {}) {
  const std::string path = kSourceDir + "/tests/data/malformed/" + name;
  try {
    read_onnx_file(path, options);
  } catch (const Error& e) {
    std::string what = e.what();
    CHECK_THAT(what, StartsWith(path) && !Contains("\n"));
    return what;
  }
  FAIL("no error importing " << name);
  return {};
}

}  // namespace

TEST_CASE("onnx: tiny.onnx imports with its weights and names", "[onnx]") {
  OnnxModel m = read_onnx_file(kTiny);
  CHECK(m.onnx_nodes == 12);
  CHECK(m.opset == 13);
  CHECK(m.output_names == std::vector<std::string>{"probs"});
  REQUIRE(m.graph.outputs().size() == 1);
  CHECK(m.graph.shape(m.graph.outputs()[0]) == Shape{1, 5});
  CHECK(weight(m.graph, "w").size() == 72);  // named after the initializer, not its Identity alias
  CHECK(m.graph.shape({*m.graph.find("fc"), 0}) == Shape{16, 5});
  std::vector<OpType> ops;
  for (const Node& n : m.graph.nodes()) ops.push_back(n.op);
  auto count = [&](OpType op) { return std::count(ops.begin(), ops.end(), op); };
  CHECK(count(OpType::input) == 1);
  CHECK(count(OpType::pad) == 3);      // the conv's asymmetric pads, the ceil-mode column, the average pool's
  CHECK(count(OpType::reshape) == 1);  // Shape, Gather, Unsqueeze and Concat folded away
  CHECK(count(OpType::conv2d) == 1);
  CHECK(count(OpType::matmul) == 1);
  CHECK(count(OpType::softmax) == 1);
}

TEST_CASE("onnx: tiny.onnx computes what its definition says", "[onnx]") {
  OnnxModel m = read_onnx_file(kTiny);
  RealArith<double> ar;
  auto sources = random_sources(ar, 5);
  std::vector<Tensor<double>> out = evaluate(m.graph, ar, sources);
  Tensor<double> x = sources(m.graph, *m.graph.find("x"));
  std::vector<double> want = naive_tiny(m.graph, x.data);
  REQUIRE(out[0].size() == 5);
  for (int k = 0; k < 5; ++k) CHECK(out[0][k] == Approx(want[k]).epsilon(1e-12));
}

TEST_CASE("onnx: --input-shape fixes dynamic inputs and must agree with the model", "[onnx]") {
  const std::string path = kSourceDir + "/tests/data/malformed/onnx_dynamic_input.onnx";
  OnnxModel m = read_onnx_file(path, {{{"x", Shape{4, 3}}}});
  CHECK(m.graph.shape(m.graph.outputs()[0]) == Shape{4, 3});
  CHECK_THAT(import_error("onnx_dynamic_input.onnx", {{{"x", Shape{4, 5}}}}), Contains("dimension 1 is 3"));
  CHECK_THAT(import_error("onnx_dynamic_input.onnx", {{{"x", Shape{4}}}}), Contains("rank 2"));
  CHECK_THAT(import_error("onnx_dynamic_input.onnx", {{{"y", Shape{4, 3}}}}), Contains("no input 'y'"));
  CHECK(parse_input_shape("input.1=1x3x224x224") ==
        std::make_pair(std::string("input.1"), Shape{1, 3, 224, 224}));
  for (const char* bad : {"x", "x=", "=1x2", "x=1x", "x=1xx2", "x=0x2", "x=a", "x=1x2x3x4x5x6x7"})
    CHECK_THROWS_WITH(parse_input_shape(bad), Contains("--input-shape"));
}

TEST_CASE("onnx: malformed models give one line naming the problem", "[onnx]") {
  CHECK_THAT(import_error("onnx_truncated.onnx"), Contains("truncated or malformed"));
  CHECK_THAT(import_error("onnx_random_bytes.onnx"), Contains("not an ONNX model"));
  CHECK_THAT(import_error("onnx_cycle.onnx"), Contains("cycle"));
  CHECK_THAT(import_error("onnx_unsupported_op.onnx"),
             Contains("unsupported operator 'Hardmax' (node 'hm', opset 13)"));
  CHECK_THAT(import_error("onnx_dynamic_input.onnx"),
             Contains("dynamic dimension 'batch'") && Contains("--input-shape"));
  CHECK_THAT(import_error("onnx_initializer_size.onnx"),
             Contains("tensor 'w': 20 bytes of data for 36 bytes"));
  CHECK_THAT(import_error("onnx_missing_external_data.onnx"), Contains("onnx_missing_weights.bin"));
  CHECK_THAT(import_error("onnx_opset10.onnx"), Contains("opset 10 is not supported (opsets 11 to 17 are)"));
  CHECK_THROWS_WITH(read_onnx_file("/nonexistent/m.onnx"), StartsWith("/nonexistent/m.onnx: cannot open"));
}

TEST_CASE("onnx: a model from memory is validated as a file is, naming its source", "[onnx]") {
  // The Python package's path (read_onnx_bytes): the checks run on the private
  // copy, the message names the source given.
  const std::string dir = std::string(SUPEROPT_SOURCE_DIR) + "/tests/data/malformed/";
  for (const auto& [name, message] : std::vector<std::pair<std::string, std::string>>{
           {"onnx_duplicate_output.onnx", "two nodes write 'y'"},
           {"onnx_output_shape.onnx", "output 'y' is declared 1x4, but computes 1x3"},
           {"onnx_unknown_attribute.onnx", "onnx::checker: Unrecognized attribute: alpha"},
           {"onnx_conv_pads_2p40.onnx", "attribute 'pads' value 1099511627776 is out of range"}}) {
    const std::string bytes = read_regular_file(dir + name, kMaxTextFileBytes, "a test model");
    CHECK_THROWS_WITH(read_onnx_bytes(bytes, "<bytes of " + name + ">"),
                      StartsWith("<bytes of " + name + ">: ") && Contains(message) && !Contains("\n"));
  }
  const std::string tiny = read_regular_file(std::string(SUPEROPT_SOURCE_DIR) + "/tests/data/onnx/tiny.onnx",
                                             kMaxTextFileBytes, "tiny");
  CHECK(read_onnx_bytes(tiny, "<tiny>").graph.outputs().size() == 1);
}
