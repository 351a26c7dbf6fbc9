// Runs the Catch2 tests linked into a test with a main of its own
// (superopt_catch_runner: Catch2's implementation, compiled once).
#pragma once

namespace superopt::test {

// Catch::Session().run(argc, argv): the number of failed test cases.
int run_catch_session(int argc, char** argv);

}  // namespace superopt::test
