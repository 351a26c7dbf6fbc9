// The one symbol libsuperopt_gpu.so exports: its table of entry points (gpu_backend.h).
#include "runtime/exec/cuda/gpu_backend.h"

extern "C" __attribute__((visibility("default"))) const superopt::GpuBackend* superopt_gpu_backend() {
  using namespace superopt;
  static const GpuBackend backend{GpuBackend::kAbiVersion,      cuda::query,
                                  cuda_backend::gpu_table_info, cuda_backend::gpu_run_graph,
                                  cuda_backend::gpu_measure,    cuda_backend::make_gpu_cost_model};
  return &backend;
}
