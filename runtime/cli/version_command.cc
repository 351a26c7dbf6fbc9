// `superopt version`: what this build is made of and which CUDA devices it sees.
#include <mpi.h>
#include <xxhash.h>
#include <z3.h>

#include <boost/version.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/exec/cpu/cpu_executor.h"
#ifdef SUPEROPT_HAVE_CUDA
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/exec/executor.h"
#endif

namespace superopt {

int version_command(const std::vector<std::string>& args) {
  cli::po::options_description opts("options");
  opts.add_options()("json", "print one JSON object");
  auto vm = cli::parse("superopt version [--json]", opts, {}, args);
  if (!vm) return cli::kExitOk;

  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  std::string mpi(mpi_version, len);
  if (auto nl = mpi.find_first_of(",\n"); nl != std::string::npos) mpi.resize(nl);

  nlohmann::json j = {
      {"superopt", "0.1.0"},        {"z3", Z3_get_full_version()},   {"mpi", mpi},
      {"boost", BOOST_LIB_VERSION}, {"xxhash", XXH_versionNumber()},
  };
  // The CPU backend: oneDNN's version, the CPU and its cores (the most --threads).
  const CostTableInfo cpu = cpu_table_info(cpu_cores());
  j["onednn"] = cpu.onednn;
  j["cpu"] = {{"model", cpu.device}, {"cores", cpu_cores()}};
#ifdef SUPEROPT_HAVE_CUDA
  cuda::CudaInfo info = gpu_cuda_info();  // loads the GPU backend
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : info.devices)
    devices.push_back(
        {{"name", d.name},
         {"compute_capability", std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
         {"memory_bytes", d.memory_bytes}});
  j["cuda"] = {{"runtime", info.runtime_version},
               {"driver", info.driver_version},
               {"cudnn", info.cudnn_version},
               {"cublas", info.cublas_version},
               {"devices", devices}};
  if (info.devices.empty()) j["cuda"]["no_device_reason"] = info.no_device_reason;
#else
  j["cuda"] = nullptr;
#endif
  if (vm->count("json")) {
    std::cout << j.dump() << "\n";
    return cli::kExitOk;
  }
  for (const auto& [key, value] : j.items()) {
    if (key == "cuda") continue;
    std::cout << key << ": " << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
  }
#ifdef SUPEROPT_HAVE_CUDA
  std::cout << "cuda runtime: " << info.runtime_version << ", cudnn: " << info.cudnn_version
            << ", cublas: " << info.cublas_version << "\n";
  if (info.devices.empty())
    std::cout << "cuda devices: none: no CUDA device (" << info.no_device_reason << ")\n";
  for (const auto& d : info.devices)
    std::cout << "cuda device: " << d.name << " (sm_" << d.compute_major << d.compute_minor << ", "
              << d.memory_bytes / (1 << 20) << " MiB)\n";
#else
  std::cout << "cuda: not built (configure with the CUDA toolkit and -DSUPEROPT_CUDA=ON)\n";
#endif
  return cli::kExitOk;
}

}  // namespace superopt
