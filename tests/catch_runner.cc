// Catch2's implementation without a main, compiled once for the tests that
// bring their own main (MPI start-up, exit 77 without a GPU): compiling it in
// each of them cost about 17 s of build time apiece.
#define CATCH_CONFIG_RUNNER
#include "tests/catch_runner.h"

#include <catch2/catch.hpp>

namespace superopt::test {

int run_catch_session(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}

}  // namespace superopt::test
