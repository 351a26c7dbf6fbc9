// The hand-written CUDA kernels (element-wise, broadcast, transpose, pooling,
// batchnorm, softmax, padding), callable from plain C++17 without CUDA headers.
// Every launch goes to the given stream (a cudaStream_t passed as void*) and
// throws superopt::Error naming the kernel when the launch fails.
#pragma once

#include <cstdint>

// Index math shared by the kernels and the CPU tests of that math.
#ifdef __CUDACC__
#define SUPEROPT_HOST_DEVICE __host__ __device__
#else
#define SUPEROPT_HOST_DEVICE
#endif

namespace superopt::cuda {

inline constexpr int kGpuMaxRank = 6;

// Element strides for reading an input as if it had the output's shape
// (0 along broadcast dimensions), padded to kGpuMaxRank.
struct StridedShape {
  int rank = 0;
  int64_t dims[kGpuMaxRank] = {};
  int64_t strides_a[kGpuMaxRank] = {};
  int64_t strides_b[kGpuMaxRank] = {};
};

// Offsets into a and b of output element i, walking the dimensions from the innermost.
SUPEROPT_HOST_DEVICE inline void strided_offsets(const StridedShape& s, int64_t i, int64_t& a, int64_t& b) {
  a = 0;
  b = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int64_t index = i % s.dims[d];
    i /= s.dims[d];
    a += index * s.strides_a[d];
    b += index * s.strides_b[d];
  }
}

enum class UnaryOp { relu, sigmoid, tanh, silu, hardswish, gelu, relu6 };
enum class BinaryOp { add, mul };

void launch_unary(void* stream, UnaryOp op, const float* x, float* y, int64_t n);
// y[i] = a[index_a(i)] op b[index_b(i)] over the output shape.
void launch_binary(void* stream, BinaryOp op, const float* a, const float* b, float* y,
                   const StridedShape& s);
// y = x * s[0], with the scalar read on the device.
void launch_scale(void* stream, const float* x, const float* s, float* y, int64_t n);
// y[i] = x[gather offset of output index i]; strides_a holds the input strides per output dim.
void launch_gather(void* stream, const float* x, float* y, const StridedShape& s);

struct PoolShape {
  int64_t planes = 0, height = 0, width = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};
// Average: padding counts as zeros, divisor is the full window (COUNT_INCLUDE_PADDING).
// Max: padded positions are ignored. Matches runtime/kernels.h.
void launch_pool(void* stream, bool max, const float* x, float* y, const PoolShape& p);

// Output element i of a pooling: the window clipped to the input.
SUPEROPT_HOST_DEVICE inline float pool_at(bool max, const float* x, const PoolShape& p, int64_t i) {
  const int64_t ow = i % p.out_w, oh = (i / p.out_w) % p.out_h, plane = i / (p.out_w * p.out_h);
  const float* in = x + plane * p.height * p.width;
  const int64_t top = oh * p.stride_h - p.pad_h, left = ow * p.stride_w - p.pad_w;
  const int64_t r0 = top > 0 ? top : 0, c0 = left > 0 ? left : 0;
  const int64_t r1 = top + p.kernel_h < p.height ? top + p.kernel_h : p.height;
  const int64_t c1 = left + p.kernel_w < p.width ? left + p.kernel_w : p.width;
  float acc = max ? in[r0 * p.width + c0] : 0.f;  // SAME and VALID windows always overlap the input
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = c0; c < c1; ++c) {
      const float v = in[r * p.width + c];
      acc = max ? (v > acc ? v : acc) : acc + v;
    }
  return max ? acc : acc / float(p.kernel_h * p.kernel_w);
}

// y = (x - mean) * rsqrt(var + eps) * scale + bias per channel (dimension 1).
void launch_batchnorm(void* stream, const float* x, const float* scale, const float* bias, const float* mean,
                      const float* var, float epsilon, float* y, int64_t batch, int64_t channels,
                      int64_t inner);

// Softmax along an axis of [outer, length, inner], subtracting the maximum first.
void launch_softmax(void* stream, const float* x, float* y, int64_t outer, int64_t length, int64_t inner);

// Copies [planes, h, w] into the middle of a zeroed [planes, h + top + bottom, w + left + right].
void launch_pad(void* stream, const float* x, float* y, int64_t planes, int64_t h, int64_t w, int64_t top,
                int64_t bottom, int64_t left, int64_t right);

// Copies `rows` blocks of `row_bytes` between pitched buffers (concat and split).
void copy_rows(void* stream, void* dst, int64_t dst_pitch_bytes, const void* src, int64_t src_pitch_bytes,
               int64_t row_bytes, int64_t rows);

// Uniform values in [lo, hi) from a counter-based hash, for timing buffers.
void launch_fill_uniform(void* stream, float* y, int64_t n, uint64_t seed, float lo, float hi);

}  // namespace superopt::cuda
