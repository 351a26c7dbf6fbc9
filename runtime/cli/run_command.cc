// `superopt run MODEL --device cpu|cuda` (`--gpu` is `--device cuda`): whole-graph
// latency, an optional check against the CPU reference and the sum of
// per-operator costs, through the executor interface. The CUDA device exits 2
// with "no CUDA device (...)" where there is none.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/cli/run_report.h"
#include "runtime/cli/timing_report.h"
#include "runtime/core/evaluator.h"
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/exec/executor.h"
#include "runtime/models/model_zoo.h"

namespace superopt {
namespace {

namespace po = boost::program_options;

void print_text(const std::string& model, DeviceKind kind, const ExecOptions& options, const RunReport& r,
                double tolerance, bool check_failed) {
  const bool tf32 = kind == DeviceKind::cuda && options.allow_tf32;
  std::cout << "model: " << model << "\ndevice: " << r.device << " ("
            << (tf32 ? "TF32 allowed" : "strict FP32") << ")\nlaunches per run: " << r.launches << " ("
            << r.reorders << " format reorders; " << r.fused
            << " nodes fused into convolutions, matmuls and pools; " << r.concats_in_place
            << " concats written in place)"
            << "\nlatency: median " << cli::ms_text(r.median_ms) << " ms, p10 " << cli::ms_text(r.p10_ms)
            << " ms, p90 " << cli::ms_text(r.p90_ms) << " ms over " << r.repeats << " runs\n"
            << "spread: " << cli::spread_text(cli::run_spread(r)) << "\n";
  if (!r.thread_trial.empty()) {
    std::cout << "threads: " << r.threads << ", the faster in a trial (";
    for (size_t i = 0; i < r.thread_trial.size(); ++i)
      std::cout << (i ? ", " : "") << r.thread_trial[i].threads << ": "
                << cli::ms_text(r.thread_trial[i].median_ms) << " ms";
    std::cout << "; --threads N fixes the count)\n";
  }
  if (r.checked)
    std::cout << "check: " << (check_failed ? "FAILED" : "passed") << " (tolerance " << tolerance
              << ")\n  worst operator on its device inputs: " << r.node_error << "  " << r.worst_node
              << (r.nodes_not_judged ? "\n  operators beyond float's range, not judged: " + not_judged_text(r)
                                     : "")
              << "\n  worst folded weight: " << r.weight_error << "  " << r.worst_weight
              << "\n  worst output end to end: " << r.output_error << "  " << r.worst_output << "\n";
  if (r.op_summed)
    std::cout << "sum of operators measured alone: " << cli::ms_text(r.op_sum_ms)
              << " ms (end-to-end / sum = " << cli::ms_text(r.median_ms / r.op_sum_ms) << ")\n";
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  const std::string usage =
      "superopt run MODEL --device cpu|cuda [--threads N] [--repeat N] [--warmup N] [--check] [--op-sum] "
      "[--seed S] [--tf32] [--input-shape NAME=DIMS] [--json]";
  std::string model, device;
  std::vector<std::string> input_shapes;
  int threads = -1;  // not given: 1 or every core, whichever runs the graph faster
  bool gpu = false, check = false, op_sum = false, json = false;
  ExecOptions options;
  po::options_description desc("options");
  desc.add_options()("model", po::value(&model), "a graph file, an ONNX model or builtin:NAME")(
      "device", po::value(&device),
      "cpu (oneDNN) or cuda (device 0); required: the CPU reference is `superopt graph run`")(
      "gpu", po::bool_switch(&gpu), "the same as --device cuda")(
      "threads", cli::positive(&threads, "--threads"),
      "cpu: threads (default: 1 or every core, whichever runs this graph faster in a brief interleaved "
      "trial)")("repeat", cli::positive(&options.repeats, "--repeat"),
                "timed whole-graph runs (default 100)")(
      "warmup", cli::non_negative(&options.warmup, "--warmup"), "untimed runs first (default 10)")(
      "check", po::bool_switch(&check),
      "compare every operator, weight and output with the CPU reference in double (exit 1 if off)")(
      "op-sum", po::bool_switch(&op_sum), "also measure every operator alone and report the sum")(
      "seed", cli::seed(&options.seed), "seed of the random inputs and weights (default 1)")(
      "tf32", po::bool_switch(&options.allow_tf32),
      "cuda: allow TF32 tensor cores for float32 (default: strict FP32)")("json", po::bool_switch(&json),
                                                                          "print one JSON object");
  cli::add_model_options(desc, input_shapes);
  po::positional_options_description positional;
  positional.add("model", 1);
  if (!cli::parse(usage, desc, positional, args)) return cli::kExitOk;
  if (model.empty()) throw Error("run: missing MODEL (usage: " + usage + ")");
  if (gpu && !device.empty() && parse_device(device) != DeviceKind::cuda)
    throw Error("run: --gpu contradicts --device " + device);
  if (!gpu && device.empty())
    throw Error("run: --device cpu|cuda is required (the CPU reference runs with `superopt graph run`)");
  const DeviceKind kind = gpu ? DeviceKind::cuda : parse_device(device);
  if (threads != -1) options.threads = checked_threads(threads, "run");
  options.choose_threads = threads == -1 && kind == DeviceKind::cpu;  // the faster of 1 and every core
  if (kind == DeviceKind::cuda) require_gpu("run --device cuda");

  Graph g = load_model(model, cli::model_options(input_shapes));
  // The executors hold float32 tensors: refuse what cannot fit before they allocate.
  check_evaluation_memory(g, sizeof(float));
  std::unique_ptr<Executor> executor = make_executor(kind, options);
  RunReport r = executor->run_graph(g, check, op_sum);
  const double tolerance = run_check_tolerance(kind, options.allow_tf32);
  const bool check_failed = r.checked && !run_check_passed(r, tolerance);
  if (json) {
    std::cout << run_report_json(model, kind, options, r, tolerance).dump(2) << "\n";
  } else {
    print_text(model, kind, options, r, tolerance, check_failed);
  }
  std::cerr << cli::spread_warning(cli::run_spread(r), "run " + model);
  return check_failed ? cli::kExitFailure : cli::kExitOk;
}

}  // namespace superopt
