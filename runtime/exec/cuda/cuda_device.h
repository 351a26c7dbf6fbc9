// What CUDA, cuDNN and cuBLAS report about this machine; plain C++, no CUDA headers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace superopt::cuda {

struct DeviceInfo {
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  size_t memory_bytes = 0;
};

struct CudaInfo {
  int runtime_version = 0;  // e.g. 13000
  int driver_version = 0;   // 0 when no driver is installed
  size_t cudnn_version = 0;
  int cublas_version = 0;
  std::vector<DeviceInfo> devices;
  std::string no_device_reason;  // why devices is empty
};

CudaInfo query();

// Runs a kernel, a cuBLAS SGEMM and a cuDNN handle creation on device 0 and
// checks the results. Returns an empty string on success, else what failed.
std::string self_test();

}  // namespace superopt::cuda
