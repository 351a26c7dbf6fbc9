// `superopt enumerate`: options, MPI start-up, and the summary rank 0 prints.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

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
  if (vm.count("memory-per-rank"))
    o.memory_per_rank_bytes = cli::parse_bytes(vm["memory-per-rank"].as<std::string>(), "--memory-per-rank");
  o.representatives_only = vm.count("representatives-only") > 0;
  o.two_pass = vm.count("two-pass") > 0;
  if (vm.count("scratch")) o.scratch_dir = vm["scratch"].as<std::string>();
  if (vm.count("scratch") && !vm.count("memory-per-rank"))
    throw Error("--scratch needs --memory-per-rank (without a bound nothing is spilled)");
  if (vm.count("sample-units")) {
    o.sample_fraction = vm["sample-units"].as<double>();
    if (!(o.sample_fraction > 0 && o.sample_fraction <= 1))
      throw Error("--sample-units must be in (0, 1], got " +
                  (std::ostringstream() << o.sample_fraction).str());
  }
  o.arguments = "superopt enumerate";
  for (const std::string& a : args) o.arguments += " " + a;
  return o;
}

nlohmann::json summary_json(const EnumerateSummary& s, const EnumerateOptions& o) {
  nlohmann::json j = {{"out", o.out_path},
                      {"max_ops", o.max_ops},
                      {"ranks", s.ranks},
                      {"units", s.units},
                      {"units_sampled", s.units_sampled},
                      {"graphs", s.graphs},
                      {"resumed_graphs", s.resumed_graphs},
                      {"representative_level_graphs", s.representative_level_graphs},
                      {"records", s.records},
                      {"renamings", s.renamings},
                      {"classes", s.classes},
                      {"bytes_per_graph", s.graphs ? double(s.record_bytes) / double(s.graphs) : 0.0},
                      {"failed_second_test", s.failed_second_test},
                      {"failed_float_test", s.failed_float_test},
                      {"seconds", s.seconds},
                      {"peak_rss_bytes", s.peak_rss_bytes},
                      {"peak_rss_enumerate_bytes", s.peak_rss_enumerate_bytes},
                      {"peak_rss_pair_bytes", s.peak_rss_pair_bytes},
                      {"record_bytes", s.record_bytes},
                      {"records_filtered_out", s.records_filtered_out},
                      {"bytes_sent", s.bytes_sent},
                      {"messages_sent", s.messages_sent},
                      {"max_messages_sent", s.max_messages_sent},
                      {"max_rank_graphs", s.max_rank_graphs},
                      {"max_rank_record_bytes", s.max_rank_record_bytes},
                      {"spilled_runs", s.spilled_runs},
                      {"spilled_bytes", s.spilled_bytes},
                      {"max_spilled_bytes", s.max_spilled_bytes}};
  for (const auto& [stage, count] : s.stages) j[stage] = count;
  j["rules"] = s.stages.empty() ? 0 : s.stages.back().second;
  return j;
}

void print_summary(const EnumerateSummary& s, const EnumerateOptions& o) {
  std::printf("enumerated %llu graphs with up to %d operators on %d rank%s in %.2f s\n",
              static_cast<unsigned long long>(s.graphs), o.max_ops, s.ranks, s.ranks == 1 ? "" : "s",
              s.seconds);
  if (s.units_sampled < s.units)
    std::printf("sampled work units:         %lld of %lld\n", static_cast<long long>(s.units_sampled),
                static_cast<long long>(s.units));
  if (s.resumed_graphs)
    std::printf("resumed from the checkpoint: %llu of those graphs\n",
                static_cast<unsigned long long>(s.resumed_graphs));
  if (o.representatives_only)
    std::printf("representatives only:       %llu graphs made by the levels below to find them\n",
                static_cast<unsigned long long>(s.representative_level_graphs));
  std::printf("records (aligned graphs):   %llu\n", static_cast<unsigned long long>(s.records));
  std::printf("renamings evaluated:        %llu\n", static_cast<unsigned long long>(s.renamings));
  std::printf("classes (up to renaming):   %llu\n", static_cast<unsigned long long>(s.classes));
  std::printf("bytes per stored graph:     %.1f\n",
              s.graphs ? double(s.record_bytes) / double(s.graphs) : 0.0);
  for (const auto& [stage, count] : s.stages)
    std::printf("%-27s %lld\n", (stage + ":").c_str(), (long long)count);
  std::printf("failed second evaluation:   %lld\n", static_cast<long long>(s.failed_second_test));
  std::printf("failed float test:          %lld\n", static_cast<long long>(s.failed_float_test));
  std::printf("peak memory (largest rank): %.1f MiB (%.1f after enumerating, %.1f after pairing)\n",
              s.peak_rss_bytes / 1048576.0, s.peak_rss_enumerate_bytes / 1048576.0,
              s.peak_rss_pair_bytes / 1048576.0);
  if (s.spilled_runs)
    std::printf("spilled to scratch:         %llu runs, %.1f MiB (largest rank %.1f MiB)\n",
                static_cast<unsigned long long>(s.spilled_runs), s.spilled_bytes / 1048576.0,
                s.max_spilled_bytes / 1048576.0);
  std::printf("wrote %s\n", o.out_path.c_str());
}

}  // namespace
}  // namespace superopt::enumeration

namespace superopt {

int enumerate_command(const std::vector<std::string>& args) {
  EnumerateOptions numbers;
  // Before any option value exists: a missing data folder throws here, and an
  // option value not yet handed to `opts` would leak.
  const std::string default_opset = data_path("opsets/taso.json");
  cli::po::options_description opts("options");
  opts.add_options()("max-ops", cli::number(&numbers.max_ops, "--max-ops", 1, 8)->required(),
                     "largest graphs to enumerate, in operators (1 to 8)")(
      "opset", cli::po::value<std::string>()->default_value(default_opset), "operator set file")(
      "out", cli::po::value<std::string>()->default_value("rules.h5"), "rule database to write")(
      "seed", cli::seed(&numbers.seed), "seed of the random inputs (default 1)")(
      "checkpoint", cli::po::value<std::string>(),
      "directory for checkpoints: a killed run started again resumes")(
      "memory-per-rank", cli::po::value<std::string>(),
      "bytes of graph records each rank may hold (6G, 512M); beyond, sorted runs spill to --scratch")(
      "scratch", cli::po::value<std::string>(), "folder for spilled runs (default: OUT.scratch)")(
      "sample-units", cli::po::value<double>(),
      "run only this fraction (0, 1] of the work units, chosen by --seed (for projections)")(
      "representatives-only", "extend a graph only if it is its class's representative (Quartz's RepGen)")(
      "two-pass",
      "enumerate twice: count class keys, then keep only classes seen twice (less memory and disk)")(
      "force", "replace an existing database")("json", "print the summary as one JSON object");
  cli::add_memory_option(opts);
  // MPI first: under mpirun every rank parses, fails or succeeds alike, and only rank 0 speaks.
  MpiWorld world;
  try {
    auto vm = cli::parse(
        "superopt enumerate --max-ops N [--opset FILE] [--out FILE] [--checkpoint DIR] [--seed S] [--force] "
        "[--memory-per-rank BYTES] [--scratch DIR] [--sample-units FRACTION] [--representatives-only] "
        "[--two-pass] "
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
