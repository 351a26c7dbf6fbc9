// The superopt command line as a function: the table of subcommands and the
// whole program (dispatch, one-line errors, exit codes), shared by the
// executable (main.cc) and the command-line fuzzer (tests/fuzz/cli_fuzz.cc).
#pragma once

#include <string>
#include <vector>

namespace superopt {

// Runs `superopt ARGS...` in this process and returns its exit code (0 ok,
// 1 a failed check, 2 bad flags or input); nothing calls exit().
int superopt_main(const std::vector<std::string>& args);

}  // namespace superopt
