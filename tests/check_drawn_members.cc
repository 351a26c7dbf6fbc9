// The soundness acceptance check: for every verified rule of a database, draws
// members of its shape family (other seeds than the verifier's) and evaluates
// both sides in double; any difference is a false "verified" (or "derived").
//   check_drawn_members RULES.h5 [MEMBERS_PER_RULE]
#include <iostream>

#include "runtime/core/error.h"
#include "verify/rule_family.h"
#include "verify/rule_validation.h"

using namespace superopt;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: check_drawn_members RULES.h5 [MEMBERS_PER_RULE]\n";
    return 2;
  }
  try {
    const int per_rule = argc == 3 ? std::stoi(argv[2]) : 2;
    RuleDatabase db = RuleDatabase::read(argv[1]);
    int64_t verified = 0, members = 0, without = 0, false_rules = 0;
    for (size_t i = 0; i < db.rules.size(); ++i) {
      if (!is_proven(db.rules[i].status)) continue;  // verified or derived
      ++verified;
      int drawn = 0;
      for (const verify::RuleFamily& f : verify::rule_families(db.rules[i])) {
        for (const RuleInstance& m : verify::draw_instances(f, {.count = per_rule, .seed = 0xD1CE + i})) {
          ++drawn;
          if (auto witness = verify::concrete_difference(m.source, m.target)) {
            ++false_rules;
            std::cout << "rule " << i << " is false at " << m.source.shape(m.source.outputs()[0]).str()
                      << ": " << *witness << "\n";
          }
        }
      }
      members += drawn;
      without += drawn == 0;
    }
    std::cout << "check_drawn_members: " << verified << " proven rules, " << members << " members drawn, "
              << without << " rules with no other member, " << false_rules << " false\n";
    return false_rules == 0 && members > 0 ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "check_drawn_members: " << e.what() << "\n";
    return 2;
  }
}
