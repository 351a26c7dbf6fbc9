// Shape inference, split trees and costs of every operator in the registry, good inputs and bad.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/operator_registry.h"
#include "tests/op_params.h"

using namespace superopt;
using namespace superopt::test;
using Catch::Contains;

namespace {

TensorDesc desc(Shape s) {
  return TensorDesc{s, {}};
}

std::vector<TensorDesc> infer(OpType op, std::vector<TensorDesc> in, const OpParams& p = {}) {
  std::vector<const TensorDesc*> ptrs;
  for (const TensorDesc& d : in) ptrs.push_back(&d);
  std::vector<TensorDesc> out(op_info(op).num_outputs);
  infer_outputs(op, p, ptrs, out);
  return out;
}

Shape infer_shape(OpType op, std::vector<Shape> in, const OpParams& p = {}) {
  std::vector<TensorDesc> d;
  for (const Shape& s : in) d.push_back(desc(s));
  return infer(op, d, p)[0].shape;
}

}  // namespace

TEST_CASE("every operator has a unique name that maps back", "[registry]") {
  for (int i = 0; i < kNumOpTypes; ++i) {
    OpType op = static_cast<OpType>(i);
    REQUIRE(op_from_name(op_name(op)) == op);
  }
  REQUIRE_FALSE(op_from_name("conv3d").has_value());
}

TEST_CASE("sources and constants take their shape from the parameters", "[registry]") {
  REQUIRE(infer_shape(OpType::input, {}, with_shape({2, 4})) == Shape{2, 4});
  REQUIRE(infer_shape(OpType::weight, {}, with_shape({})) == Shape{});
  REQUIRE(infer_shape(OpType::c_pool, {}, with_shape({4, 1, 3, 3})) == Shape{4, 1, 3, 3});
  REQUIRE(infer_shape(OpType::i_conv, {}, with_shape({4, 4, 3, 3})) == Shape{4, 4, 3, 3});
  REQUIRE(infer_shape(OpType::i_matmul, {}, with_shape({4, 4})) == Shape{4, 4});
  REQUIRE(infer_shape(OpType::i_ewmul, {}, with_shape({2, 4, 5, 5})) == Shape{2, 4, 5, 5});
  REQUIRE_THROWS_WITH(infer_shape(OpType::input, {}, with_shape({2, 0})), Contains("non-positive"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::c_pool, {}, with_shape({4, 4, 3, 3})), Contains("depthwise"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::i_conv, {}, with_shape({4, 4, 2, 2})), Contains("odd"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::i_matmul, {}, with_shape({4, 3})), Contains("square"));
}

TEST_CASE("element-wise operators broadcast like NumPy", "[registry]") {
  REQUIRE(infer_shape(OpType::ewadd, {{2, 4}, {2, 4}}) == Shape{2, 4});
  REQUIRE(infer_shape(OpType::ewmul, {{1, 64, 8, 8}, {64, 1, 1}}) == Shape{1, 64, 8, 8});
  REQUIRE(infer_shape(OpType::ewadd, {{3, 1}, {1, 5}}) == Shape{3, 5});
  REQUIRE_THROWS_WITH(infer_shape(OpType::ewadd, {{2, 4}, {4, 2}}),
                      Contains("ewadd") && Contains("broadcast") && Contains("2x4, 4x2"));
  REQUIRE(infer_shape(OpType::relu, {{2, 4}}) == Shape{2, 4});
  REQUIRE(infer_shape(OpType::sigmoid, {{7}}) == Shape{7});
  REQUIRE(infer_shape(OpType::tanh, {{1, 2, 3}}) == Shape{1, 2, 3});
}

TEST_CASE("smul multiplies by a one-element tensor", "[registry]") {
  REQUIRE(infer_shape(OpType::smul, {{2, 4}, {}}) == Shape{2, 4});
  REQUIRE(infer_shape(OpType::smul, {{2, 4}, {1}}) == Shape{2, 4});
  REQUIRE_THROWS_WITH(infer_shape(OpType::smul, {{2, 4}, {2}}), Contains("one element"));
}

TEST_CASE("transpose permutes dimensions", "[registry]") {
  REQUIRE(infer_shape(OpType::transpose, {{2, 4}}) == Shape{4, 2});  // default: reverse
  OpParams p;
  p.perm = {0, 2, 3, 1, -1, -1};
  REQUIRE(infer_shape(OpType::transpose, {{1, 2, 3, 4}}, p) == Shape{1, 3, 4, 2});
  p.perm = {0, 0, 1, -1, -1, -1};
  REQUIRE_THROWS_WITH(infer_shape(OpType::transpose, {{1, 2, 3}}, p), Contains("not a permutation"));
  p.perm = {1, 0, -1, -1, -1, -1};
  REQUIRE_THROWS_WITH(infer_shape(OpType::transpose, {{1, 2, 3}}, p), Contains("2 entries"));
}

TEST_CASE("matmul multiplies batched matrices", "[registry]") {
  REQUIRE(infer_shape(OpType::matmul, {{2, 4}, {4, 4}}) == Shape{2, 4});
  REQUIRE(infer_shape(OpType::matmul, {{16, 64, 64}, {16, 64, 32}}) == Shape{16, 64, 32});
  REQUIRE(infer_shape(OpType::matmul, {{16, 64, 64}, {64, 8}}) == Shape{16, 64, 8});
  REQUIRE_THROWS_WITH(infer_shape(OpType::matmul, {{2, 4}, {3, 4}}), Contains("inner dimensions"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::matmul, {{2, 3, 4}, {3, 4, 5}}), Contains("batch"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::matmul, {{4}, {4, 4}}), Contains("rank 2"));
}

TEST_CASE("conv2d infers groups, padding and stride", "[registry]") {
  REQUIRE(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {4, 4, 3, 3}}, conv(1, Padding::same)) ==
          Shape{2, 4, 5, 5});
  REQUIRE(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {8, 4, 3, 3}}, conv(1, Padding::valid)) ==
          Shape{2, 8, 3, 3});
  REQUIRE(infer_shape(OpType::conv2d, {{1, 3, 224, 224}, {64, 3, 7, 7}}, conv(2, Padding::same)) ==
          Shape{1, 64, 112, 112});
  REQUIRE(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {4, 4, 1, 3}}, conv(1, Padding::same)) ==
          Shape{2, 4, 5, 5});
  // Depthwise and grouped.
  REQUIRE(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {4, 1, 3, 3}}, conv(1, Padding::same)) ==
          Shape{2, 4, 5, 5});
  REQUIRE(conv_groups({2, 4, 5, 5}, {4, 1, 3, 3}) == 4);
  REQUIRE(infer_shape(OpType::conv2d, {{1, 256, 56, 56}, {256, 8, 3, 3}}, conv(2, Padding::same)) ==
          Shape{1, 256, 28, 28});
  REQUIRE_THROWS_WITH(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {4, 3, 3, 3}}, conv(1, Padding::same)),
                      Contains("not a multiple") && Contains("2x4x5x5, 4x3x3x3"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {6, 1, 3, 3}}, conv(1, Padding::same)),
                      Contains("output channels"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::conv2d, {{2, 4, 2, 2}, {4, 4, 3, 3}}, conv(1, Padding::valid)),
                      Contains("kernel larger"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::conv2d, {{2, 4}, {4, 4, 3, 3}}, conv(1, Padding::same)),
                      Contains("rank 4"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::conv2d, {{2, 4, 5, 5}, {4, 4, 3, 3}}, conv(0, Padding::same)),
                      Contains("stride"));
}

TEST_CASE("SAME padding puts the extra pad after, like TensorFlow", "[registry]") {
  REQUIRE(window(5, 3, 1, Padding::same).out == 5);
  REQUIRE(window(5, 3, 1, Padding::same).pad_before == 1);
  REQUIRE(window(224, 7, 2, Padding::same).out == 112);
  REQUIRE(window(224, 7, 2, Padding::same).pad_before == 2);  // total 5: 2 before, 3 after
  REQUIRE(window(5, 3, 2, Padding::valid).out == 2);
  REQUIRE(window(5, 1, 1, Padding::same).pad_before == 0);
}

TEST_CASE("enlarge pads a kernel to a larger, centred size", "[registry]") {
  OpParams p;
  p.kernel_h = p.kernel_w = 3;
  REQUIRE(infer_shape(OpType::enlarge, {{4, 4, 1, 1}}, p) == Shape{4, 4, 3, 3});
  REQUIRE(infer_shape(OpType::enlarge, {{4, 4, 1, 3}}, p) == Shape{4, 4, 3, 3});
  REQUIRE_THROWS_WITH(infer_shape(OpType::enlarge, {{4, 4, 2, 2}}, p), Contains("centred"));
  p.kernel_h = p.kernel_w = 1;
  REQUIRE_THROWS_WITH(infer_shape(OpType::enlarge, {{4, 4, 3, 3}}, p), Contains("smaller"));
}

TEST_CASE("merge_groups widens a grouped kernel and rejects parameters that do not fit it", "[registry]") {
  REQUIRE(infer_shape(OpType::merge_groups, {{4, 2, 3, 3}}, merge(2, 1)) == Shape{4, 4, 3, 3});
  REQUIRE(infer_shape(OpType::merge_groups, {{128, 4, 3, 3}}, merge(32, 8)) == Shape{128, 16, 3, 3});
  REQUIRE(infer_shape(OpType::merge_groups, {{8, 1, 1, 1}}, merge(8, 8)) == Shape{8, 1, 1, 1});
  REQUIRE_THROWS_WITH(infer_shape(OpType::merge_groups, {{4, 2, 3, 3}}, merge(4, 3)), Contains("divide"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::merge_groups, {{6, 2, 3, 3}}, merge(4, 2)),
                      Contains("output channels 6 are not a multiple of 4 groups"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::merge_groups, {{4, 2}}, merge(2, 1)), Contains("rank 4"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::merge_groups, {{4, 2, 3, 3}}, merge(2, 0)), Contains("divide"));
  CHECK(params_str(OpType::merge_groups, merge(32, 16)) == "groups=32 into=16");
  CHECK_FALSE(params_equal(OpType::merge_groups, merge(32, 16), merge(32, 8)));
  CHECK(params_hash(OpType::merge_groups, merge(32, 16), 1) !=
        params_hash(OpType::merge_groups, merge(16, 8), 1));
}

TEST_CASE("pooling windows", "[registry]") {
  REQUIRE(infer_shape(OpType::pool_avg, {{2, 4, 5, 5}}, pool(3, 1, Padding::same)) == Shape{2, 4, 5, 5});
  REQUIRE(infer_shape(OpType::pool_max, {{1, 64, 112, 112}}, pool(3, 2, Padding::same)) ==
          Shape{1, 64, 56, 56});
  REQUIRE(infer_shape(OpType::pool_max, {{1, 64, 9, 9}}, pool(3, 2, Padding::valid)) == Shape{1, 64, 4, 4});
  REQUIRE_THROWS_WITH(infer_shape(OpType::pool_avg, {{2, 4, 5, 5}}, pool(0, 1, Padding::same)),
                      Contains("kernel"));
  REQUIRE_THROWS_WITH(infer_shape(OpType::pool_max, {{2, 4, 5}}, pool(3, 1, Padding::same)),
                      Contains("rank 4"));
}

TEST_CASE("concat and split follow TASO's split trees", "[registry]") {
  TensorDesc a = desc({2, 4}), b = desc({3, 4}), c = desc({5, 4});
  TensorDesc ab = infer(OpType::concat, {a, b}, axis(0))[0];
  REQUIRE(ab.shape == Shape{5, 4});
  REQUIRE(ab.split(0).split_point() == 2);

  // concat(concat(a, b), c) splits back at the most recent point first.
  TensorDesc abc = infer(OpType::concat, {ab, c}, axis(0))[0];
  REQUIRE(abc.shape == Shape{10, 4});
  auto halves = infer(OpType::split, {abc}, axis(0));
  REQUIRE(halves[0].shape == Shape{5, 4});
  REQUIRE(halves[1].shape == Shape{5, 4});
  auto inner = infer(OpType::split, {halves[0]}, axis(0));
  REQUIRE(inner[0].shape == Shape{2, 4});
  REQUIRE(inner[1].shape == Shape{3, 4});
  REQUIRE_THROWS_WITH(infer(OpType::split, {inner[0]}, axis(0)), Contains("no concatenation on axis 0"));

  // concat(a, concat(b, c)): the right part keeps its own history.
  TensorDesc bc = infer(OpType::concat, {b, c}, axis(0))[0];
  auto right = infer(OpType::split, {infer(OpType::concat, {a, bc}, axis(0))[0]}, axis(0))[1];
  REQUIRE(right.shape == Shape{8, 4});
  REQUIRE(infer(OpType::split, {right}, axis(0))[0].shape == Shape{3, 4});

  // An n-ary concat behaves like nested binary ones.
  TensorDesc abc3 = infer(OpType::concat, {a, b, c}, axis(0))[0];
  REQUIRE(abc3 == abc);

  REQUIRE_THROWS_WITH(infer(OpType::concat, {a, desc({2, 5})}, axis(0)), Contains("differ in dimension 1"));
  REQUIRE_THROWS_WITH(infer(OpType::concat, {a, b}, axis(2)), Contains("axis 2 out of range"));
  REQUIRE_THROWS_WITH(infer(OpType::concat, {a}, axis(0)), Contains("takes 2 to 8 inputs"));
}

TEST_CASE("split trees flow through matmul, so fused matmuls can be split (TASO Figure 3)", "[registry]") {
  TensorDesc x = desc({2, 4}), w1 = desc({4, 3}), w2 = desc({4, 5});
  TensorDesc w = infer(OpType::concat, {w1, w2}, axis(1))[0];
  TensorDesc y = infer(OpType::matmul, {x, w})[0];
  REQUIRE(y.shape == Shape{2, 8});
  auto parts = infer(OpType::split, {y}, axis(1));
  REQUIRE(parts[0].shape == Shape{2, 3});
  REQUIRE(parts[1].shape == Shape{2, 5});
  // ... and through conv2d's output channels, and element-wise operators.
  TensorDesc k = infer(OpType::concat, {desc({4, 4, 3, 3}), desc({8, 4, 3, 3})}, axis(0))[0];
  TensorDesc out = infer(OpType::conv2d, {desc({2, 4, 5, 5}), k}, conv(1, Padding::same))[0];
  TensorDesc r = infer(OpType::relu, {out})[0];
  REQUIRE(infer(OpType::split, {r}, axis(1))[1].shape == Shape{2, 8, 5, 5});
  // Transpose moves the tree with its dimension.
  TensorDesc t = infer(OpType::transpose, {y})[0];
  REQUIRE(infer(OpType::split, {t}, axis(0))[0].shape == Shape{3, 2});
}

TEST_CASE("batchnorm, reshape, softmax, opaque", "[registry]") {
  REQUIRE(infer_shape(OpType::batchnorm, {{1, 8, 4, 4}, {8}, {8}, {8}, {8}}) == Shape{1, 8, 4, 4});
  REQUIRE_THROWS_WITH(infer_shape(OpType::batchnorm, {{1, 8, 4, 4}, {8}, {8}, {4}, {8}}),
                      Contains("shape 8"));
  REQUIRE(infer_shape(OpType::reshape, {{2, 4, 5, 5}}, with_shape({8, 25})) == Shape{8, 25});
  REQUIRE_THROWS_WITH(infer_shape(OpType::reshape, {{2, 4}}, with_shape({3, 3})),
                      Contains("cannot reshape to 3x3"));
  REQUIRE(infer_shape(OpType::softmax, {{64, 64}}, axis(1)) == Shape{64, 64});
  REQUIRE_THROWS_WITH(infer_shape(OpType::softmax, {{64, 64}}, axis(2)), Contains("out of range"));
  REQUIRE(infer_shape(OpType::opaque, {{2, 4}, {3}}, with_shape({7})) == Shape{7});
  REQUIRE(infer_shape(OpType::opaque, {}, with_shape({7})) == Shape{7});
}

TEST_CASE("operator costs count FLOPs and bytes", "[registry]") {
  auto cost = [](OpType op, std::vector<Shape> in, const OpParams& p = {}) {
    std::vector<TensorDesc> d;
    for (const Shape& s : in) d.push_back(desc(s));
    std::vector<const TensorDesc*> ptrs;
    for (const TensorDesc& t : d) ptrs.push_back(&t);
    std::vector<TensorDesc> out(op_info(op).num_outputs);
    infer_outputs(op, p, ptrs, out);
    return op_cost(op, p, ptrs, out);
  };
  OpCost mm = cost(OpType::matmul, {{2, 4}, {4, 3}});
  REQUIRE(mm.flops == 2 * 2 * 3 * 4);
  REQUIRE(mm.bytes_read == (8 + 12) * 4);
  REQUIRE(mm.bytes_written == 6 * 4);
  OpCost cv = cost(OpType::conv2d, {{1, 4, 5, 5}, {8, 2, 3, 3}}, conv(1, Padding::same));  // 2 groups
  REQUIRE(cv.flops == 2 * (8 * 25) * (2 * 3 * 3));
  OpCost cvr = cost(OpType::conv2d, {{1, 4, 5, 5}, {8, 2, 3, 3}}, conv(1, Padding::same, Activation::relu));
  REQUIRE(cvr.flops == cv.flops + 8 * 25);
  REQUIRE(cost(OpType::weight, {}, with_shape({4, 4})).bytes_read == 0);
  REQUIRE(cost(OpType::reshape, {{2, 4}}, with_shape({8})).bytes_written == 0);
  REQUIRE(cost(OpType::pool_max, {{1, 4, 6, 6}}, pool(2, 2, Padding::valid)).flops == 4 * 9 * 4);
}

TEST_CASE("parameters compare and hash only where the operator takes them", "[registry]") {
  OpParams a, b;
  b.axis = 3;  // relu takes no axis
  REQUIRE(params_equal(OpType::relu, a, b));
  REQUIRE(params_hash(OpType::relu, a, 1) == params_hash(OpType::relu, b, 1));
  REQUIRE_FALSE(params_equal(OpType::concat, a, b));
  REQUIRE(params_hash(OpType::concat, a, 1) != params_hash(OpType::concat, b, 1));
  REQUIRE(params_hash(OpType::ewadd, a, 1) != params_hash(OpType::ewmul, a, 1));
  REQUIRE(params_str(OpType::conv2d, conv(2, Padding::valid, Activation::relu)) ==
          "stride=2x2 padding=valid activation=relu");
}

TEST_CASE("every operator rejects a wrong number of inputs", "[registry]") {
  for (int i = 0; i < kNumOpTypes; ++i) {
    OpType op = static_cast<OpType>(i);
    const OpInfo& info = op_info(op);
    if (info.max_inputs == kMaxInputs) continue;  // concat and opaque take any number up to the limit
    std::vector<TensorDesc> too_many(info.max_inputs + 1, desc({2, 2}));
    INFO(op_name(op));
    REQUIRE_THROWS_WITH(infer(op, too_many), Contains(std::string(op_name(op)) + ": takes"));
  }
}

namespace {

// What infer_outputs throws for these inputs, or "" when it does not.
std::string thrown(OpType op, const std::vector<TensorDesc>& in, const OpParams& p) {
  try {
    infer(op, in, p);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("try_infer_outputs reports the failures infer_outputs throws, in the same words", "[registry]") {
  struct Case {
    OpType op;
    std::vector<Shape> in;
    OpParams params;
  };
  const std::vector<Case> misfits = {
      {OpType::matmul, {{2, 4}, {3, 4}}, {}},          // inner dimensions differ
      {OpType::matmul, {{2, 3, 4}, {3, 4, 5}}, {}},    // batch dimensions differ
      {OpType::concat, {{2, 4}, {2, 4, 1}}, axis(1)},  // ranks differ
      {OpType::concat, {{2, 4}, {3, 4}}, axis(1)},     // a dimension off the axis differs
      {OpType::ewadd, {{2, 4}, {4, 2}}, {}},           // no broadcast
      {OpType::conv2d, {{1, 6, 5, 5}, {4, 4, 3, 3}}, conv(1, Padding::same)},  // channels
      {OpType::pool_max, {{1, 4, 2, 2}}, pool(3, 1, Padding::valid)},
      {OpType::split, {{2, 4}}, axis(1)},  // no concatenation to undo
      {OpType::slice, {{2, 4}}, axis(2)},  // an imported operator
      {OpType::i_matmul, {}, with_shape({4, 3})},
      {OpType::relu, {{2}, {2}}, {}},  // arity
  };
  for (const Case& c : misfits) {
    std::vector<TensorDesc> in;
    for (const Shape& s : c.in) in.push_back(desc(s));
    std::vector<const TensorDesc*> ptrs;
    for (const TensorDesc& d : in) ptrs.push_back(&d);
    std::vector<TensorDesc> out(op_info(c.op).num_outputs);
    const ShapeCheck check = try_infer_outputs(c.op, c.params, ptrs, out);
    const std::string message = thrown(c.op, in, c.params);
    INFO(message);
    REQUIRE_FALSE(message.empty());
    REQUIRE_FALSE(check.fits);
    CHECK(shape_error(c.op, ptrs, check.why) == message);
  }
  // Inputs that fit: the same outputs either way.
  std::vector<TensorDesc> in = {desc({2, 3, 4}), desc({4, 5})};
  std::vector<const TensorDesc*> ptrs = {&in[0], &in[1]};
  std::vector<TensorDesc> out(1);
  REQUIRE(try_infer_outputs(OpType::matmul, {}, ptrs, out).fits);
  CHECK(out == infer(OpType::matmul, in));
}
