// Device queries and a smoke test that the CUDA driver, cuBLAS and cuDNN work together.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/exec/cuda/cuda_device.h"

namespace superopt::cuda {
namespace {

__global__ void iota_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(i);
}

std::string cuda_error(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

// Why cudaGetDeviceCount found nothing, in words a user acts on. Without a
// driver the runtime says "CUDA driver version is insufficient", which reads as
// "update the driver" on a machine that simply has no GPU.
std::string no_device_reason(cudaError_t e, int driver_version, int runtime_version) {
  if (driver_version == 0) return "no NVIDIA driver is installed on this machine";
  if (e == cudaErrorNoDevice) return "the NVIDIA driver lists no device";
  if (e == cudaErrorInsufficientDriver)
    return "the NVIDIA driver supports CUDA " + std::to_string(driver_version / 1000) + "." +
           std::to_string(driver_version % 1000 / 10) + ", this superopt needs " +
           std::to_string(runtime_version / 1000) + "." + std::to_string(runtime_version % 1000 / 10);
  return cudaGetErrorString(e);
}

}  // namespace

CudaInfo query() {
  CudaInfo info;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);
  info.cudnn_version = cudnnGetVersion();
  cublasGetProperty(MAJOR_VERSION, &info.cublas_version);
  int major = info.cublas_version, minor = 0, patch = 0;
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  info.cublas_version = major * 10000 + minor * 100 + patch;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    info.no_device_reason = no_device_reason(e, info.driver_version, info.runtime_version);
    return info;
  }
  if (count == 0) info.no_device_reason = "the NVIDIA driver lists no device";
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    info.devices.push_back({prop.name, prop.major, prop.minor, prop.totalGlobalMem});
  }
  return info;
}

std::string self_test() {
  constexpr int n = 1000, m = 32;
  float* buf = nullptr;
  if (cudaError_t e = cudaMalloc(&buf, sizeof(float) * (n + 3 * m * m)); e != cudaSuccess)
    return cuda_error("cudaMalloc", e);
  std::string failure;
  iota_kernel<<<(n + 255) / 256, 256>>>(buf, n);
  std::vector<float> host(n);
  if (cudaError_t e = cudaMemcpy(host.data(), buf, sizeof(float) * n, cudaMemcpyDeviceToHost);
      e != cudaSuccess)
    failure = cuda_error("iota kernel", e);
  for (int i = 0; failure.empty() && i < n; ++i)
    if (host[i] != static_cast<float>(i)) failure = "iota kernel wrote a wrong value";

  // C = A * I with cuBLAS: the identity must give A back.
  if (failure.empty()) {
    std::vector<float> a(m * m), id(m * m, 0.f), c(m * m);
    for (int i = 0; i < m * m; ++i) a[i] = static_cast<float>(i % 17) - 8.f;
    for (int i = 0; i < m; ++i) id[i * m + i] = 1.f;
    float *da = buf + n, *di = da + m * m, *dc = di + m * m;
    cudaMemcpy(da, a.data(), sizeof(float) * m * m, cudaMemcpyHostToDevice);
    cudaMemcpy(di, id.data(), sizeof(float) * m * m, cudaMemcpyHostToDevice);
    cublasHandle_t h = nullptr;
    float one = 1.f, zero = 0.f;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
      failure = "cublasCreate failed";
    } else {
      if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, da, m, di, m, &zero, dc, m) !=
          CUBLAS_STATUS_SUCCESS)
        failure = "cublasSgemm failed";
      cublasDestroy(h);
    }
    if (failure.empty()) {
      cudaMemcpy(c.data(), dc, sizeof(float) * m * m, cudaMemcpyDeviceToHost);
      for (int i = 0; failure.empty() && i < m * m; ++i)
        if (std::fabs(c[i] - a[i]) > 1e-5f) failure = "cublasSgemm gave a wrong product";
    }
  }
  if (failure.empty()) {
    cudnnHandle_t h = nullptr;
    if (cudnnStatus_t s = cudnnCreate(&h); s != CUDNN_STATUS_SUCCESS)
      failure = std::string("cudnnCreate: ") + cudnnGetErrorString(s);
    else
      cudnnDestroy(h);
  }
  cudaFree(buf);
  return failure;
}

}  // namespace superopt::cuda
