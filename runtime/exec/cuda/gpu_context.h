// One GPU stream with its cuDNN and cuBLAS handles, the convolution algorithm
// cache and a workspace grown on demand; device buffers and event timing.
// Plain C++17: no CUDA types, so C++20 code includes it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace superopt::cuda {

// Owns device memory; moves, never copies.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int64_t elements, const std::string& what);  // float32 elements
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  float* data() const { return data_; }
  int64_t elements() const { return elements_; }

 private:
  float* data_ = nullptr;
  int64_t elements_ = 0;
};

void copy_to_device(float* dst, const float* src, int64_t elements, const std::string& what);
void copy_to_host(float* dst, const float* src, int64_t elements, const std::string& what);

// NCHW convolution; padding may be asymmetric (TensorFlow SAME puts the extra after).
struct ConvShape {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t outs = 0, per_group = 0, kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t out_h = 0, out_w = 0;
  bool relu = false;
};

// C = A x B for `batches` matrices; a_step / b_step are element strides between
// batches (0: one matrix shared by all). col_major: every matrix is stored column-major.
struct MatmulShape {
  int64_t batches = 1, m = 0, n = 0, k = 0, a_step = 0, b_step = 0;
  bool col_major = false;
};

// How a convolution reaches cuDNN, whose legacy API pads symmetrically:
// asymmetric padding (TensorFlow SAME with an odd total) becomes a zero-padded
// copy of the input and no cuDNN padding.
struct CudnnPadding {
  bool padded_copy = false;
  int64_t in_h = 0, in_w = 0;    // of the tensor cuDNN reads
  int64_t pad_h = 0, pad_w = 0;  // cuDNN's symmetric padding
};
inline CudnnPadding cudnn_padding(const ConvShape& s) {
  CudnnPadding p;
  p.padded_copy = s.pad_top != s.pad_bottom || s.pad_left != s.pad_right;
  p.in_h = p.padded_copy ? s.height + s.pad_top + s.pad_bottom : s.height;
  p.in_w = p.padded_copy ? s.width + s.pad_left + s.pad_right : s.width;
  p.pad_h = p.padded_copy ? 0 : s.pad_top;
  p.pad_w = p.padded_copy ? 0 : s.pad_left;
  return p;
}

// The column-major GEMM cuBLAS is asked for: C = first x second, sizes m x k
// and k x n, with leading dimensions and batch strides. A row-major product
// C = A B is the column-major C^T = B^T A^T, so it swaps the operands.
struct GemmCall {
  bool swap_operands = false;  // first is B, second is A
  int64_t m = 0, n = 0, k = 0, ld_first = 0, ld_second = 0, ld_c = 0;
  int64_t stride_first = 0, stride_second = 0, stride_c = 0, batches = 0;
};
inline GemmCall gemm_call(const MatmulShape& s) {
  GemmCall g;
  g.k = s.k;
  g.stride_c = s.m * s.n;
  g.batches = s.batches;
  if (s.col_major) {
    g.m = s.m;
    g.n = s.n;
    g.ld_first = s.m;
    g.ld_second = s.k;
    g.ld_c = s.m;
    g.stride_first = s.a_step;
    g.stride_second = s.b_step;
  } else {
    g.swap_operands = true;
    g.m = s.n;
    g.n = s.m;
    g.ld_first = s.n;
    g.ld_second = s.k;
    g.ld_c = s.n;
    g.stride_first = s.b_step;
    g.stride_second = s.a_step;
  }
  return g;
}

class GpuContext {
 public:
  // allow_tf32: let cuDNN and cuBLAS use TF32 tensor cores for float32 (off: strict FP32).
  explicit GpuContext(bool allow_tf32 = false);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  void* stream() const;  // a cudaStream_t
  bool allow_tf32() const;
  void synchronize(const std::string& what) const;

  // The first call with a key (the operator's signature) chooses the algorithm
  // with cudnnFindConvolutionForwardAlgorithmEx on these buffers and tries the
  // fused bias+relu call; later calls reuse the choice. Returns the algorithm
  // text, e.g. "cudnn:IMPLICIT_PRECOMP_GEMM+fused_relu".
  // bias: [O] added before the relu, or nullptr.
  std::string conv2d(const std::string& key, const ConvShape& s, const float* x, const float* w,
                     const float* bias, float* y);
  // Returns the algorithm text ("cublas:gemm_strided_batched row fp32").
  std::string matmul(const std::string& key, const MatmulShape& s, const float* a, const float* b, float* c);

  int64_t workspace_bytes() const;

  // Runs run(i) `warmup` times, then `repeats` times between CUDA events on the
  // stream; returns each timed run's milliseconds.
  std::vector<double> time_ms(int warmup, int repeats, const std::function<void(int)>& run,
                              const std::string& what);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superopt::cuda
