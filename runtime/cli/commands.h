// The subcommands runtime/ provides to the superopt executable.
#pragma once

#include <string>
#include <vector>

namespace superopt {

// `superopt graph check|run|export MODEL`: validate, execute or write a graph file or builtin model.
int graph_command(const std::vector<std::string>& args);

// `superopt db info|show|check-proofs FILE`: inspect a rule database.
int db_command(const std::vector<std::string>& args);
// `superopt db check-proofs FILE`: replay every derivation (exit 1 on an invalid one).
int db_check_proofs_command(const std::vector<std::string>& args);

// `superopt version`: versions of superopt and its libraries, and the CUDA devices.
int version_command(const std::vector<std::string>& args);

// `superopt measure MODEL...`: time every operator signature on the GPU into a cost table.
int measure_command(const std::vector<std::string>& args);

// `superopt run MODEL --gpu`: whole-graph GPU latency, with --check against the CPU reference.
int run_command(const std::vector<std::string>& args);

}  // namespace superopt
