// The GPU context: stream, cuDNN and cuBLAS handles, convolution algorithm
// cache, workspace grown on demand, device buffers and CUDA event timing.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/exec/cuda/cuda_check.h"
#include "runtime/exec/cuda/gpu_context.h"
#include "runtime/exec/cuda/gpu_kernels.h"

namespace superopt::cuda {
namespace {

// FindEx may try algorithms needing up to this much scratch memory; the
// persistent workspace grows only to what the chosen algorithms need.
constexpr int64_t kFindWorkspaceCapBytes = int64_t{1} << 30;

std::string conv_text(const ConvShape& s) {
  auto dims = [](std::initializer_list<int64_t> d) {
    std::string t;
    for (int64_t v : d) t += (t.empty() ? "" : "x") + std::to_string(v);
    return t;
  };
  return "conv2d input " + dims({s.batch, s.channels, s.height, s.width}) + " weight " +
         dims({s.outs, s.per_group, s.kernel_h, s.kernel_w}) + " stride " + dims({s.stride_h, s.stride_w}) +
         " pad " + dims({s.pad_top, s.pad_bottom, s.pad_left, s.pad_right});
}

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "UNKNOWN";
  }
}

// Descriptors and the choice for one convolution configuration.
struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  size_t workspace_bytes = 0;
  bool padded_copy = false;  // asymmetric padding: the input is padded into a scratch buffer first
  bool fused = false;        // relu through cudnnConvolutionBiasActivationForward
  std::string algorithm;

  ~ConvPlan() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (bias) cudnnDestroyTensorDescriptor(bias);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (act) cudnnDestroyActivationDescriptor(act);
  }
};

}  // namespace

DeviceBuffer::DeviceBuffer(int64_t elements, const std::string& what) : elements_(elements) {
  if (elements > 0)
    SUPEROPT_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), size_t(elements) * sizeof(float)),
                  what + " (" + std::to_string(elements * 4) + " bytes)");
}
DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), elements_(std::exchange(other.elements_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    elements_ = std::exchange(other.elements_, 0);
  }
  return *this;
}

void copy_to_device(float* dst, const float* src, int64_t elements, const std::string& what) {
  SUPEROPT_CUDA(cudaMemcpy(dst, src, size_t(elements) * sizeof(float), cudaMemcpyHostToDevice), what);
}
void copy_to_host(float* dst, const float* src, int64_t elements, const std::string& what) {
  SUPEROPT_CUDA(cudaMemcpy(dst, src, size_t(elements) * sizeof(float), cudaMemcpyDeviceToHost), what);
}

struct GpuContext::Impl {
  bool allow_tf32 = false;
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  DeviceBuffer workspace, pad_scratch, zeros;
  std::map<std::string, std::unique_ptr<ConvPlan>> plans;

  // Grows a buffer to at least `elements` floats (contents are not kept).
  static void grow(DeviceBuffer& b, int64_t elements, const std::string& what) {
    if (b.elements() < elements) b = DeviceBuffer(elements, what);
  }
  void grow_workspace(size_t bytes) { grow(workspace, int64_t((bytes + 3) / 4), "conv2d workspace"); }

  std::unique_ptr<ConvPlan> make_plan(const ConvShape& s, const float* x, const float* w, float* y);
  void run_conv(ConvPlan& p, const ConvShape& s, const float* x, const float* w, const float* bias, float* y,
                const std::string& what, bool fused);
};

std::unique_ptr<ConvPlan> GpuContext::Impl::make_plan(const ConvShape& s, const float* x, const float* w,
                                                      float* y) {
  const std::string what = conv_text(s);
  auto p = std::make_unique<ConvPlan>();
  const CudnnPadding pad = cudnn_padding(s);
  p->padded_copy = pad.padded_copy;
  const int64_t in_h = pad.in_h, in_w = pad.in_w;
  const int pad_h = int(pad.pad_h), pad_w = int(pad.pad_w);
  SUPEROPT_CUDNN(cudnnCreateTensorDescriptor(&p->x), what);
  SUPEROPT_CUDNN(cudnnCreateTensorDescriptor(&p->y), what);
  SUPEROPT_CUDNN(cudnnCreateTensorDescriptor(&p->bias), what);
  SUPEROPT_CUDNN(cudnnCreateFilterDescriptor(&p->w), what);
  SUPEROPT_CUDNN(cudnnCreateConvolutionDescriptor(&p->conv), what);
  SUPEROPT_CUDNN(cudnnCreateActivationDescriptor(&p->act), what);
  SUPEROPT_CUDNN(cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(s.batch),
                                            int(s.channels), int(in_h), int(in_w)),
                 what);
  SUPEROPT_CUDNN(cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(s.batch),
                                            int(s.outs), int(s.out_h), int(s.out_w)),
                 what);
  SUPEROPT_CUDNN(
      cudnnSetTensor4dDescriptor(p->bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, int(s.outs), 1, 1), what);
  SUPEROPT_CUDNN(cudnnSetFilter4dDescriptor(p->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(s.outs),
                                            int(s.per_group), int(s.kernel_h), int(s.kernel_w)),
                 what);
  SUPEROPT_CUDNN(cudnnSetConvolution2dDescriptor(p->conv, pad_h, pad_w, int(s.stride_h), int(s.stride_w), 1,
                                                 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                 what);
  SUPEROPT_CUDNN(cudnnSetConvolutionGroupCount(p->conv, int(s.channels / s.per_group)), what);
  // FMA math keeps float32 exact to FP32 rounding; TF32 only when asked for.
  SUPEROPT_CUDNN(cudnnSetConvolutionMathType(p->conv, allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
                 what);
  SUPEROPT_CUDNN(cudnnSetActivationDescriptor(p->act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
                 what);
  int n = 0, c = 0, h = 0, wd = 0;
  SUPEROPT_CUDNN(cudnnGetConvolution2dForwardOutputDim(p->conv, p->x, p->w, &n, &c, &h, &wd), what);
  if (n != s.batch || c != s.outs || h != s.out_h || wd != s.out_w)
    throw Error(what + ": cuDNN's output " + std::to_string(n) + "x" + std::to_string(c) + "x" +
                std::to_string(h) + "x" + std::to_string(wd) + " differs from the graph's");

  const float* input = x;
  if (p->padded_copy) {
    grow(pad_scratch, s.batch * s.channels * in_h * in_w, what + ": padded input");
    launch_pad(stream, x, pad_scratch.data(), s.batch * s.channels, s.height, s.width, s.pad_top,
               s.pad_bottom, s.pad_left, s.pad_right);
    input = pad_scratch.data();
  }
  // Scratch for the search, freed afterwards; sized to the largest algorithm under the cap.
  size_t find_bytes = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(
            cudnn, p->x, p->w, p->conv, p->y, cudnnConvolutionFwdAlgo_t(a), &bytes) == CUDNN_STATUS_SUCCESS &&
        int64_t(bytes) <= kFindWorkspaceCapBytes)
      find_bytes = std::max(find_bytes, bytes);
  }
  DeviceBuffer find_space(int64_t((find_bytes + 3) / 4), what + ": algorithm search workspace");
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  SUPEROPT_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(cudnn, p->x, input, p->w, w, p->conv, p->y, y,
                                                        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf,
                                                        find_space.data(), find_bytes),
                 what);
  int chosen = -1;
  for (int i = 0; i < returned && chosen < 0; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= find_bytes) chosen = i;
  if (chosen < 0) throw Error(what + ": cudnnFindConvolutionForwardAlgorithmEx found no usable algorithm");
  p->algo = perf[chosen].algo;
  p->workspace_bytes = perf[chosen].memory;
  grow_workspace(p->workspace_bytes);
  p->algorithm = std::string("cudnn:") + algo_name(p->algo) + (p->padded_copy ? "+pad_copy" : "");
  if (s.relu) {
    // The fused call supports only some algorithms and shapes; fall back to a relu kernel when it refuses.
    grow(zeros, s.outs, what + ": zero bias");
    SUPEROPT_CUDA(cudaMemsetAsync(zeros.data(), 0, size_t(s.outs) * sizeof(float), stream), what);
    const float one = 1.f, zero = 0.f;
    cudnnStatus_t status = cudnnConvolutionBiasActivationForward(
        cudnn, &one, p->x, input, p->w, w, p->conv, p->algo, workspace.data(), p->workspace_bytes, &zero,
        p->y, y, p->bias, zeros.data(), p->act, p->y, y);
    p->fused = status == CUDNN_STATUS_SUCCESS;
    p->algorithm += p->fused ? "+fused_relu" : "+relu_kernel";
  }
  return p;
}

void GpuContext::Impl::run_conv(ConvPlan& p, const ConvShape& s, const float* x, const float* w,
                                const float* bias, float* y, const std::string& what, bool fused) {
  const float* input = x;
  if (p.padded_copy) {
    const int64_t in_h = s.height + s.pad_top + s.pad_bottom, in_w = s.width + s.pad_left + s.pad_right;
    grow(pad_scratch, s.batch * s.channels * in_h * in_w, what + ": padded input");
    launch_pad(stream, x, pad_scratch.data(), s.batch * s.channels, s.height, s.width, s.pad_top,
               s.pad_bottom, s.pad_left, s.pad_right);
    input = pad_scratch.data();
  }
  const float one = 1.f, zero = 0.f;
  if (fused) {
    SUPEROPT_CUDNN(cudnnConvolutionBiasActivationForward(cudnn, &one, p.x, input, p.w, w, p.conv, p.algo,
                                                         workspace.data(), p.workspace_bytes, &zero, p.y, y,
                                                         p.bias, bias ? bias : zeros.data(), p.act, p.y, y),
                   what);
    return;
  }
  SUPEROPT_CUDNN(cudnnConvolutionForward(cudnn, &one, p.x, input, p.w, w, p.conv, p.algo, workspace.data(),
                                         p.workspace_bytes, &zero, p.y, y),
                 what);
  // The bias [1,O,1,1] broadcast over the output, before the activation.
  if (bias) SUPEROPT_CUDNN(cudnnAddTensor(cudnn, &one, p.bias, bias, &one, p.y, y), what);
  if (s.relu) launch_unary(stream, UnaryOp::relu, y, y, s.batch * s.outs * s.out_h * s.out_w);
}

GpuContext::GpuContext(bool allow_tf32) : impl_(std::make_unique<Impl>()) {
  impl_->allow_tf32 = allow_tf32;
  SUPEROPT_CUDA(cudaStreamCreate(&impl_->stream), "GPU context");
  SUPEROPT_CUDNN(cudnnCreate(&impl_->cudnn), "GPU context");
  SUPEROPT_CUDNN(cudnnSetStream(impl_->cudnn, impl_->stream), "GPU context");
  SUPEROPT_CUBLAS(cublasCreate(&impl_->cublas), "GPU context");
  SUPEROPT_CUBLAS(cublasSetStream(impl_->cublas, impl_->stream), "GPU context");
}

GpuContext::~GpuContext() {
  impl_->plans.clear();
  if (impl_->cublas) cublasDestroy(impl_->cublas);
  if (impl_->cudnn) cudnnDestroy(impl_->cudnn);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

void* GpuContext::stream() const {
  return impl_->stream;
}
bool GpuContext::allow_tf32() const {
  return impl_->allow_tf32;
}
int64_t GpuContext::workspace_bytes() const {
  return impl_->workspace.elements() * 4;
}

void GpuContext::synchronize(const std::string& what) const {
  SUPEROPT_CUDA(cudaStreamSynchronize(impl_->stream), what);
}

std::string GpuContext::conv2d(const std::string& key, const ConvShape& s, const float* x, const float* w,
                               const float* bias, float* y) {
  auto it = impl_->plans.find(key);
  if (it == impl_->plans.end()) it = impl_->plans.emplace(key, impl_->make_plan(s, x, w, y)).first;
  ConvPlan& plan = *it->second;
  impl_->run_conv(plan, s, x, w, bias, y, key, plan.fused);
  return bias ? plan.algorithm + "+bias" : plan.algorithm;
}

std::string GpuContext::matmul(const std::string& key, const MatmulShape& s, const float* a, const float* b,
                               float* c) {
  const float one = 1.f, zero = 0.f;
  const cublasComputeType_t compute = impl_->allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const GemmCall g = gemm_call(s);
  const float* first = g.swap_operands ? b : a;
  const float* second = g.swap_operands ? a : b;
  SUPEROPT_CUBLAS(
      cublasGemmStridedBatchedEx(impl_->cublas, CUBLAS_OP_N, CUBLAS_OP_N, int(g.m), int(g.n), int(g.k), &one,
                                 first, CUDA_R_32F, int(g.ld_first), g.stride_first, second, CUDA_R_32F,
                                 int(g.ld_second), g.stride_second, &zero, c, CUDA_R_32F, int(g.ld_c),
                                 g.stride_c, int(g.batches), compute, CUBLAS_GEMM_DEFAULT),
      key);
  return std::string("cublas:gemm_strided_batched ") + (s.col_major ? "col" : "row") +
         (impl_->allow_tf32 ? " tf32" : " fp32");
}

std::vector<double> GpuContext::time_ms(int warmup, int repeats, const std::function<void(int)>& run,
                                        const std::string& what) {
  for (int i = 0; i < warmup; ++i) run(i);
  std::vector<cudaEvent_t> events(size_t(repeats) * 2, nullptr);
  for (cudaEvent_t& e : events) SUPEROPT_CUDA(cudaEventCreate(&e), what);
  std::vector<double> times;
  try {
    for (int i = 0; i < repeats; ++i) {
      SUPEROPT_CUDA(cudaEventRecord(events[2 * i], impl_->stream), what);
      run(warmup + i);
      SUPEROPT_CUDA(cudaEventRecord(events[2 * i + 1], impl_->stream), what);
    }
    synchronize(what);
    for (int i = 0; i < repeats; ++i) {
      float ms = 0;
      SUPEROPT_CUDA(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]), what);
      times.push_back(ms);
    }
  } catch (...) {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    throw;
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  return times;
}

}  // namespace superopt::cuda
