// Writes the rule database with deliberately wrong rules marked verified that
// the `optimize` bad-rule tests read: make_bad_rule_fixture PATH.
#include <iostream>

#include "runtime/core/error.h"
#include "tests/bad_rule_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_bad_rule_fixture PATH\n";
    return 2;
  }
  try {
    superopt::test::bad_rule_database().write(argv[1]);
  } catch (const superopt::Error& e) {
    std::cerr << "make_bad_rule_fixture: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
