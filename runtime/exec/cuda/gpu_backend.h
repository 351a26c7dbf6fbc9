// The GPU backend as a table of entry points: libsuperopt_gpu.so exports it
// (superopt_gpu_backend), and superopt loads that library only when a GPU is
// asked for (../gpu_loader.cc), because loading cuBLAS alone took 0.3 s of
// every superopt start and every test process. Plain C++, no CUDA types.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "runtime/exec/cuda/cuda_device.h"
#include "runtime/exec/cuda/gpu_runtime.h"

namespace superopt {

struct GpuBackend {
  // Bumped whenever this table or a type it passes changes: a stale library is refused.
  static constexpr int kAbiVersion = 1;
  int abi_version = kAbiVersion;
  cuda::CudaInfo (*query)();
  CostTableInfo (*table_info)();
  GpuRunReport (*run_graph)(const Graph& g, const GpuOptions& options, bool check, bool op_sum);
  int (*measure)(std::span<const Graph> graphs, CostTable& table, const GpuOptions& options,
                 const std::function<void(const std::string& signature, const CostEntry&)>& on_measured);
  std::unique_ptr<GpuCostModel> (*make_cost_model)(const GpuOptions& options);
};

// The library's file name and the symbol it exports.
inline constexpr const char* kGpuBackendLibrary = "libsuperopt_gpu.so";
inline constexpr const char* kGpuBackendSymbol = "superopt_gpu_backend";

}  // namespace superopt

namespace superopt::cuda_backend {
// The entry points themselves (gpu_runtime.cc), as the table holds them. The
// loader has checked that device 0 is usable before it calls run_graph, measure
// or make_cost_model (gpu_loader.cc's require_gpu).
CostTableInfo gpu_table_info();
GpuRunReport gpu_run_graph(const Graph& g, const GpuOptions& options, bool check, bool op_sum);
int gpu_measure(std::span<const Graph> graphs, CostTable& table, const GpuOptions& options,
                const std::function<void(const std::string& signature, const CostEntry&)>& on_measured);
std::unique_ptr<GpuCostModel> make_gpu_cost_model(const GpuOptions& options);
}  // namespace superopt::cuda_backend

// Defined in libsuperopt_gpu.so (gpu_backend.cc).
extern "C" const superopt::GpuBackend* superopt_gpu_backend();
