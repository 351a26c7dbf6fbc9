// The hand-written CUDA kernels: one thread per output element, grid-stride
// loops, float32 throughout. Semantics follow runtime/kernels.h exactly.
#include <cstdint>

#include "runtime/exec/cuda/cuda_check.h"
#include "runtime/exec/cuda/gpu_kernels.h"

namespace superopt::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b > 65535LL * 16) b = 65535LL * 16;  // grid-stride loops cover the rest
  return static_cast<int>(b < 1 ? 1 : b);
}

cudaStream_t as_stream(void* s) {
  return static_cast<cudaStream_t>(s);
}

void check_launch(const char* kernel) {
  check_cuda(cudaGetLastError(), "kernel launch", std::string("kernel ") + kernel);
}

#define GRID_LOOP(i, n)                                                     \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

__global__ void unary_kernel(UnaryOp op, const float* x, float* y, int64_t n) {
  GRID_LOOP(i, n) {
    float v = x[i];
    if (op == UnaryOp::relu)
      y[i] = v > 0.f ? v : 0.f;
    else if (op == UnaryOp::sigmoid)
      y[i] = 1.f / (1.f + expf(-v));
    else if (op == UnaryOp::silu)
      y[i] = v / (1.f + expf(-v));
    else if (op == UnaryOp::hardswish)  // PyTorch's: x * clip(x / 6 + 1/2, 0, 1)
      y[i] = v * fminf(fmaxf(v / 6.f + 0.5f, 0.f), 1.f);
    else if (op == UnaryOp::relu6)
      y[i] = fminf(fmaxf(v, 0.f), 6.f);
    else if (op == UnaryOp::gelu)  // the exact (erf) form
      y[i] = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    else
      y[i] = tanhf(v);
  }
}

__global__ void binary_kernel(BinaryOp op, const float* a, const float* b, float* y, StridedShape s,
                              int64_t n) {
  GRID_LOOP(i, n) {
    int64_t ia, ib;
    strided_offsets(s, i, ia, ib);
    y[i] = op == BinaryOp::add ? a[ia] + b[ib] : a[ia] * b[ib];
  }
}

__global__ void scale_kernel(const float* x, const float* s, float* y, int64_t n) {
  const float factor = s[0];
  GRID_LOOP(i, n) {
    y[i] = x[i] * factor;
  }
}

__global__ void gather_kernel(const float* x, float* y, StridedShape s, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t ia, ib;
    strided_offsets(s, i, ia, ib);
    y[i] = x[ia];
  }
}

__global__ void pool_kernel(bool max, const float* x, float* y, PoolShape p, int64_t n) {
  GRID_LOOP(i, n) {
    y[i] = pool_at(max, x, p, i);
  }
}

__global__ void batchnorm_kernel(const float* x, const float* scale, const float* bias, const float* mean,
                                 const float* var, float epsilon, float* y, int64_t channels, int64_t inner,
                                 int64_t n) {
  GRID_LOOP(i, n) {
    const int64_t c = (i / inner) % channels;
    y[i] = (x[i] - mean[c]) * (rsqrtf(var[c] + epsilon) * scale[c]) + bias[c];
  }
}

// One thread per (outer, inner) row: rows are short in the models (sequence lengths, classes).
__global__ void softmax_kernel(const float* x, float* y, int64_t outer, int64_t length, int64_t inner) {
  GRID_LOOP(row, outer * inner) {
    const int64_t base = (row / inner) * length * inner + row % inner;
    float shift = x[base];
    for (int64_t j = 1; j < length; ++j) shift = fmaxf(shift, x[base + j * inner]);
    float sum = 0.f;
    for (int64_t j = 0; j < length; ++j) {
      float e = expf(x[base + j * inner] - shift);
      y[base + j * inner] = e;
      sum += e;
    }
    for (int64_t j = 0; j < length; ++j) y[base + j * inner] /= sum;
  }
}

__global__ void pad_kernel(const float* x, float* y, int64_t h, int64_t w, int64_t top, int64_t left,
                           int64_t big_h, int64_t big_w, int64_t n) {
  GRID_LOOP(i, n) {
    const int64_t c = i % big_w, r = (i / big_w) % big_h, plane = i / (big_w * big_h);
    const int64_t sr = r - top, sc = c - left;
    y[i] = (sr >= 0 && sr < h && sc >= 0 && sc < w) ? x[(plane * h + sr) * w + sc] : 0.f;
  }
}

__global__ void fill_kernel(float* y, int64_t n, uint64_t seed, float lo, float hi) {
  GRID_LOOP(i, n) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (uint64_t(i) + 1);  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    y[i] = lo + (hi - lo) * float(z >> 40) * (1.f / 16777216.f);
  }
}

}  // namespace

void launch_unary(void* stream, UnaryOp op, const float* x, float* y, int64_t n) {
  unary_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(op, x, y, n);
  check_launch("unary");
}

void launch_binary(void* stream, BinaryOp op, const float* a, const float* b, float* y,
                   const StridedShape& s) {
  int64_t n = 1;
  for (int d = 0; d < s.rank; ++d) n *= s.dims[d];
  binary_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(op, a, b, y, s, n);
  check_launch("binary");
}

void launch_scale(void* stream, const float* x, const float* s, float* y, int64_t n) {
  scale_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(x, s, y, n);
  check_launch("scale");
}

void launch_gather(void* stream, const float* x, float* y, const StridedShape& s) {
  int64_t n = 1;
  for (int d = 0; d < s.rank; ++d) n *= s.dims[d];
  gather_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(x, y, s, n);
  check_launch("transpose");
}

void launch_pool(void* stream, bool max, const float* x, float* y, const PoolShape& p) {
  const int64_t n = p.planes * p.out_h * p.out_w;
  pool_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(max, x, y, p, n);
  check_launch("pool");
}

void launch_batchnorm(void* stream, const float* x, const float* scale, const float* bias, const float* mean,
                      const float* var, float epsilon, float* y, int64_t batch, int64_t channels,
                      int64_t inner) {
  const int64_t n = batch * channels * inner;
  batchnorm_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(x, scale, bias, mean, var, epsilon, y,
                                                                      channels, inner, n);
  check_launch("batchnorm");
}

void launch_softmax(void* stream, const float* x, float* y, int64_t outer, int64_t length, int64_t inner) {
  softmax_kernel<<<blocks_for(outer * inner), kThreads, 0, as_stream(stream)>>>(x, y, outer, length, inner);
  check_launch("softmax");
}

void launch_pad(void* stream, const float* x, float* y, int64_t planes, int64_t h, int64_t w, int64_t top,
                int64_t bottom, int64_t left, int64_t right) {
  const int64_t big_h = h + top + bottom, big_w = w + left + right, n = planes * big_h * big_w;
  pad_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(x, y, h, w, top, left, big_h, big_w, n);
  check_launch("pad");
}

void copy_rows(void* stream, void* dst, int64_t dst_pitch_bytes, const void* src, int64_t src_pitch_bytes,
               int64_t row_bytes, int64_t rows) {
  SUPEROPT_CUDA(cudaMemcpy2DAsync(dst, dst_pitch_bytes, src, src_pitch_bytes, row_bytes, rows,
                                  cudaMemcpyDeviceToDevice, as_stream(stream)),
                "concat/split copy");
}

void launch_fill_uniform(void* stream, float* y, int64_t n, uint64_t seed, float lo, float hi) {
  fill_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(y, n, seed, lo, hi);
  check_launch("fill");
}

}  // namespace superopt::cuda
