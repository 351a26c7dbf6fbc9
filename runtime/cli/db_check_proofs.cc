// `superopt db check-proofs FILE`: replays every stored derivation on its own,
// independently of the search that found it (runtime/rewrite/derivation.h),
// and runs the caller's check of each derived rule (commands.h).
#include <iostream>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/core/error.h"
#include "runtime/rewrite/derivation.h"

namespace superopt {

int db_check_proofs_command(const std::vector<std::string>& args, const DerivedRuleCheck& check) {
  const std::string usage = "superopt db check-proofs FILE";
  std::string file;
  cli::po::options_description options("options");
  options.add_options()("file", cli::po::value(&file), "the rule database (HDF5)");
  cli::po::positional_options_description positional;
  positional.add("file", 1);
  if (!cli::parse(usage, options, positional, args)) return cli::kExitOk;
  if (file.empty()) throw Error("db check-proofs: missing FILE (usage: " + usage + ")");
  RuleDatabase db = RuleDatabase::read(file);
  int64_t checked = 0, invalid = 0;
  for (size_t k = 0; k < db.rules.size(); ++k) {
    if (db.rules[k].status != RuleStatus::derived) continue;
    ++checked;
    if (std::optional<std::string> why = derivation_error(db.rules, int64_t(k))) {
      ++invalid;
      std::cout << "rule " << k << ": invalid derivation: " << *why << "\n";
    } else if (std::optional<std::string> why = check ? check(db.rules[k]) : std::nullopt) {
      ++invalid;
      std::cout << "rule " << k << ": derived but false in its shape family: " << *why << "\n";
    }
  }
  std::cout << file << ": " << checked << " derivations replayed, " << invalid << " invalid\n";
  return invalid ? cli::kExitFailure : cli::kExitOk;
}

}  // namespace superopt
