// `superopt run MODEL --gpu`: whole-graph latency, an optional check against the
// CPU reference and the sum of per-operator costs. Needs a CUDA device and exits
// 2 with "no CUDA device (...)" without one.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/models/model_zoo.h"

namespace superopt {
namespace {

namespace po = boost::program_options;

// Worst relative error `run --check` accepts for one operator on its GPU inputs
// and for a folded weight: FP32 accumulation over the models' longest
// reductions; TF32 keeps only 10 mantissa bits. The end-to-end error of the
// outputs is reported, not judged: with random weights activations grow large
// and saturated softmaxes can turn FP32 rounding into large output changes.
constexpr double kFp32Tolerance = 1e-3;
constexpr double kTf32Tolerance = 2e-2;

}  // namespace

int run_command(const std::vector<std::string>& args) {
  const std::string usage =
      "superopt run MODEL --gpu [--repeat N] [--warmup N] [--check] [--op-sum] [--seed S] [--tf32] "
      "[--input-shape NAME=DIMS] [--json]";
  std::string model;
  std::vector<std::string> input_shapes;
  bool gpu = false, check = false, op_sum = false, json = false;
  GpuOptions options;
  po::options_description desc("options");
  desc.add_options()("model", po::value(&model), "a graph file, an ONNX model or builtin:NAME")(
      "gpu", po::bool_switch(&gpu),
      "run on CUDA device 0 (required: the CPU reference is `superopt graph run`)")(
      "repeat", po::value(&options.repeats), "timed whole-graph runs (default 100)")(
      "warmup", po::value(&options.warmup), "untimed runs first (default 10)")(
      "check", po::bool_switch(&check),
      "compare every operator, weight and output with the CPU reference in double (exit 1 if off)")(
      "op-sum", po::bool_switch(&op_sum), "also measure every operator alone and report the sum")(
      "seed", po::value(&options.seed), "seed of the random inputs and weights (default 1)")(
      "tf32", po::bool_switch(&options.allow_tf32),
      "allow TF32 tensor cores for float32 (default: strict FP32)")("json", po::bool_switch(&json),
                                                                    "print one JSON object");
  cli::add_model_options(desc, input_shapes);
  po::positional_options_description positional;
  positional.add("model", 1);
  if (!cli::parse(usage, desc, positional, args)) return cli::kExitOk;
  if (model.empty()) throw Error("run: missing MODEL (usage: " + usage + ")");
  if (!gpu) throw Error("run: --gpu is required (the CPU reference runs with `superopt graph run`)");
  cli::require_positive(options.repeats, "--repeat");
  require_gpu("run --gpu");

  Graph g = load_model(model, cli::model_options(input_shapes));
  GpuRunReport r = gpu_run_graph(g, options, check, op_sum);
  const double tolerance = options.allow_tf32 ? kTf32Tolerance : kFp32Tolerance;
  const bool check_failed = r.checked && !(r.node_error <= tolerance && r.weight_error <= tolerance);
  if (json) {
    nlohmann::ordered_json j = {
        {"model", model},         {"device", r.device},   {"precision", options.allow_tf32 ? "tf32" : "fp32"},
        {"launches", r.launches}, {"repeats", r.repeats}, {"median_ms", r.median_ms},
        {"p10_ms", r.p10_ms},     {"p90_ms", r.p90_ms}};
    if (r.checked) {
      j["check"] = {{"passed", !check_failed},        {"tolerance", tolerance},
                    {"node_error", r.node_error},     {"worst_node", r.worst_node},
                    {"weight_error", r.weight_error}, {"worst_weight", r.worst_weight},
                    {"output_error", r.output_error}, {"worst_output", r.worst_output}};
    }
    if (r.op_summed) j["op_sum_ms"] = r.op_sum_ms;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "model: " << model << "\ndevice: " << r.device << " ("
              << (options.allow_tf32 ? "TF32 allowed" : "strict FP32")
              << ")\nlaunches per run: " << r.launches << "\nlatency: median " << cli::ms_text(r.median_ms)
              << " ms, p10 " << cli::ms_text(r.p10_ms) << " ms, p90 " << cli::ms_text(r.p90_ms) << " ms over "
              << r.repeats << " runs\n";
    if (r.checked)
      std::cout << "check: " << (check_failed ? "FAILED" : "passed") << " (tolerance " << tolerance
                << ")\n  worst operator on its GPU inputs: " << r.node_error << "  " << r.worst_node
                << "\n  worst folded weight: " << r.weight_error << "  " << r.worst_weight
                << "\n  worst output end to end: " << r.output_error << "  " << r.worst_output << "\n";
    if (r.op_summed)
      std::cout << "sum of operators measured alone: " << cli::ms_text(r.op_sum_ms)
                << " ms (end-to-end / sum = " << cli::ms_text(r.median_ms / r.op_sum_ms) << ")\n";
  }
  return check_failed ? cli::kExitFailure : cli::kExitOk;
}

}  // namespace superopt
