// gpu_runtime.h's entry points in a CUDA build: each loads the GPU backend
// (libsuperopt_gpu.so: CUDA, cuDNN, cuBLAS and our kernels) the first time a
// GPU is asked for, so that nothing else pays for loading those libraries
// (cuBLAS's initialisation alone took 0.3 s of every superopt start).
#include <dlfcn.h>

#include <filesystem>
#include <vector>

#include "runtime/exec/cuda/gpu_backend.h"

namespace superopt {
namespace {

namespace fs = std::filesystem;

// The folder of the object this code is linked into (superopt, a test, the Python extension).
fs::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code error;
  fs::path self = fs::canonical(info.dli_fname, error);
  if (error) self = fs::canonical("/proc/self/exe", error);
  return error ? fs::path() : self.parent_path();
}

// Where the library may be, first found first: $SUPEROPT_GPU_BACKEND; beside
// the binary (the build tree's build/, a GPU bundle's bin/); the install's
// lib/superopt/ under the nearest folder above that has one (the prefix: one
// level above bin/superopt, four above the Python extension in
// lib/python3/dist-packages/superopt/); the build tree this was built in; the
// loader's own search (LD_LIBRARY_PATH).
std::vector<std::string> candidates() {
  constexpr int kLevelsUp = 5;  // prefix/local/lib/python3.X/site-packages/superopt at most
  std::vector<std::string> paths;
  if (const char* given = std::getenv("SUPEROPT_GPU_BACKEND"); given && *given) return {given};
  if (const fs::path here = own_folder(); !here.empty()) {
    paths.push_back((here / kGpuBackendLibrary).string());
    fs::path above = here;
    for (int level = 0; level < kLevelsUp && above.has_relative_path(); ++level) {
      above = above.parent_path();
      paths.push_back((above / SUPEROPT_GPU_BACKEND_INSTALL_DIR / kGpuBackendLibrary).string());
    }
  }
  paths.push_back(SUPEROPT_GPU_BACKEND_BUILD_PATH);
  paths.push_back(kGpuBackendLibrary);
  return paths;
}

struct Loaded {
  const GpuBackend* backend = nullptr;
  std::string failure;  // why not, when backend is null
};

Loaded load() {
  std::string failures;
  for (const std::string& path : candidates()) {
    const bool bare = path.find('/') == std::string::npos;
    if (!bare && !fs::exists(path)) {
      if (std::getenv("SUPEROPT_GPU_BACKEND")) failures = path + ": no such file";  // the only candidate then
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      failures += std::string(failures.empty() ? "" : "; ") + (why ? why : path + ": cannot be loaded");
      continue;
    }
    auto entry = reinterpret_cast<const GpuBackend* (*)()>(dlsym(handle, kGpuBackendSymbol));
    const GpuBackend* backend = entry ? entry() : nullptr;
    if (backend == nullptr || backend->abi_version != GpuBackend::kAbiVersion) {
      failures += (failures.empty() ? "" : "; ") + path + " is from another build of superopt";
      continue;
    }
    return {backend, ""};
  }
  return {nullptr, "the GPU backend " + std::string(kGpuBackendLibrary) + " could not be loaded" +
                       (failures.empty() ? "" : ": " + failures) + " (SUPEROPT_GPU_BACKEND names it)"};
}

// Loaded once per process; a library that failed stays failed.
const Loaded& loaded() {
  static const Loaded once = load();
  return once;
}

const GpuBackend& backend(std::string_view what) {
  const Loaded& l = loaded();
  if (l.backend == nullptr) throw Error(std::string(what) + ": no CUDA device (" + l.failure + ")");
  return *l.backend;
}

// The backend, for an entry point that needs device 0 (require_gpu: the library loaded and a device found).
const GpuBackend& device_backend(std::string_view what) {
  require_gpu(what);
  return *loaded().backend;
}

}  // namespace

cuda::CudaInfo gpu_cuda_info() {
  const Loaded& l = loaded();
  if (l.backend != nullptr) return l.backend->query();
  cuda::CudaInfo info;
  info.no_device_reason = l.failure;
  return info;
}

std::string gpu_unavailable_reason() {
  const cuda::CudaInfo info = gpu_cuda_info();
  if (info.devices.empty()) return info.no_device_reason.empty() ? "no device found" : info.no_device_reason;
  return "";
}

void require_gpu(std::string_view what) {
  const std::string reason = gpu_unavailable_reason();
  if (!reason.empty()) throw Error(std::string(what) + ": no CUDA device (" + reason + ")");
}

CostTableInfo gpu_table_info() {
  return backend("gpu").table_info();
}

GpuRunReport gpu_run_graph(const Graph& g, const GpuOptions& options, bool check, bool op_sum) {
  return device_backend("run --gpu").run_graph(g, options, check, op_sum);
}

int gpu_measure(std::span<const Graph> graphs, CostTable& table, const GpuOptions& options,
                const std::function<void(const std::string&, const CostEntry&)>& on_measured) {
  return device_backend("measure").measure(graphs, table, options, on_measured);
}

std::unique_ptr<GpuCostModel> make_gpu_cost_model(const GpuOptions& options) {
  return device_backend("cost model gpu").make_cost_model(options);
}

}  // namespace superopt
