// The operators only imported models use (ewsub, ewdiv, sqrt, erf, clip, pad,
// slice, reduce_mean): shape inference and its errors, parameters, costs, and
// each reference kernel against hand-computed values, in double and modular arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/kernels.h"
#include "tests/op_params.h"

using namespace superopt;
using namespace superopt::test;
using Catch::Matchers::Approx;
using Catch::Matchers::Contains;

namespace {

using T = Tensor<double>;
const RealArith<double> kReal;
constexpr float kInf = std::numeric_limits<float>::infinity();

T run1(OpType op, const OpParams& p, std::vector<const T*> in) {
  return run_op(kReal, op, p, std::span<const T* const>(in))[0];
}

void check(const T& got, const Shape& shape, const std::vector<double>& want) {
  REQUIRE(got.shape.str() == shape.str());
  REQUIRE_THAT(got.data, Approx(want).margin(1e-12));
}

T iota(const Shape& s) {
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1 + static_cast<double>(i);
  return T(s, v);
}

Shape infer(OpType op, const Shape& in, const OpParams& p) {
  TensorDesc d{in, {}}, out;
  const TensorDesc* ptr = &d;
  infer_outputs(op, p, std::span(&ptr, 1), std::span(&out, 1));
  return out.shape;
}

OpParams pads(int32_t top, int32_t bottom, int32_t left, int32_t right, float value = 0) {
  OpParams p;
  p.pads = {top, bottom, left, right};
  p.value = value;
  return p;
}

OpParams range(int axis, int32_t begin, int32_t end) {
  OpParams p;
  p.axis = axis;
  p.begin = begin;
  p.end = end;
  return p;
}

OpParams axes(uint8_t mask) {
  OpParams p;
  p.axes = mask;
  return p;
}

OpParams limits(float lo, float hi) {
  OpParams p;
  p.lo = lo;
  p.hi = hi;
  return p;
}

}  // namespace

TEST_CASE("imported operators are marked so that no rule contains them", "[imported]") {
  for (OpType op : {OpType::ewsub, OpType::ewdiv, OpType::sqrt, OpType::erf, OpType::clip, OpType::pad,
                    OpType::slice, OpType::reduce_mean})
    CHECK(op_info(op).from_import);
  for (OpType op : {OpType::ewadd, OpType::conv2d, OpType::softmax, OpType::batchnorm})
    CHECK_FALSE(op_info(op).from_import);
}

TEST_CASE("pad, slice and reduce_mean infer their shapes and refuse what does not fit", "[imported]") {
  CHECK(infer(OpType::pad, {1, 3, 4, 5}, pads(1, 2, 0, 3)) == Shape{1, 3, 7, 8});
  CHECK(infer(OpType::slice, {2, 6, 4}, range(1, 2, 5)) == Shape{2, 3, 4});
  CHECK(infer(OpType::reduce_mean, {2, 6, 4}, axes(0b100)) == Shape{2, 6, 1});
  CHECK(infer(OpType::reduce_mean, {1, 8, 7, 7}, axes(0b1100)) == Shape{1, 8, 1, 1});
  CHECK_THROWS_WITH(infer(OpType::pad, {4}, pads(1, 0, 0, 0)), Contains("rank 2 or more"));
  CHECK_THROWS_WITH(infer(OpType::pad, {2, 2}, pads(-1, 0, 0, 0)), Contains("negative"));
  CHECK_THROWS_WITH(infer(OpType::slice, {2, 6}, range(1, 4, 7)), Contains("outside axis 1"));
  CHECK_THROWS_WITH(infer(OpType::slice, {2, 6}, range(1, 3, 3)), Contains("empty"));
  CHECK_THROWS_WITH(infer(OpType::slice, {2, 6}, range(2, 0, 1)), Contains("out of range"));
  CHECK_THROWS_WITH(infer(OpType::reduce_mean, {2, 6}, axes(0)), Contains("at least one"));
  CHECK_THROWS_WITH(infer(OpType::reduce_mean, {2, 6}, axes(0b100)), Contains("at least one"));
}

TEST_CASE("the new parameters print, compare and hash", "[imported]") {
  CHECK(params_str(OpType::pad, pads(1, 2, 3, 4, -kInf)) == "pads=1,2,3,4 value=-inf");
  CHECK(params_str(OpType::slice, range(1, 2, 5)) == "axis=1 range=2,5");
  CHECK(params_str(OpType::reduce_mean, axes(0b1100)) == "axes=2,3");
  CHECK(params_str(OpType::clip, limits(0, 6)) == "limits=0,6");
  CHECK_FALSE(params_equal(OpType::pad, pads(1, 0, 0, 0), pads(0, 1, 0, 0)));
  CHECK(params_hash(OpType::slice, range(1, 2, 5), 1) != params_hash(OpType::slice, range(1, 2, 4), 1));
  CHECK(params_hash(OpType::clip, limits(0, 6), 1) != params_hash(OpType::clip, limits(0, 5), 1));
}

TEST_CASE("ewsub and ewdiv broadcast; sqrt and erf apply element-wise", "[imported]") {
  T a = iota({2, 2}), b({2}, {1, 4});
  check(run1(OpType::ewsub, {}, {&a, &b}), {2, 2}, {0, -2, 2, 0});
  check(run1(OpType::ewdiv, {}, {&a, &b}), {2, 2}, {1, 0.5, 3, 1});
  T x({3}, {0, 4, 2.25});
  check(run1(OpType::sqrt, {}, {&x}), {3}, {0, 2, 1.5});
  T y({3}, {0, 1, -1});
  check(run1(OpType::erf, {}, {&y}), {3}, {0, std::erf(1.0), -std::erf(1.0)});
}

TEST_CASE("clip clamps to finite bounds only", "[imported]") {
  T x({4}, {-3, 0.5, 7, 2});
  check(run1(OpType::clip, limits(0, 6), {&x}), {4}, {0, 0.5, 6, 2});
  check(run1(OpType::clip, limits(-kInf, 1), {&x}), {4}, {-3, 0.5, 1, 1});
  check(run1(OpType::clip, limits(-1, kInf), {&x}), {4}, {-1, 0.5, 7, 2});
}

TEST_CASE("pad surrounds the last two dimensions with its value", "[imported]") {
  T x = iota({1, 1, 2, 2});
  check(run1(OpType::pad, pads(1, 0, 0, 1), {&x}), {1, 1, 3, 3}, {0, 0, 0, 1, 2, 0, 3, 4, 0});
  T m = run1(OpType::pad, pads(0, 1, 1, 0, -kInf), {&x});
  REQUIRE(m.shape == Shape{1, 1, 3, 3});
  CHECK(m.data[0] == -INFINITY);
  CHECK(m.data[1] == 1);
  CHECK(m.data[8] == -INFINITY);
}

TEST_CASE("slice keeps begin to end (end excluded) of an axis", "[imported]") {
  T x = iota({2, 3, 2});
  check(run1(OpType::slice, range(1, 1, 3), {&x}), {2, 2, 2}, {3, 4, 5, 6, 9, 10, 11, 12});
  check(run1(OpType::slice, range(0, 1, 2), {&x}), {1, 3, 2}, {7, 8, 9, 10, 11, 12});
  check(run1(OpType::slice, range(2, 0, 1), {&x}), {2, 3, 1}, {1, 3, 5, 7, 9, 11});
}

TEST_CASE("reduce_mean averages over the masked axes", "[imported]") {
  T x = iota({2, 3, 2});
  check(run1(OpType::reduce_mean, axes(0b100), {&x}), {2, 3, 1}, {1.5, 3.5, 5.5, 7.5, 9.5, 11.5});
  check(run1(OpType::reduce_mean, axes(0b010), {&x}), {2, 1, 2}, {3, 4, 9, 10});
  check(run1(OpType::reduce_mean, axes(0b101), {&x}), {1, 3, 1}, {4.5, 6.5, 8.5});
}

TEST_CASE("the imported kernels run in modular arithmetic too", "[imported]") {
  const ModArith mod;
  Tensor<uint64_t> x(Shape{1, 1, 2, 2}, std::vector<uint64_t>{1, 2, 3, 4});
  std::vector<const Tensor<uint64_t>*> in = {&x};
  auto one = [&](OpType op, const OpParams& p) { return run_op(mod, op, p, std::span(in))[0]; };
  CHECK(one(OpType::pad, pads(0, 0, 1, 0)).data == std::vector<uint64_t>{0, 1, 2, 0, 3, 4});
  CHECK(one(OpType::slice, range(3, 1, 2)).data == std::vector<uint64_t>{2, 4});
  CHECK(one(OpType::reduce_mean, axes(0b1100)).data[0] == mod.div_int(10, 4));
  CHECK(one(OpType::clip, limits(2, 3)).data == std::vector<uint64_t>{2, 2, 3, 3});
  CHECK_THROWS_AS(one(OpType::pad, pads(1, 0, 0, 0, -kInf)), Error);  // -inf has no modular image
}
