// The CPU backend behind the executor interface (runtime/exec/executor.h):
// whole graphs on oneDNN primitives, operator measurement into CPU cost
// tables, and the on-the-fly "cpu" cost model.
#pragma once

#include <memory>

#include "runtime/cost/cost_table.h"
#include "runtime/exec/executor.h"

namespace superopt {

// Sets oneDNN's thread count (options.threads; 0: every core). Throws a
// one-line Error for a negative count or one above the cores.
std::unique_ptr<Executor> make_cpu_executor(const ExecOptions& options);

// What a CPU cost table records: kind "cpu", the CPU model, the thread count,
// the oneDNN version, and the analytic profile "cpu" for signatures it lacks.
CostTableInfo cpu_table_info(int threads);

}  // namespace superopt
