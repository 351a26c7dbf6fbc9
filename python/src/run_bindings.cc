// superopt.run's compiled half: a graph timed on a device through the executor
// interface, as `superopt run` times it, reporting what `run --json` prints.
#include "python/src/bindings.h"
#include "runtime/cli/run_report.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/exec/executor.h"

namespace superopt::python {
namespace {

namespace py = pybind11;

std::string run_graph(const GraphHandle& h, const std::string& device, int threads, int repeats, int warmup,
                      bool check, bool op_sum, uint64_t seed) {
  const DeviceKind kind = parse_device(device);
  ExecOptions options;
  if (threads != 0) options.threads = checked_threads(threads, "run");
  options.choose_threads = threads == 0 && kind == DeviceKind::cpu;  // as `superopt run` without --threads
  if (repeats < 1) throw Error("run: repeat must be at least 1, got " + std::to_string(repeats));
  if (warmup < 0) throw Error("run: warmup must be at least 0, got " + std::to_string(warmup));
  options.repeats = repeats;
  options.warmup = warmup;
  options.seed = seed;
  if (kind == DeviceKind::cuda) require_gpu("run --device cuda");
  // The executors hold float32 tensors: refuse what cannot fit before they allocate.
  check_evaluation_memory(h.graph, sizeof(float));
  RunReport r;
  {
    py::gil_scoped_release release;
    r = make_executor(kind, options)->run_graph(h.graph, check, op_sum);
  }
  return run_report_json(h.source, kind, options, r, run_check_tolerance(kind, options.allow_tf32)).dump();
}

}  // namespace

void bind_run(py::module_& m) {
  m.def("run", &run_graph, py::arg("graph"), py::arg("device"), py::arg("threads"), py::arg("repeat"),
        py::arg("warmup"), py::arg("check"), py::arg("op_sum"), py::arg("seed"));
}

}  // namespace superopt::python
