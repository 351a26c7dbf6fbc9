// `superopt enumerate`: options, MPI start-up, and the summary rank 0 prints.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "enum/enumerate.h"
#include "runtime/cli/command_line.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/data_dir.h"
#include "runtime/mpi/mpi_world.h"

namespace superopt::enumeration {
namespace {

// o holds the numeric flags already (numeric_flags.h stores them).
EnumerateOptions read_options(const cli::po::variables_map& vm, const std::vector<std::string>& args,
                              EnumerateOptions o) {
  o.opset_path = vm["opset"].as<std::string>();
  o.out_path = vm["out"].as<std::string>();
  o.force = vm.count("force") > 0;
  if (vm.count("checkpoint")) o.checkpoint_dir = vm["checkpoint"].as<std::string>();
  o.arguments = "superopt enumerate";
  for (const std::string& a : args) o.arguments += " " + a;
  return o;
}

nlohmann::json summary_json(const EnumerateSummary& s, const EnumerateOptions& o) {
  nlohmann::json j = {{"out", o.out_path},
                      {"max_ops", o.max_ops},
                      {"ranks", s.ranks},
                      {"graphs", s.graphs},
                      {"resumed_graphs", s.resumed_graphs},
                      {"records", s.records},
                      {"renamings", s.renamings},
                      {"classes", s.classes},
                      {"bytes_per_graph", s.graphs ? double(s.record_bytes) / double(s.graphs) : 0.0},
                      {"failed_second_test", s.failed_second_test},
                      {"failed_float_test", s.failed_float_test},
                      {"seconds", s.seconds},
                      {"peak_rss_bytes", s.peak_rss_bytes}};
  for (const auto& [stage, count] : s.stages) j[stage] = count;
  j["rules"] = s.stages.empty() ? 0 : s.stages.back().second;
  return j;
}

void print_summary(const EnumerateSummary& s, const EnumerateOptions& o) {
  std::printf("enumerated %llu graphs with up to %d operators on %d rank%s in %.2f s\n",
              static_cast<unsigned long long>(s.graphs), o.max_ops, s.ranks, s.ranks == 1 ? "" : "s",
              s.seconds);
  if (s.resumed_graphs)
    std::printf("resumed from the checkpoint: %llu of those graphs\n",
                static_cast<unsigned long long>(s.resumed_graphs));
  std::printf("records (aligned graphs):   %llu\n", static_cast<unsigned long long>(s.records));
  std::printf("renamings evaluated:        %llu\n", static_cast<unsigned long long>(s.renamings));
  std::printf("classes (up to renaming):   %llu\n", static_cast<unsigned long long>(s.classes));
  std::printf("bytes per stored graph:     %.1f\n",
              s.graphs ? double(s.record_bytes) / double(s.graphs) : 0.0);
  for (const auto& [stage, count] : s.stages)
    std::printf("%-27s %lld\n", (stage + ":").c_str(), (long long)count);
  std::printf("failed second evaluation:   %lld\n", static_cast<long long>(s.failed_second_test));
  std::printf("failed float test:          %lld\n", static_cast<long long>(s.failed_float_test));
  std::printf("peak memory (largest rank): %.1f MiB\n", s.peak_rss_bytes / 1048576.0);
  std::printf("wrote %s\n", o.out_path.c_str());
}

}  // namespace
}  // namespace superopt::enumeration

namespace superopt {

int enumerate_command(const std::vector<std::string>& args) {
  EnumerateOptions numbers;
  cli::po::options_description opts("options");
  opts.add_options()("max-ops", cli::number(&numbers.max_ops, "--max-ops", 1, 8)->required(),
                     "largest graphs to enumerate, in operators (1 to 8)")(
      "opset", cli::po::value<std::string>()->default_value(data_path("opsets/taso.json")),
      "operator set file")("out", cli::po::value<std::string>()->default_value("rules.h5"),
                           "rule database to write")("seed", cli::seed(&numbers.seed),
                                                     "seed of the random inputs (default 1)")(
      "checkpoint", cli::po::value<std::string>(),
      "directory for checkpoints: a killed run started again resumes")(
      "force", "replace an existing database")("json", "print the summary as one JSON object");
  cli::add_memory_option(opts);
  // MPI first: under mpirun every rank parses, fails or succeeds alike, and only rank 0 speaks.
  MpiWorld world;
  try {
    auto vm = cli::parse(
        "superopt enumerate --max-ops N [--opset FILE] [--out FILE] [--checkpoint DIR] [--seed S] [--force] "
        "[--json]",
        opts, {}, args, world.rank() == 0);
    if (!vm) return cli::kExitOk;
    EnumerateOptions o = enumeration::read_options(*vm, args, numbers);
    EnumerateSummary s = enumerate_rules(o);
    if (world.rank() != 0) return cli::kExitOk;
    if (vm->count("json"))
      std::cout << enumeration::summary_json(s, o).dump() << "\n";
    else
      enumeration::print_summary(s, o);
    return cli::kExitOk;
  } catch (const Error& e) {
    if (world.rank() == 0) std::cerr << "superopt enumerate: " << e.what() << "\n";
    return cli::kExitUsage;
  }
}

}  // namespace superopt
