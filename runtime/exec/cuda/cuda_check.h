// Status checks for CUDA, cuDNN and cuBLAS calls (CUDA sources only): a failed
// call throws superopt::Error naming the call and the operator it served.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

#include "runtime/core/error.h"

namespace superopt::cuda {

inline void check_cuda(cudaError_t e, const char* call, const std::string& what) {
  if (e != cudaSuccess) throw Error(what + ": " + call + ": " + cudaGetErrorString(e));
}
inline void check_cudnn(cudnnStatus_t s, const char* call, const std::string& what) {
  if (s != CUDNN_STATUS_SUCCESS) throw Error(what + ": " + call + ": " + cudnnGetErrorString(s));
}
inline void check_cublas(cublasStatus_t s, const char* call, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(what + ": " + call + ": " + cublasGetStatusString(s));
}

}  // namespace superopt::cuda

// The call's text goes into the message, so the operator and the failing call are both named.
#define SUPEROPT_CUDA(call, what) ::superopt::cuda::check_cuda((call), #call, (what))
#define SUPEROPT_CUDNN(call, what) ::superopt::cuda::check_cudnn((call), #call, (what))
#define SUPEROPT_CUBLAS(call, what) ::superopt::cuda::check_cublas((call), #call, (what))
