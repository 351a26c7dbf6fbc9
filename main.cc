// The superopt executable: one binary, one subcommand per stage of the pipeline.
#include <string>
#include <vector>

#include "runtime/command_line.h"
#include "runtime/commands.h"

int main(int argc, char** argv) {
  using namespace superopt;
  const cli::Subcommand subcommands[] = {
      {"graph", "check or run a graph file (JSON)", graph_command},
      {"version", "versions of superopt, its libraries and the CUDA devices", version_command},
  };
  std::vector<std::string> args(argv + 1, argv + argc);
  return cli::run_main("superopt", [&] { return cli::dispatch("superopt", subcommands, args); });
}
