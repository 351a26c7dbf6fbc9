// Writes the rule database the `db` command tests read: make_rule_fixture PATH.
#include <iostream>

#include "runtime/core/error.h"
#include "tests/rule_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_rule_fixture PATH\n";
    return 2;
  }
  try {
    superopt::test::fixture_database().write(argv[1]);
  } catch (const superopt::Error& e) {
    std::cerr << "make_rule_fixture: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
