// `superopt measure MODEL... [--device cuda|cpu]`: operator costs into an HDF5
// cost table through the executor interface. The CUDA device (the default)
// exits 2 with "no CUDA device (...)" where there is none; an existing table of
// another device kind, CPU, thread count or oneDNN version is refused.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/cli/timing_report.h"
#include "runtime/core/evaluator.h"
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/exec/executor.h"
#include "runtime/models/model_zoo.h"

namespace superopt {
namespace {

namespace po = boost::program_options;

// "data/costs/h100.h5" for "NVIDIA H100 80GB HBM3": the first word after the
// vendor, lower-case; "data/costs/cpu-amd-2t.h5" for 2 threads of an AMD CPU.
std::string default_table_path(const CostTableInfo& info) {
  const std::string& device = info.device;
  if (info.device_kind == "cpu") {
    std::string vendor;
    for (char c : device) {
      if (!std::isalnum(static_cast<unsigned char>(c))) break;
      vendor += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return "data/costs/cpu-" + (vendor.empty() ? std::string("unknown") : vendor) + "-" +
           std::to_string(info.threads) + "t.h5";
  }
  std::string word;
  for (char c : device.starts_with("NVIDIA ") ? device.substr(7) : device) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      if (!word.empty()) break;
      continue;
    }
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return "data/costs/" + (word.empty() ? std::string("gpu") : word) + ".h5";
}

// Appending to a table measured elsewhere would mix two machines' costs.
void refuse_foreign_table(const std::string& path, const CostTableInfo& table, const CostTableInfo& here) {
  if (table.device_kind != here.device_kind)
    throw Error("measure: " + path + " is a " + table.device_kind + " cost table, this device is " +
                here.device_kind);
  if (table.device != here.device)
    throw Error("measure: " + path + " holds costs of '" + table.device + "', this device is '" +
                here.device + "'");
  if (table.threads != here.threads || table.onednn != here.onednn)
    throw Error("measure: " + path + " was measured with " + std::to_string(table.threads) +
                " threads and oneDNN " + table.onednn + ", this run uses " + std::to_string(here.threads) +
                " and " + here.onednn);
}

// The spread of the signatures measured now: a line on stdout, and a warning
// on stderr when a quarter of them or more spread beyond kLargeRelativeSpread.
void report_spread(const std::vector<double>& relative_spreads) {
  if (relative_spreads.empty()) return;
  const int large = int(std::count_if(relative_spreads.begin(), relative_spreads.end(),
                                      [](double r) { return r > kLargeRelativeSpread; }));
  std::cout << "spread: relative IQR median " << cli::percent_text(median_ms(relative_spreads)) << ", worst "
            << cli::percent_text(*std::max_element(relative_spreads.begin(), relative_spreads.end())) << "; "
            << large << " of " << relative_spreads.size() << " signatures above "
            << cli::percent_text(kLargeRelativeSpread) << "\n"
            << std::flush;
  if (4 * large >= int(relative_spreads.size()))
    std::cerr << "warning: measure: " << large << " of " << relative_spreads.size()
              << " signatures spread by more than " << cli::percent_text(kLargeRelativeSpread)
              << " of their median: the machine is busy; these costs may not hold on a quiet one\n";
}

}  // namespace

int measure_command(const std::vector<std::string>& args) {
  const std::string usage =
      "superopt measure MODEL... [--device cuda|cpu] [--threads N] [--out FILE] [--repeat N] [--warmup N] "
      "[--tf32] [--input-shape NAME=DIMS]";
  std::vector<std::string> models, input_shapes;
  std::string out, device = "cuda";
  int threads = -1;  // not given: every core
  ExecOptions options;
  options.repeats = 50;
  po::options_description desc("options");
  desc.add_options()("model", po::value(&models), "graph files, ONNX models or builtin:NAME models")(
      "device", po::value(&device), "cuda (device 0, the default) or cpu (oneDNN)")(
      "threads", cli::positive(&threads, "--threads"), "cpu: threads (default: every core)")(
      "out", po::value(&out), "cost table to append to (default data/costs/DEVICE.h5)")(
      "repeat", cli::positive(&options.repeats, "--repeat"),
      "timed runs per operator; the median is stored (default 50)")(
      "warmup", cli::non_negative(&options.warmup, "--warmup"), "untimed runs first (default 10)")(
      "tf32", po::bool_switch(&options.allow_tf32),
      "cuda: allow TF32 tensor cores for float32 (default: strict FP32)");
  cli::add_model_options(desc, input_shapes);
  po::positional_options_description positional;
  positional.add("model", -1);
  if (!cli::parse(usage, desc, positional, args)) return cli::kExitOk;
  if (models.empty()) throw Error("measure: missing MODEL (usage: " + usage + ")");
  const DeviceKind kind = parse_device(device);
  if (threads != -1) options.threads = checked_threads(threads, "measure");
  if (kind == DeviceKind::cuda) require_gpu("measure");

  std::vector<Graph> graphs;
  for (const std::string& m : models) {
    graphs.push_back(load_model(m, cli::model_options(input_shapes)));
    // float32 tensors, as the graph would hold them run whole: refused before any is allocated.
    check_evaluation_memory(graphs.back(), sizeof(float));
  }
  std::unique_ptr<Executor> executor = make_executor(kind, options);
  const CostTableInfo info = executor->table_info();
  if (out.empty()) out = default_table_path(info);
  CostTable table;
  if (std::filesystem::exists(out)) {
    table = CostTable::read(out);
    refuse_foreign_table(out, table.info, info);
  } else {
    table.info = info;
  }
  const size_t before = table.size();
  std::vector<double> relative_spreads;  // of the signatures measured now
  int measured = executor->measure(graphs, table, [&](const std::string& signature, const CostEntry& e) {
    const double relative = e.cost_ms > 0 && e.spread_recorded() ? e.spread_ms / e.cost_ms : 0;
    relative_spreads.push_back(relative);
    std::cout << cli::ms_text(e.cost_ms) << " ms  IQR " << cli::percent_text(relative) << "  " << e.algorithm
              << "  " << signature << "\n"
              << std::flush;
  });
  if (std::filesystem::path(out).has_parent_path())
    std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  table.write(out);
  report_spread(relative_spreads);  // before the last line, which scripts read (gpu.sh)
  std::cout << "measured " << measured << " new signatures (" << before << " already in the table) on "
            << info.device << "; " << table.size() << " entries in " << out << "\n";
  return cli::kExitOk;
}

}  // namespace superopt
