// GPU test: every operator's GPU kernel against the CPU reference on random
// inputs, over strides, paddings, groups, fused activations, broadcasting and
// matmul layouts. Exits 77 (CTest: skipped) without a CUDA device.
#include "tests/gpu_test_support.h"
#include "tests/op_params.h"

using namespace superopt;
using namespace superopt::test;

namespace {

constexpr double kTolerance = 1e-4;  // FP32 against double on small reductions

TensorRef in(Graph& g, const char* name, Shape s) {
  return {g.add_input(name, s), 0};
}
TensorRef wt(Graph& g, const char* name, Shape s) {
  return {g.add_weight(name, s), 0};
}
TensorRef op(Graph& g, OpType type, std::initializer_list<TensorRef> inputs, OpParams p = {}) {
  return {g.add(type, inputs, p), 0};
}

}  // namespace

TEST_CASE("conv2d: strides, paddings, groups, kernels and fused relu", "[gpu]") {
  for (int size : {7, 8})
    for (int kernel : {1, 3, 5})
      for (int stride : {1, 2})
        for (Padding pad : {Padding::same, Padding::valid})
          for (int groups : {1, 2, 8})  // 8 = depthwise
            for (Activation act : {Activation::none, Activation::relu}) {
              Graph g;
              TensorRef x = in(g, "x", {2, 8, size, size});
              TensorRef w = wt(g, "w", {16, 8 / groups, kernel, kernel});
              g.add_output(op(g, OpType::conv2d, {x, w}, conv(stride, pad, act)));
              INFO("size " << size << " kernel " << kernel << " stride " << stride << " groups " << groups
                           << " padding " << padding_name(pad) << " activation " << activation_name(act));
              CHECK(gpu_relative_error(g) < kTolerance);
            }
}

TEST_CASE("conv2d: non-square kernels and the 7x7 stride-2 stem (asymmetric SAME padding)", "[gpu]") {
  for (Shape w_shape : {Shape{4, 3, 1, 3}, Shape{4, 3, 3, 1}, Shape{4, 3, 7, 7}}) {
    Graph g;
    TensorRef x = in(g, "x", {1, 3, 15, 16});
    g.add_output(op(g, OpType::conv2d, {x, wt(g, "w", w_shape)}, conv(2, Padding::same, Activation::relu)));
    INFO("weight " << w_shape.str());
    CHECK(gpu_relative_error(g) < kTolerance);
  }
}

TEST_CASE("conv2d with its bias input: added before the activation, fused and not", "[gpu]") {
  for (int stride : {1, 2})
    for (int groups : {1, 8})
      for (Activation act : {Activation::none, Activation::relu, Activation::sigmoid, Activation::silu,
                             Activation::hardswish, Activation::gelu, Activation::relu6}) {
        Graph g;
        TensorRef x = in(g, "x", {2, 8, 9, 9});
        g.add_output(op(g, OpType::conv2d, {x, wt(g, "w", {16, 8 / groups, 3, 3}), wt(g, "b", {16})},
                        conv(stride, Padding::same, act)));
        INFO("stride " << stride << " groups " << groups << " activation " << activation_name(act));
        CHECK(gpu_relative_error(g) < kTolerance);
      }
}

TEST_CASE("weight-only operators are folded on the CPU before upload", "[gpu]") {
  Graph g;
  TensorRef x = in(g, "x", {1, 4, 6, 6});
  TensorRef big = op(g, OpType::enlarge, {wt(g, "w", {4, 4, 1, 1})}, pool(3, 1, Padding::same));
  TensorRef id = {g.add(OpType::i_conv, {}, with_shape({4, 4, 3, 3})), 0};
  TensorRef sum = op(g, OpType::ewadd,
                     {op(g, OpType::conv2d, {x, big}, conv(1, Padding::same)),
                      op(g, OpType::conv2d, {x, id}, conv(1, Padding::same))});
  g.add_output(sum);
  CHECK(gpu_relative_error(g) < kTolerance);
}

TEST_CASE("matmul: plain, batched, shared operands and transposed inputs", "[gpu]") {
  struct Case {
    Shape a, b;
  };
  for (Case c : {Case{{5, 7}, {7, 3}}, Case{{4, 5, 7}, {4, 7, 3}}, Case{{4, 5, 7}, {7, 3}},
                 Case{{5, 7}, {4, 7, 3}}, Case{{2, 3, 5, 7}, {2, 3, 7, 9}}, Case{{1, 64}, {64, 33}}}) {
    Graph g;
    g.add_output(op(g, OpType::matmul, {in(g, "a", c.a), wt(g, "b", c.b)}));
    INFO(c.a.str() << " x " << c.b.str());
    CHECK(gpu_relative_error(g) < kTolerance);
  }
  // A x B^T and A^T x B through transpose nodes (the layouts TASO's rules produce).
  Graph g;
  TensorRef a = in(g, "a", {3, 6, 5}), b = in(g, "b", {3, 4, 5});
  OpParams swap;
  swap.perm = {0, 2, 1, -1, -1, -1};
  TensorRef abt = op(g, OpType::matmul, {a, op(g, OpType::transpose, {b}, swap)});
  g.add_output(abt);
  g.add_output(op(g, OpType::matmul, {op(g, OpType::transpose, {a}, swap), in(g, "c", {3, 6, 2})}));
  CHECK(gpu_relative_error(g) < kTolerance);
}

TEST_CASE("matmul: the column-major layout gives the transposed storage of the row-major product", "[gpu]") {
  const int64_t batches = 3, m = 5, k = 7, n = 4;
  std::vector<float> a(batches * m * k), b(batches * k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 7 % 13) - 6) / 8.f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 5 % 11) - 5) / 8.f;
  cuda::GpuContext ctx;
  cuda::DeviceBuffer da(a.size(), "a"), db(b.size(), "b"), dc(batches * m * n, "c");
  cuda::copy_to_device(da.data(), a.data(), da.elements(), "a");
  cuda::copy_to_device(db.data(), b.data(), db.elements(), "b");
  cuda::MatmulShape s{batches, m, n, k, m * k, k * n, true};
  CHECK(ctx.matmul("matmul col", s, da.data(), db.data(), dc.data()) ==
        "cublas:gemm_strided_batched col fp32");
  std::vector<float> c(dc.elements());
  cuda::copy_to_host(c.data(), dc.data(), dc.elements(), "c");
  // Column-major: element (i, j) of matrix t is at t*m*n + j*m + i, A(i, kk) at i + kk*m.
  double worst = 0;
  for (int64_t t = 0; t < batches; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          want += double(a[t * m * k + kk * m + i]) * b[t * k * n + j * k + kk];
        worst = std::max(worst, std::fabs(want - c[t * m * n + j * m + i]));
      }
  CHECK(worst < 1e-5);
}

TEST_CASE("element-wise operators, broadcasting and smul", "[gpu]") {
  struct Case {
    Shape a, b;
  };
  for (OpType type : {OpType::ewadd, OpType::ewmul})
    for (Case c : {Case{{2, 3, 4, 5}, {2, 3, 4, 5}}, Case{{1, 8, 4, 4}, {1, 8, 1, 1}}, Case{{2, 3, 4}, {4}},
                   Case{{3, 1}, {1, 5}}}) {
      Graph g;
      g.add_output(op(g, type, {in(g, "a", c.a), in(g, "b", c.b)}));
      INFO(op_name(type) << " " << c.a.str() << " " << c.b.str());
      CHECK(gpu_relative_error(g) < kTolerance);
    }
  Graph g;
  g.add_output(op(g, OpType::smul, {in(g, "x", {2, 3, 5}), wt(g, "s", {1})}));
  CHECK(gpu_relative_error(g) < kTolerance);
}

TEST_CASE("transpose, the activations, softmax, reshape", "[gpu]") {
  Graph g;
  TensorRef x = in(g, "x", {2, 3, 4, 5});
  OpParams perm;
  perm.perm = {0, 2, 3, 1, -1, -1};
  g.add_output(op(g, OpType::transpose, {x}, perm));
  g.add_output(op(g, OpType::transpose, {x}));  // reversed
  for (OpType type : {OpType::relu, OpType::sigmoid, OpType::tanh, OpType::silu, OpType::hardswish,
                      OpType::gelu, OpType::relu6})
    g.add_output(op(g, type, {x}));
  g.add_output(op(g, OpType::softmax, {x}, axis(3)));
  g.add_output(op(g, OpType::softmax, {x}, axis(1)));
  g.add_output(op(g, OpType::relu, {op(g, OpType::reshape, {x}, with_shape({6, 20}))}));
  CHECK(gpu_relative_error(g) < kTolerance);
}

TEST_CASE("pooling: windows, strides and paddings", "[gpu]") {
  for (OpType type : {OpType::pool_avg, OpType::pool_max})
    for (int k : {2, 3})
      for (int stride : {1, 2})
        for (Padding pad : {Padding::same, Padding::valid}) {
          Graph g;
          g.add_output(op(g, type, {in(g, "x", {2, 3, 7, 8})}, pool(k, stride, pad)));
          INFO(op_name(type) << " k " << k << " stride " << stride << " " << padding_name(pad));
          CHECK(gpu_relative_error(g) < kTolerance);
        }
}

TEST_CASE("concat and split: copies and views", "[gpu]") {
  for (int batch : {1, 2})  // batch 1: split along channels is a view; batch 2 copies
    for (int ax : {0, 1, 3}) {
      Graph g;
      TensorRef a = in(g, "a", {batch, 3, 4, 5}), b = in(g, "b", {batch, 3, 4, 5}),
                c = in(g, "c", {batch, 3, 4, 5});
      TensorRef joined = op(g, OpType::concat, {a, b, c}, axis(ax));
      g.add_output(joined);
      NodeId parts =
          g.add(OpType::split, {op(g, OpType::relu, {op(g, OpType::concat, {a, b}, axis(ax))})}, axis(ax));
      g.add_output({parts, 0});
      g.add_output({op(g, OpType::tanh, {{parts, 1}})});
      INFO("batch " << batch << " axis " << ax);
      CHECK(gpu_relative_error(g) < kTolerance);
    }
}

TEST_CASE("batchnorm with positive variances", "[gpu]") {
  Graph g;
  TensorRef x = in(g, "x", {2, 4, 3, 3});
  TensorRef scale = wt(g, "scale", {4}), bias = wt(g, "bias", {4}), mean = wt(g, "mean", {4});
  TensorRef var = {g.add_weight("var", {4}, {0.5f, 1.f, 2.f, 0.25f}), 0};
  g.add_output(op(g, OpType::batchnorm, {x, scale, bias, mean, var}));
  CHECK(gpu_relative_error(g) < kTolerance);
}

int main(int argc, char** argv) {
  return superopt::test::run_gpu_tests(argc, argv);
}
