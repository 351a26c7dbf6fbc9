// `superopt db check-proofs FILE`: replays every stored derivation on its own,
// independently of the search that found it (runtime/rewrite/derivation.h),
// runs the caller's check of each derived rule (commands.h), and works out
// every proven rule's size family again: the stated one must keep at least
// those sizes equal (runtime/rewrite/size_family.h).
#include <iostream>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/core/error.h"
#include "runtime/rewrite/derivation.h"
#include "runtime/rewrite/size_family.h"

namespace superopt {
namespace {

// Whether every class of `found` lies within one class of `stated`: the
// stated family keeps at least the sizes equal that the rule's own does.
bool keeps_equal(const SizeFamily& stated, const SizeFamily& found) {
  auto class_of = [&](const SizeSlot& s) -> int {
    for (size_t c = 0; c < stated.equal.size(); ++c)
      for (const SizeSlot& t : stated.equal[c])
        if (t == s) return int(c);
    return -1;
  };
  for (const std::vector<SizeSlot>& c : found.equal) {
    const int first = class_of(c[0]);
    for (const SizeSlot& s : c)
      if (first < 0 || class_of(s) != first) return false;
  }
  return true;
}

}  // namespace

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
  int64_t checked = 0, invalid = 0, families = 0;
  for (size_t k = 0; k < db.rules.size(); ++k) {
    const Rule& rule = db.rules[k];
    if (is_proven(rule.status) && rule.family) {
      ++families;
      const SizeFamily found = size_family_of(rule);
      if (!keeps_equal(*rule.family, found)) {
        ++invalid;
        std::cout << "rule " << k << ": its stated size family '" << size_family_text(*rule.family)
                  << "' admits sizes its own family '" << size_family_text(found) << "' does not\n";
      }
    }
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
  std::cout << file << ": " << checked << " derivations replayed, " << invalid << " invalid (" << families
            << " size families worked out again)\n";
  return invalid ? cli::kExitFailure : cli::kExitOk;
}

}  // namespace superopt
