// `superopt measure MODEL...`: operator costs into an HDF5 cost table. Needs a
// CUDA device and exits 2 with "no CUDA device (...)" without one.
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/exec/cuda/gpu_runtime.h"
#include "runtime/models/model_zoo.h"

namespace superopt {
namespace {

namespace po = boost::program_options;

// "data/costs/h100.h5" for "NVIDIA H100 80GB HBM3": the first word after the vendor, lower-case.
std::string default_table_path(const std::string& device) {
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

}  // namespace

int measure_command(const std::vector<std::string>& args) {
  const std::string usage =
      "superopt measure MODEL... [--out FILE] [--repeat N] [--warmup N] [--tf32] [--input-shape NAME=DIMS]";
  std::vector<std::string> models, input_shapes;
  std::string out;
  GpuOptions options;
  options.repeats = 50;
  po::options_description desc("options");
  desc.add_options()("model", po::value(&models), "graph files, ONNX models or builtin:NAME models")(
      "out", po::value(&out), "cost table to append to (default data/costs/DEVICE.h5)")(
      "repeat", po::value(&options.repeats), "timed runs per operator; the median is stored (default 50)")(
      "warmup", po::value(&options.warmup), "untimed runs first (default 10)")(
      "tf32", po::bool_switch(&options.allow_tf32),
      "allow TF32 tensor cores for float32 (default: strict FP32)");
  cli::add_model_options(desc, input_shapes);
  po::positional_options_description positional;
  positional.add("model", -1);
  if (!cli::parse(usage, desc, positional, args)) return cli::kExitOk;
  if (models.empty()) throw Error("measure: missing MODEL (usage: " + usage + ")");
  cli::require_positive(options.repeats, "--repeat");
  require_gpu("measure");

  std::vector<Graph> graphs;
  for (const std::string& m : models) graphs.push_back(load_model(m, cli::model_options(input_shapes)));
  CostTableInfo info = gpu_table_info();
  if (out.empty()) out = default_table_path(info.device);
  CostTable table;
  if (std::filesystem::exists(out)) {
    table = CostTable::read(out);
    if (table.info.device != info.device)
      throw Error("measure: " + out + " holds costs of '" + table.info.device + "', this device is '" +
                  info.device + "'");
  } else {
    table.info = info;
  }
  const size_t before = table.size();
  int measured = gpu_measure(graphs, table, options, [](const std::string& signature, const CostEntry& e) {
    std::cout << cli::ms_text(e.cost_ms) << " ms  " << e.algorithm << "  " << signature << "\n" << std::flush;
  });
  if (std::filesystem::path(out).has_parent_path())
    std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  table.write(out);
  std::cout << "measured " << measured << " new signatures (" << before << " already in the table) on "
            << info.device << "; " << table.size() << " entries in " << out << "\n";
  return cli::kExitOk;
}

}  // namespace superopt
