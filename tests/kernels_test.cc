// Every reference kernel in double against small hand-computed results, the constants, and
// whole-graph evaluation (concat/split round trips, seeded sources, errors).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph.h"
#include "runtime/core/kernels.h"
#include "tests/op_params.h"

using namespace superopt;
using namespace superopt::test;
using Catch::Matchers::Approx;
using Catch::Matchers::Contains;

namespace {

using T = Tensor<double>;
const RealArith<double> kReal;

std::vector<T> run(OpType op, const OpParams& p, std::vector<const T*> in) {
  return run_op(kReal, op, p, std::span<const T* const>(in));
}
T run1(OpType op, const OpParams& p, std::vector<const T*> in) {
  return run(op, p, std::move(in))[0];
}

void check(const T& got, const Shape& shape, const std::vector<double>& want) {
  REQUIRE(got.shape.str() == shape.str());
  REQUIRE_THAT(got.data, Approx(want).margin(1e-12));
}

T iota(const Shape& s, double first = 1) {
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + static_cast<double>(i);
  return T(s, v);
}

T random_tensor(const Shape& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  T t(s, 0.0);
  for (double& v : t.data) v = kReal.random(rng);
  return t;
}

}  // namespace

TEST_CASE("ewadd adds, broadcasting like NumPy", "[kernels]") {
  T a = iota({2, 2}), b({2, 2}, {10, 20, 30, 40});
  check(run1(OpType::ewadd, {}, {&a, &b}), {2, 2}, {11, 22, 33, 44});
  T m = iota({2, 3}), row({3}, {10, 20, 30});
  check(run1(OpType::ewadd, {}, {&m, &row}), {2, 3}, {11, 22, 33, 14, 25, 36});
  T col({2, 1}, {1, 2}), wide({1, 3}, {10, 20, 30});
  check(run1(OpType::ewadd, {}, {&col, &wide}), {2, 3}, {11, 21, 31, 12, 22, 32});
  T x = iota({2, 1, 2}), y({3, 1}, {10, 20, 30});
  check(run1(OpType::ewadd, {}, {&x, &y}), {2, 3, 2}, {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
}

TEST_CASE("ewmul and smul multiply", "[kernels]") {
  T a = iota({2, 2}), b({2, 1}, {2, 3});
  check(run1(OpType::ewmul, {}, {&a, &b}), {2, 2}, {2, 4, 9, 12});
  T s({1, 1}, {-2});
  check(run1(OpType::smul, {}, {&a, &s}), {2, 2}, {-2, -4, -6, -8});
}

TEST_CASE("transpose permutes, reversing by default", "[kernels]") {
  T m = iota({2, 3});
  check(run1(OpType::transpose, {}, {&m}), {3, 2}, {1, 4, 2, 5, 3, 6});
  T x = iota({1, 2, 2, 2}, 0);  // value c*4 + h*2 + w
  OpParams p;
  p.perm = {0, 2, 3, 1, -1, -1};  // NCHW -> NHWC
  check(run1(OpType::transpose, p, {&x}), {1, 2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7});
  T y = iota({2, 3, 4}, 0);
  p.perm = {1, 2, 0, -1, -1, -1};
  T t = run1(OpType::transpose, p, {&y});
  REQUIRE(t.shape == Shape{3, 4, 2});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) REQUIRE(t.at({j, k, i}) == y.at({i, j, k}));
}

TEST_CASE("matmul multiplies plain and batched matrices", "[kernels]") {
  T a = iota({2, 3}), b = iota({3, 2}, 7);
  check(run1(OpType::matmul, {}, {&a, &b}), {2, 2}, {58, 64, 139, 154});
  T batch = iota({2, 2, 2}), eye_swap({2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
  check(run1(OpType::matmul, {}, {&batch, &eye_swap}), {2, 2, 2}, {1, 2, 3, 4, 6, 5, 8, 7});
  T swap({2, 2}, {0, 1, 1, 0});
  check(run1(OpType::matmul, {}, {&batch, &swap}), {2, 2, 2}, {2, 1, 4, 3, 6, 5, 8, 7});
  check(run1(OpType::matmul, {}, {&swap, &batch}), {2, 2, 2}, {3, 4, 1, 2, 7, 8, 5, 6});
}

TEST_CASE("conv2d with VALID and SAME padding and stride 2", "[kernels]") {
  T x = iota({1, 1, 3, 3}), diag({1, 1, 2, 2}, {1, 0, 0, 1}), ones({1, 1, 3, 3}, 1.0);
  check(run1(OpType::conv2d, conv(1, Padding::valid), {&x, &diag}), {1, 1, 2, 2}, {6, 8, 12, 14});
  check(run1(OpType::conv2d, conv(1, Padding::same), {&x, &ones}), {1, 1, 3, 3},
        {12, 21, 16, 27, 45, 33, 24, 39, 28});
  // SAME at stride 2 on 4x4: one padded row and column, after the input.
  T big = iota({1, 1, 4, 4});
  check(run1(OpType::conv2d, conv(2, Padding::same), {&big, &ones}), {1, 1, 2, 2}, {54, 45, 72, 54});
  T ones2({1, 1, 2, 2}, 1.0);
  check(run1(OpType::conv2d, conv(2, Padding::valid), {&big, &ones2}), {1, 1, 2, 2}, {14, 22, 46, 54});
  T row = iota({1, 1, 2, 3}), taps({1, 1, 1, 3}, {1, 2, 3});
  check(run1(OpType::conv2d, conv(1, Padding::valid), {&row, &taps}), {1, 1, 2, 1}, {14, 32});
}

TEST_CASE("conv2d mixes channels, groups and depthwise, with relu", "[kernels]") {
  T x({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}), w({2, 2, 1, 1}, {1, 1, 2, -1});
  check(run1(OpType::conv2d, conv(1, Padding::same), {&x, &w}), {1, 2, 2, 2},
        {11, 22, 33, 44, -8, -16, -24, -32});
  check(run1(OpType::conv2d, conv(1, Padding::same, Activation::relu), {&x, &w}), {1, 2, 2, 2},
        {11, 22, 33, 44, 0, 0, 0, 0});
  T g = iota({1, 4, 1, 2}), gw({2, 2, 1, 1}, {1, 10, 2, 1});  // 2 groups of 2 channels
  check(run1(OpType::conv2d, conv(1, Padding::valid), {&g, &gw}), {1, 2, 1, 2}, {31, 42, 17, 20});
  T d = iota({1, 2, 1, 3}), dw({2, 1, 1, 3}, {1, 1, 1, 0, 0, 1});  // depthwise 1x3, SAME
  check(run1(OpType::conv2d, conv(1, Padding::same), {&d, &dw}), {1, 2, 1, 3}, {3, 6, 5, 5, 6, 0});
}

TEST_CASE("merge_groups places each group's block on the diagonal of the merged groups", "[kernels]") {
  // 4 output channels, 4 groups of 1 input channel, merged into 2 groups of 2.
  T w({4, 1, 1, 1}, {1, 2, 3, 4});
  check(run1(OpType::merge_groups, merge(4, 2), {&w}), {4, 2, 1, 1}, {1, 0, 0, 2, 3, 0, 0, 4});
  check(run1(OpType::merge_groups, merge(4, 1), {&w}), {4, 4, 1, 1},
        {1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4});
}

TEST_CASE("a convolution with merged groups equals the grouped convolution", "[kernels]") {
  // ResNeXt-like: 8 groups of 2 channels, 16 outputs, merged into 4, 2 and 1 groups.
  T x = random_tensor({2, 16, 5, 5}, 11), w = random_tensor({16, 2, 3, 3}, 12);
  for (Activation act : {Activation::none, Activation::relu}) {
    T grouped = run1(OpType::conv2d, conv(1, Padding::same, act), {&x, &w});
    for (int into : {4, 2, 1}) {
      T merged_w = run1(OpType::merge_groups, merge(8, into), {&w});
      REQUIRE(merged_w.shape == Shape{16, 2 * 8 / into, 3, 3});
      T merged = run1(OpType::conv2d, conv(2, Padding::valid, act), {&x, &merged_w});
      T grouped_strided = run1(OpType::conv2d, conv(2, Padding::valid, act), {&x, &w});
      REQUIRE_THAT(merged.data, Approx(grouped_strided.data).margin(1e-12));
      REQUIRE_THAT(run1(OpType::conv2d, conv(1, Padding::same, act), {&x, &merged_w}).data,
                   Approx(grouped.data).margin(1e-12));
    }
  }
  // Parameters that misstate the kernel's groups give another (wrong) convolution.
  T wrong_w = run1(OpType::merge_groups, merge(4, 1), {&w});
  T wrong = run1(OpType::conv2d, conv(1, Padding::same), {&x, &wrong_w});
  T want = run1(OpType::conv2d, conv(1, Padding::same), {&x, &w});
  CHECK_THAT(wrong.data, !Approx(want.data).margin(1e-6));
}

TEST_CASE("enlarge centres a kernel in zeros", "[kernels]") {
  OpParams p;
  p.kernel_h = p.kernel_w = 3;
  T one({1, 1, 1, 1}, {5});
  check(run1(OpType::enlarge, p, {&one}), {1, 1, 3, 3}, {0, 0, 0, 0, 5, 0, 0, 0, 0});
  T row({2, 1, 1, 3}, {1, 2, 3, 4, 5, 6});
  check(run1(OpType::enlarge, p, {&row}), {2, 1, 3, 3},
        {0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0});
}

TEST_CASE("relu, sigmoid and tanh apply element-wise", "[kernels]") {
  T x({3}, {-1, 0, 2});
  check(run1(OpType::relu, {}, {&x}), {3}, {0, 0, 2});
  T y({2}, {0, std::log(3.0)});
  check(run1(OpType::sigmoid, {}, {&y}), {2}, {0.5, 0.75});
  T z({3}, {0, std::log(2.0), -std::log(2.0)});
  check(run1(OpType::tanh, {}, {&z}), {3}, {0, 0.6, -0.6});
}

TEST_CASE("pool_avg counts SAME padding as zeros, divides by the window", "[kernels]") {
  T x = iota({1, 1, 3, 3});
  std::vector<double> sums = {12, 21, 16, 27, 45, 33, 24, 39, 28};
  for (double& s : sums) s /= 9;
  check(run1(OpType::pool_avg, pool_window(3, 3, 1, Padding::same), {&x}), {1, 1, 3, 3}, sums);
  check(run1(OpType::pool_avg, pool_window(2, 2, 2, Padding::same), {&x}), {1, 1, 2, 2},
        {3, 2.25, 3.75, 2.25});
  check(run1(OpType::pool_avg, pool_window(2, 2, 1, Padding::valid), {&x}), {1, 1, 2, 2}, {3, 4, 6, 7});
}

TEST_CASE("pool_max ignores SAME padding", "[kernels]") {
  T neg = iota({1, 1, 3, 3}, 0);
  for (double& v : neg.data) v = -(v + 1);  // all negative: a padded zero would win
  check(run1(OpType::pool_max, pool_window(3, 3, 1, Padding::same), {&neg}), {1, 1, 3, 3},
        {-1, -1, -2, -1, -1, -2, -4, -4, -5});
  T x = iota({1, 1, 3, 3});
  check(run1(OpType::pool_max, pool_window(2, 2, 2, Padding::same), {&x}), {1, 1, 2, 2}, {5, 6, 8, 9});
  T two = iota({1, 2, 2, 2});
  check(run1(OpType::pool_max, pool_window(2, 2, 2, Padding::valid), {&two}), {1, 2, 1, 1}, {4, 8});
}

TEST_CASE("concat joins two or three inputs on any axis", "[kernels]") {
  T a({1, 2}, {1, 2}), b({2, 2}, {3, 4, 5, 6});
  check(run1(OpType::concat, axis(0), {&a, &b}), {3, 2}, {1, 2, 3, 4, 5, 6});
  T c({2, 1}, {1, 2});
  check(run1(OpType::concat, axis(1), {&c, &b}), {2, 3}, {1, 3, 4, 2, 5, 6});
  T x({1, 2, 1}, {1, 2}), y({1, 2, 1}, {3, 4}), z({1, 2, 1}, {5, 6});
  check(run1(OpType::concat, axis(2), {&x, &y, &z}), {1, 2, 3}, {1, 3, 5, 2, 4, 6});
  check(run1(OpType::concat, axis(1), {&x, &y, &z}), {1, 6, 1}, {1, 2, 3, 4, 5, 6});
  check(run1(OpType::concat, axis(0), {&x, &y, &z}), {3, 2, 1}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("split cuts at the sizes of its output descriptors", "[kernels]") {
  T x = iota({2, 3});
  std::vector<TensorDesc> parts = {{Shape{2, 1}, {}}, {Shape{2, 2}, {}}};
  std::vector<const T*> in = {&x};
  std::vector<T> out = run_op(kReal, OpType::split, axis(1), std::span<const T* const>(in), parts);
  REQUIRE(out.size() == 2);
  check(out[0], {2, 1}, {1, 4});
  check(out[1], {2, 2}, {2, 3, 5, 6});
  parts[1].shape = Shape{2, 1};
  REQUIRE_THROWS_WITH(run_op(kReal, OpType::split, axis(1), std::span<const T* const>(in), parts),
                      Contains("do not fill"));
  REQUIRE_THROWS_WITH(run(OpType::split, axis(1), {&x}), Contains("no concatenation"));
}

TEST_CASE("batchnorm normalises per channel", "[kernels]") {
  T x = iota({2, 2, 1, 2}), scale({2}, {2, 1}), bias({2}, {0, 1}), mean({2}, {1, 3}), var({2}, {4, 1});
  OpParams p;
  p.epsilon = 0;
  check(run1(OpType::batchnorm, p, {&x, &scale, &bias, &mean, &var}), {2, 2, 1, 2}, {0, 1, 1, 2, 4, 5, 5, 6});
  p.epsilon = 0.5f;
  T y = run1(OpType::batchnorm, p, {&x, &scale, &bias, &mean, &var});
  REQUIRE(y.at({1, 1, 0, 1}) == Catch::Detail::Approx((8.0 - 3) / std::sqrt(1.5) + 1));
}

TEST_CASE("reshape keeps the data, softmax normalises along its axis", "[kernels]") {
  T x = iota({2, 3});
  OpParams p;
  p.shape = Shape{3, 1, 2};
  check(run1(OpType::reshape, p, {&x}), {3, 1, 2}, {1, 2, 3, 4, 5, 6});
  T rows({2, 2}, {0, std::log(3.0), 1, 1});
  check(run1(OpType::softmax, axis(1), {&rows}), {2, 2}, {0.25, 0.75, 0.5, 0.5});
  T cols({2, 2}, {0, 1, std::log(3.0), 1});
  check(run1(OpType::softmax, axis(0), {&cols}), {2, 2}, {0.25, 0.5, 0.75, 0.5});
  T huge({2}, {1000, 1000});  // shifted by the maximum, so exp does not overflow
  check(run1(OpType::softmax, axis(0), {&huge}), {2}, {0.5, 0.5});
}

TEST_CASE("opaque is a deterministic function of its inputs", "[kernels]") {
  OpParams p;
  p.shape = Shape{3};
  T a({2}, {0.1, 0.2}), b({1}, {0.3});
  T first = run1(OpType::opaque, p, {&a, &b});
  check(first, {3}, {std::tanh(0.4), std::tanh(0.5), std::tanh(0.4)});
  REQUIRE(run1(OpType::opaque, p, {&a, &b}).data == first.data);
  p.shape = Shape{2};
  check(run1(OpType::opaque, p, {}), {2}, {0, std::tanh(1.0)});
}

TEST_CASE("the constants C_pool, I_conv, I_matmul, I_ewmul", "[kernels]") {
  check(make_constant(kReal, OpType::c_pool, {2, 1, 1, 3}), {2, 1, 1, 3}, std::vector<double>(6, 1.0 / 3));
  T ident = make_constant(kReal, OpType::i_conv, {2, 2, 1, 3});
  check(ident, {2, 2, 1, 3}, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  check(make_constant(kReal, OpType::i_conv, {2, 1, 1, 1}), {2, 1, 1, 1}, {1, 1});
  check(make_constant(kReal, OpType::i_matmul, {2, 2, 2}), {2, 2, 2}, {1, 0, 0, 1, 1, 0, 0, 1});
  check(make_constant(kReal, OpType::i_ewmul, {3}), {3}, {1, 1, 1});
  REQUIRE_THROWS_WITH(make_constant(kReal, OpType::i_conv, {2, 2, 2, 2}), Contains("odd"));
  REQUIRE_THROWS_WITH(make_constant(kReal, OpType::relu, {2}), Contains("not a constant"));
}

TEST_CASE("conv2d with I_conv returns its input: ordinary, grouped, depthwise", "[kernels]") {
  T x = random_tensor({2, 4, 5, 6}, 1);
  for (Shape kernel : {Shape{4, 4, 3, 3}, Shape{4, 2, 3, 3}, Shape{4, 1, 3, 3}, Shape{4, 4, 1, 5}}) {
    T w = make_constant(kReal, OpType::i_conv, kernel);
    INFO("kernel " << kernel.str());
    check(run1(OpType::conv2d, conv(1, Padding::same), {&x, &w}), x.shape, x.data);
  }
}

TEST_CASE("pool_avg equals depthwise conv2d with C_pool", "[kernels]") {
  T x = random_tensor({2, 3, 7, 6}, 2);
  for (int stride : {1, 2})
    for (Padding pad : {Padding::same, Padding::valid}) {
      T w = make_constant(kReal, OpType::c_pool, {3, 1, 3, 2});
      T pooled = run1(OpType::pool_avg, pool_window(3, 2, stride, pad), {&x});
      check(run1(OpType::conv2d, conv(stride, pad), {&x, &w}), pooled.shape, pooled.data);
    }
}

TEST_CASE("matmul with I_matmul returns the other operand", "[kernels]") {
  T x = random_tensor({2, 3, 4}, 3);
  T right = make_constant(kReal, OpType::i_matmul, {4, 4}),
    left = make_constant(kReal, OpType::i_matmul, {2, 3, 3});
  check(run1(OpType::matmul, {}, {&x, &right}), x.shape, x.data);
  check(run1(OpType::matmul, {}, {&left, &x}), x.shape, x.data);
}

TEST_CASE("run_op reports misuse as errors", "[kernels]") {
  T a = iota({2, 2}), b = iota({3});
  REQUIRE_THROWS_WITH(run(OpType::ewadd, {}, {&a, &b}), Contains("broadcast"));
  REQUIRE_THROWS_WITH(run(OpType::relu, {}, {&a, &a}), Contains("inputs"));
  OpParams p;
  p.shape = Shape{2, 2};
  REQUIRE_THROWS_WITH(run(OpType::input, p, {}), Contains("caller"));
}

TEST_CASE("split after concat returns the pieces, also nested", "[kernels][evaluator]") {
  Graph g;
  NodeId a = g.add_input("a", {2, 3}), b = g.add_input("b", {2, 2}), c = g.add_input("c", {2, 1});
  NodeId ab = g.add(OpType::concat, {{a, 0}, {b, 0}}, axis(1));
  NodeId abc = g.add(OpType::concat, {{ab, 0}, {c, 0}}, axis(1));
  NodeId outer = g.add(OpType::split, {{abc, 0}}, axis(1));    // ab | c
  NodeId inner = g.add(OpType::split, {{outer, 0}}, axis(1));  // a | b
  NodeId flat = g.add(OpType::concat, {{a, 0}, {b, 0}, {c, 0}}, axis(1));
  NodeId flat_split = g.add(OpType::split, {{flat, 0}}, axis(1));  // the last concatenation: ab | c
  for (TensorRef t : {TensorRef{inner, 0}, TensorRef{inner, 1}, TensorRef{outer, 1}, TensorRef{outer, 0},
                      TensorRef{flat_split, 0}, TensorRef{flat_split, 1}})
    g.add_output(t);
  SourceValues<RealArith<double>> sources = random_sources(kReal, 11);
  std::vector<T> out = evaluate(g, kReal, sources);
  T va = sources(g, a), vb = sources(g, b), vc = sources(g, c);
  T vab = run1(OpType::concat, axis(1), {&va, &vb});
  REQUIRE(out.size() == 6);
  check(out[0], va.shape, va.data);
  check(out[1], vb.shape, vb.data);
  check(out[2], vc.shape, vc.data);
  check(out[3], vab.shape, vab.data);
  check(out[4], vab.shape, vab.data);
  check(out[5], vc.shape, vc.data);
}

TEST_CASE("split undoes concat on the batch axis of 4-D tensors", "[kernels][evaluator]") {
  Graph g;
  NodeId a = g.add_input("a", {1, 2, 3, 3}), b = g.add_input("b", {2, 2, 3, 3});
  NodeId ab = g.add(OpType::concat, {{a, 0}, {b, 0}}, axis(0));
  NodeId s = g.add(OpType::split, {{ab, 0}}, axis(0));
  g.add_output({s, 1});
  g.add_output({s, 0});
  auto sources = random_sources(kReal, 5);
  std::vector<T> out = evaluate(g, kReal, sources);
  REQUIRE(out[0].data == sources(g, b).data);
  REQUIRE(out[1].data == sources(g, a).data);
}

TEST_CASE("random sources depend on the seed and the name, not on node ids", "[kernels][evaluator]") {
  Graph g1, g2;
  NodeId x1 = g1.add_input("x", {2, 3});
  NodeId w1 = g1.add_weight("w", {3, 2});
  g1.add_output({g1.add(OpType::matmul, {{x1, 0}, {w1, 0}}), 0});
  NodeId w2 = g2.add_weight("w", {3, 2});
  g2.add_input("unused", {4});
  NodeId x2 = g2.add_input("x", {2, 3});
  g2.add_output({g2.add(OpType::matmul, {{x2, 0}, {w2, 0}}), 0});
  REQUIRE(x1 != x2);
  auto sources = random_sources(kReal, 42);
  REQUIRE(sources(g1, x1).data == sources(g2, x2).data);
  REQUIRE(sources(g1, w1).data == sources(g2, w2).data);
  REQUIRE(sources(g1, x1).data != random_sources(kReal, 43)(g1, x1).data);
  REQUIRE(evaluate(g1, kReal, sources)[0].data == evaluate(g2, kReal, sources)[0].data);
  for (double v : sources(g1, x1).data) REQUIRE((v >= -1 && v <= 1));
  ModArith mod;
  REQUIRE(random_sources(mod, 42)(g1, w1).data == random_sources(mod, 42)(g2, w2).data);
}

TEST_CASE("weights with data use it in real arithmetic only", "[kernels][evaluator]") {
  Graph g;
  NodeId d = g.add_weight("d", {2}, {1.5f, -2.0f});
  Graph plain;
  NodeId p = plain.add_weight("d", {2});
  check(random_sources(kReal, 1)(g, d), {2}, {1.5, -2});
  REQUIRE(random_sources(RealArith<float>(), 1)(g, d).data == std::vector<float>{1.5f, -2.0f});
  ModArith mod;
  REQUIRE(random_sources(mod, 1)(g, d).data == random_sources(mod, 1)(plain, p).data);
  REQUIRE(random_sources(mod, 1)(g, d).data != std::vector<uint64_t>{mod.constant(1.5), mod.from_int(-2)});
}

TEST_CASE("evaluate rejects cycles, wrong source shapes and stale shapes", "[kernels][evaluator]") {
  Graph g;
  NodeId a = g.add_input("a", {2, 2});
  NodeId r1 = g.add(OpType::relu, {{a, 0}});
  NodeId r2 = g.add(OpType::relu, {{r1, 0}});
  g.add_output({r2, 0});
  SourceValues<RealArith<double>> wrong = [](const Graph&, NodeId) { return T({3}, 0.0); };
  REQUIRE_THROWS_WITH(evaluate(g, kReal, wrong), Contains("has shape 3"));
  Graph stale = g;
  NodeId b = stale.add_input("b", {3});
  stale.set_input(r1, 0, {b, 0});
  REQUIRE_THROWS_WITH(evaluate(stale, kReal, random_sources(kReal, 1)), Contains("stale"));
  g.set_input(r1, 0, {r2, 0});
  REQUIRE_THROWS_WITH(evaluate(g, kReal, random_sources(kReal, 1)), Contains("cycle"));
}
