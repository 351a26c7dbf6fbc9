// The executor interface: one device (the CPU through oneDNN, a CUDA GPU) that
// runs whole graphs, times them, checks them against the CPU reference and
// measures operators into cost tables. `run`, `measure` and the live cost
// models ("cpu", "gpu") reach every backend through it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/cost/cost_model.h"
#include "runtime/cost/cost_table.h"

namespace superopt {

enum class DeviceKind { cpu, cuda };

// "cpu" or "cuda" ("gpu" is accepted for cuda); one-line Error otherwise.
DeviceKind parse_device(std::string_view name);
std::string_view device_kind_name(DeviceKind kind);  // "cpu", "cuda"

struct ExecOptions {
  int warmup = 10;
  int repeats = 100;
  uint64_t seed = 1;        // of the random inputs and weights (as `graph run --seed`)
  bool allow_tf32 = false;  // cuda only: FP32 unless asked
  int threads = 0;          // cpu only: 0 = every core
  // cpu only (run's default): time 1 thread against every core on the graph
  // first, briefly and interleaved, and run the faster (ignores `threads`).
  bool choose_threads = false;
};

// One thread count timed by ExecOptions::choose_threads.
struct ThreadTrial {
  int threads = 0;
  double median_ms = 0;
};

struct RunReport {
  std::string device;
  int launches = 0;          // kernels or primitives per run (views and folded weights excluded)
  int reorders = 0;          // of those, format conversions between operators (cpu; 0 on cuda)
  int fused = 0;             // nodes run inside a convolution, matmul or pooling primitive (cpu; 0 on cuda)
  int concats_in_place = 0;  // concats whose producers write their buffer (cpu; 0 on cuda)
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  // The spread of the timed runs: quartiles and extremes (0 where not measured).
  double p25_ms = 0, p75_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
  // check: relative errors max|got - ref| / max|ref| against the CPU reference in double.
  bool checked = false;
  double output_error = 0;  // worst graph output, end to end (errors compound through the graph)
  std::string worst_output;
  double node_error = 0;  // worst operator, on the device's own inputs (what the kernels get wrong)
  std::string worst_node;
  int nodes_not_judged = 0;             // operators whose values exceed float's range (not a kernel error)
  std::vector<std::string> not_judged;  // their labels, in graph order
  double weight_error = 0;              // worst folded weight as the device holds it
  std::string worst_weight;
  // op_sum: every operator node's cost measured alone (equal signatures once), summed.
  bool op_summed = false;
  double op_sum_ms = 0;
  // choose_threads: each count tried (empty on one core or when not asked).
  std::vector<ThreadTrial> thread_trial;
  int threads = 0;  // cpu: the threads the timed runs used
};

// A cost model that measures each new signature on the device and caches it;
// measured() is the cache as a cost table.
class MeasuredCostModel : public CostModel {
 public:
  virtual const CostTable& measured() const = 0;
  // Starts the cache from a table measured on this device (its signatures are
  // not measured again). Throws Error where the model cannot take one.
  virtual void preload(const CostTable& table) = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual DeviceKind kind() const = 0;
  // What a cost table records of this device (kind, model, threads, library versions).
  virtual CostTableInfo table_info() const = 0;
  // Warm-up, then options.repeats timed whole-graph runs; optionally the check and the op sum.
  virtual RunReport run_graph(const Graph& g, bool check, bool op_sum) = 0;
  // Measures every distinct op_signature of the graphs' running operators that
  // `table` lacks and inserts it; calls on_measured after each; returns the count.
  virtual int measure(std::span<const Graph> graphs, CostTable& table,
                      const std::function<void(const std::string&, const CostEntry&)>& on_measured) = 0;
  // The live cost model on this device (fewer repeats than `measure`).
  virtual std::unique_ptr<MeasuredCostModel> cost_model() = 0;
  // Times the graphs end to end, interleaved so that a machine getting busier
  // or quieter touches all alike: `rounds` rounds, each running every graph in
  // turn (one untimed run, then options.repeats timed ones, of which the
  // median counts), each round starting one graph later (interleaved_turn), so
  // that no graph always runs first after another's buffers filled the caches.
  // Returns each graph's round medians, in the order given.
  // This default loads a graph anew for every round; the CPU loads each once.
  virtual std::vector<std::vector<double>> time_interleaved(std::span<const Graph> graphs, int rounds);
};

// The graph timed `i`-th in round `round` of n: each round starts one later.
inline size_t interleaved_turn(int round, size_t i, size_t n) {
  return (static_cast<size_t>(round) + i) % n;
}

// `rounds` rounds over n candidates in interleaved_turn's order; time(k) times
// candidate k once and returns its median. Each candidate's round medians, in
// the candidates' order.
std::vector<std::vector<double>> interleaved_medians(size_t n, int rounds,
                                                     const std::function<double(size_t)>& time);

// Throws a one-line Error when the device cannot be used ("no CUDA device (...)",
// a thread count of 0 or above the cores).
std::unique_ptr<Executor> make_executor(DeviceKind kind, const ExecOptions& options);

// The cores this process may run on (the CPU backend's most threads).
int cpu_cores();

// A thread count given on the command line: returned when between 1 and
// cpu_cores(), else a one-line Error naming `command`.
int checked_threads(int threads, std::string_view command);

// Why a cost table measured elsewhere may not hold for this machine: "" when
// `table` was measured on this device kind, model, thread count and library
// versions; otherwise one line naming what differs. Only CPU tables are compared
// (a GPU table is judged on its GPU).
std::string table_provenance_mismatch(const CostTableInfo& table);

}  // namespace superopt
