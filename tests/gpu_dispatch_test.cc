// CPU test of the GPU dispatch (no device needed): the parameters launch_node
// derives for cuDNN, cuBLAS and the hand-written kernels, run through host
// emulations of those calls (cuDNN's symmetric padding and output-size rule,
// cuBLAS's column-major strided-batched GEMM, the kernels' shared index math),
// must reproduce the reference kernels of runtime/kernels.h.
#include <catch2/catch.hpp>
#include <cmath>

#include "runtime/core/arith.h"
#include "runtime/core/kernels.h"
#include "runtime/exec/cuda/gpu_node.h"
#include "tests/op_params.h"

using namespace superopt;
using namespace superopt::cuda;
using namespace superopt::test;

namespace {

using Real = RealArith<double>;

Tensor<double> random_tensor(const Shape& s, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(s.num_elements()));
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (double& x : v) {
    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
    x = double(z >> 40) / double(1 << 24) * 2 - 1;
  }
  return Tensor<double>(s, std::move(v));
}

Tensor<double> reference(OpType op, const OpParams& p, std::vector<const Tensor<double>*> in) {
  return run_op(Real(), op, p, std::span<const Tensor<double>* const>(in))[0];
}

double max_diff(const Tensor<double>& a, const Tensor<double>& b) {
  REQUIRE(a.shape == b.shape);
  double d = 0;
  for (int64_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// What cuDNN computes for ConvShape s: a cross-correlation of the tensor it is
// given (the padded copy, or the input) with symmetric padding, in groups.
Tensor<double> emulate_cudnn_conv(const ConvShape& s, const Tensor<double>& x, const Tensor<double>& w) {
  const CudnnPadding pad = cudnn_padding(s);
  // cuDNN's output size rule must give the graph's output shape.
  REQUIRE((pad.in_h + 2 * pad.pad_h - s.kernel_h) / s.stride_h + 1 == s.out_h);
  REQUIRE((pad.in_w + 2 * pad.pad_w - s.kernel_w) / s.stride_w + 1 == s.out_w);
  const int64_t top = pad.padded_copy ? s.pad_top : 0, left = pad.padded_copy ? s.pad_left : 0;
  auto input = [&](int64_t n, int64_t c, int64_t r, int64_t q) {  // the tensor cuDNN reads, then its padding
    r -= pad.pad_h;
    q -= pad.pad_w;
    if (r < 0 || r >= pad.in_h || q < 0 || q >= pad.in_w) return 0.0;
    r -= top;
    q -= left;
    if (r < 0 || r >= s.height || q < 0 || q >= s.width) return 0.0;
    return x[((n * s.channels + c) * s.height + r) * s.width + q];
  };
  const int64_t groups = s.channels / s.per_group, outs_per_group = s.outs / groups;
  Tensor<double> y({s.batch, s.outs, s.out_h, s.out_w}, 0.0);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t o = 0; o < s.outs; ++o)
      for (int64_t oh = 0; oh < s.out_h; ++oh)
        for (int64_t ow = 0; ow < s.out_w; ++ow) {
          double sum = 0;
          for (int64_t c = 0; c < s.per_group; ++c)
            for (int64_t r = 0; r < s.kernel_h; ++r)
              for (int64_t q = 0; q < s.kernel_w; ++q)
                sum += input(n, (o / outs_per_group) * s.per_group + c, oh * s.stride_h + r,
                             ow * s.stride_w + q) *
                       w[((o * s.per_group + c) * s.kernel_h + r) * s.kernel_w + q];
          y[((n * s.outs + o) * s.out_h + oh) * s.out_w + ow] = s.relu ? std::max(sum, 0.0) : sum;
        }
  return y;
}

// cuBLAS's column-major strided-batched GEMM, as gemm_call asks for it.
std::vector<double> emulate_gemm(const GemmCall& g, const std::vector<double>& first,
                                 const std::vector<double>& second) {
  std::vector<double> c(static_cast<size_t>(g.stride_c * g.batches), 0.0);
  for (int64_t t = 0; t < g.batches; ++t)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < g.k; ++l)
          sum += first[t * g.stride_first + i + l * g.ld_first] *
                 second[t * g.stride_second + l + j * g.ld_second];
        c[t * g.stride_c + i + j * g.ld_c] = sum;
      }
  return c;
}

// Each [rows, cols] matrix of a batch, transposed in storage (row- <-> column-major).
std::vector<double> flip_storage(const std::vector<double>& v, int64_t rows, int64_t cols) {
  std::vector<double> out(v.size());
  for (size_t base = 0; base < v.size(); base += size_t(rows * cols))
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) out[base + j * rows + i] = v[base + i * cols + j];
  return out;
}

}  // namespace

TEST_CASE("conv2d reaches cuDNN with padding and groups that reproduce the reference", "[gpu_dispatch]") {
  for (int size : {7, 8})
    for (int kernel : {1, 2, 3, 7})
      for (int stride : {1, 2, 3})
        for (Padding padding : {Padding::same, Padding::valid})
          for (int groups : {1, 2, 4})
            for (Activation act : {Activation::none, Activation::relu}) {
              if (padding == Padding::valid && kernel > size) continue;
              OpParams p = conv(stride, padding, act);
              Tensor<double> x = random_tensor({2, 4, size, size + 1}, 1),
                             w = random_tensor({4, 4 / groups, kernel, kernel}, 2);
              Tensor<double> want = reference(OpType::conv2d, p, {&x, &w});
              INFO("size " << size << " kernel " << kernel << " stride " << stride << " groups " << groups
                           << " " << padding_name(padding) << " " << activation_name(act));
              CHECK(max_diff(emulate_cudnn_conv(conv_shape(p, x.shape, w.shape, want.shape), x, w), want) <
                    1e-9);
            }
}

TEST_CASE("matmul reaches cuBLAS as a column-major GEMM that reproduces the reference", "[gpu_dispatch]") {
  struct Case {
    Shape a, b;
  };
  for (Case c :
       {Case{{5, 7}, {7, 3}}, Case{{4, 5, 7}, {4, 7, 3}}, Case{{4, 5, 7}, {7, 3}}, Case{{5, 7}, {4, 7, 3}},
        Case{{2, 3, 5, 7}, {2, 3, 7, 9}}, Case{{6, 1, 7}, {7, 3}}, Case{{2, 3, 5, 7}, {7, 9}}})
    for (bool col_major : {false, true}) {
      Tensor<double> a = random_tensor(c.a, 3), b = random_tensor(c.b, 4);
      Tensor<double> want = reference(OpType::matmul, {}, {&a, &b});
      MatmulShape s = matmul_shape(a.shape, b.shape, want.shape, col_major);
      // a right operand broadcast over a row-major batch: one GEMM over all the rows
      const bool merged = !col_major && c.a.rank() > 2 && c.b.rank() == 2;
      CHECK((s.batches == 1) == (want.shape.rank() == 2 || merged));
      GemmCall g = gemm_call(s);
      std::vector<double> da = col_major ? flip_storage(a.data, s.m, s.k) : a.data;
      std::vector<double> db = col_major ? flip_storage(b.data, s.k, s.n) : b.data;
      std::vector<double> out = emulate_gemm(g, g.swap_operands ? db : da, g.swap_operands ? da : db);
      if (col_major) out = flip_storage(out, s.n, s.m);
      INFO(c.a.str() << " x " << c.b.str() << (col_major ? " col" : " row"));
      CHECK(max_diff(Tensor<double>(want.shape, out), want) < 1e-9);
    }
}

TEST_CASE("broadcast and transpose index math reproduces the reference", "[gpu_dispatch]") {
  struct Case {
    Shape a, b;
  };
  for (Case c : {Case{{2, 3, 4}, {2, 3, 4}}, Case{{1, 8, 4, 4}, {1, 8, 1, 1}}, Case{{2, 3, 4}, {4}},
                 Case{{3, 1}, {1, 5}}}) {
    Tensor<double> a = random_tensor(c.a, 5), b = random_tensor(c.b, 6);
    Tensor<double> want = reference(OpType::ewadd, {}, {&a, &b});
    StridedShape s = binary_shape(a.shape, b.shape, want.shape);
    Tensor<double> got(want.shape, 0.0);
    for (int64_t i = 0; i < got.size(); ++i) {
      int64_t ia = 0, ib = 0;
      strided_offsets(s, i, ia, ib);
      got[i] = a[ia] + b[ib];
    }
    INFO(c.a.str() << " + " << c.b.str());
    CHECK(max_diff(got, want) < 1e-12);
  }
  Tensor<double> x = random_tensor({2, 3, 4, 5}, 7);
  OpParams rotate, reverse;
  rotate.perm = {0, 2, 3, 1, -1, -1};
  for (const OpParams& p : {rotate, reverse}) {
    Tensor<double> want = reference(OpType::transpose, p, {&x});
    StridedShape s = transpose_shape(p, x.shape, want.shape);
    Tensor<double> got(want.shape, 0.0);
    for (int64_t i = 0; i < got.size(); ++i) {
      int64_t ix = 0, unused = 0;
      strided_offsets(s, i, ix, unused);
      got[i] = x[ix];
    }
    CHECK(max_diff(got, want) < 1e-12);
  }
}

TEST_CASE("the pooling kernel's window math reproduces the reference", "[gpu_dispatch]") {
  for (OpType type : {OpType::pool_avg, OpType::pool_max})
    for (int k : {1, 2, 3})
      for (int stride : {1, 2})
        for (Padding padding : {Padding::same, Padding::valid}) {
          OpParams p = pool(k, stride, padding);
          Tensor<double> x = random_tensor({2, 3, 7, 8}, 8);
          Tensor<double> want = reference(type, p, {&x});
          std::vector<float> xf(x.data.begin(), x.data.end());
          PoolShape s = pool_shape(p, x.shape, want.shape);
          Tensor<double> got(want.shape, 0.0);
          for (int64_t i = 0; i < got.size(); ++i)
            got[i] = pool_at(type == OpType::pool_max, xf.data(), s, i);
          INFO(op_name(type) << " k " << k << " stride " << stride << " " << padding_name(padding));
          CHECK(max_diff(got, want) < 1e-6);
        }
}

TEST_CASE("splits along an axis with only size-1 dimensions before it are views", "[gpu_dispatch]") {
  for (int batch : {1, 2}) {
    Graph g;
    TensorRef a = {g.add_input("a", {batch, 3, 4}), 0}, b = {g.add_input("b", {batch, 5, 4}), 0};
    NodeId cat = g.add(OpType::concat, {a, b}, axis(1));
    NodeId parts = g.add(OpType::split, {{cat, 0}}, axis(1));
    std::array<int64_t, kMaxOutputs> offsets{};
    CHECK(view_offsets(g, parts, offsets) == (batch == 1));
    if (batch == 1) CHECK(offsets == std::array<int64_t, kMaxOutputs>{0, 12});
  }
}
