// The superopt executable: one binary, one subcommand per stage of the pipeline
// (the table is in superopt_commands.cc).
#include <string>
#include <vector>

#include "superopt_commands.h"

int main(int argc, char** argv) {
  return superopt::superopt_main(std::vector<std::string>(argv + 1, argv + argc));
}
