// libFuzzer harness: the command line. The input is split at newlines into the
// arguments of `superopt ARGS...`, which runs in this process through the same
// dispatcher as the executable (superopt_commands.h); every exit code is a
// normal outcome, a crash, a sanitizer report, an escaping exception or a hang
// is a finding. It runs in a scratch folder holding `data` and `tests` (links
// to the source tree's) and `rules.h5` (the db tests' small database), so that
// seeds can name real files by short relative paths.
//
// Not run (the input is skipped): commands that start MPI, run Z3 for long or
// time kernels (enumerate, verify, derive, verify-axioms, measure, run);
// arguments that write files (--out, --mark-suspects) or name the builtin models
// and data/models/ (the CPU reference takes seconds on those under the
// sanitizers; tests/models_tests.cmake covers them), devices (/dev/...) and the
// shipped 10 MB database (too slow per input).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/models/model_zoo.h"
#include "superopt_commands.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/rule_fixture.h"

namespace {

constexpr size_t kMaxArgs = 24;

const char* const kSkippedCommands[] = {"enumerate", "verify", "derive", "verify-axioms", "measure", "run"};
const char* const kSkippedArgParts[] = {"--out", "--mark-suspects", "builtin", "models",
                                        "/dev",  "/proc",           "taso-3"};

bool skipped(const std::vector<std::string>& args) {
  static const std::vector<std::string> builtin_names = superopt::builtin_model_names();
  if (args.empty() || args.size() > kMaxArgs) return args.size() > kMaxArgs;
  for (const char* command : kSkippedCommands)
    if (args[0] == command) return true;
  for (const std::string& arg : args) {
    for (const char* part : kSkippedArgParts)
      if (arg.find(part) != std::string::npos) return true;
    // A builtin model's bare name is a model spec too.
    for (const std::string& name : builtin_names)
      if (arg.find(name) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> args;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  namespace fs = std::filesystem;
  const fs::path& dir = superopt::fuzz::scratch_dir();
  fs::create_directory_symlink(fs::path(SUPEROPT_SOURCE_DIR) / "data", dir / "data");
  fs::create_directory_symlink(fs::path(SUPEROPT_SOURCE_DIR) / "tests", dir / "tests");
  superopt::test::fixture_database().write((dir / "rules.h5").string());
  if (chdir(dir.c_str()) != 0) abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = split_lines(superopt::fuzz::as_text(data, size));
  if (skipped(args)) return 0;
  superopt::superopt_main(args);
  return 0;
}
