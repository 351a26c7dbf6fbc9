// Unit tests of the limits every reader and writer shares: the atomic write
// (atomic_file.h), the numeric flag parsers (numeric_flags.h) and the memory
// budget (memory_budget.h).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "runtime/cli/numeric_flags.h"
#include "runtime/core/atomic_file.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/memory_budget.h"
#include "tests/temp_dir.h"

namespace superopt {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

std::string contents(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST_CASE("an atomic write replaces the file whole and leaves nothing beside it", "[atomic_file]") {
  test::TempDir dir;
  const std::string path = dir.file("out.json");
  write_file_atomically(path, "old");
  write_file_atomically(path, std::string(100000, 'x'));
  CHECK(contents(path) == std::string(100000, 'x'));
  CHECK(dir.entries() == std::vector<std::string>{"out.json"});
}

TEST_CASE("a failed atomic write keeps the old file and says why", "[atomic_file]") {
  test::TempDir dir;
  const std::string path = dir.file("out.json");
  write_file_atomically(path, "old");
  // A directory in the way of the rename: the write itself succeeds, the rename fails.
  const std::string blocked = dir.file("blocked");
  std::filesystem::create_directory(blocked);
  std::filesystem::create_directory(blocked + "/inside");
  CHECK_THROWS_WITH(write_file_atomically(blocked, "new"), Contains("cannot write " + blocked + ": "));
  CHECK_THROWS_WITH(write_file_atomically(dir.file("none/x.json"), "new"),
                    Equals("cannot write " + dir.file("none/x.json") + ": No such file or directory"));
  CHECK(contents(path) == "old");
  auto names = dir.entries();
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"blocked", "out.json"});
}

TEST_CASE("numeric flags take exactly their range and state it", "[numeric_flags]") {
  CHECK(cli::parse_integer<unsigned>("10000", "--timeout-ms", 1, 4294967295u) == 10000);
  CHECK(cli::parse_integer<uint64_t>("18446744073709551615", "--seed", 0, UINT64_MAX) == UINT64_MAX);
  CHECK(cli::parse_integer<int>("+3", "--eta", 1, 9) == 3);
  CHECK_THROWS_WITH(cli::parse_integer<unsigned>("-5", "--timeout-ms", 1, 4294967295u),
                    Equals("--timeout-ms: expected an integer from 1 to 4294967295, got '-5'"));
  CHECK_THROWS_WITH(cli::parse_integer<unsigned>("0", "--timeout-ms", 1, 10), Contains("got '0'"));
  CHECK_THROWS_WITH(cli::parse_integer<int>("2.5", "--eta", 1, 9), Contains("expected an integer"));
  CHECK_THROWS_WITH(cli::parse_integer<int>("", "--eta", 1, 9), Contains("got ''"));
  CHECK(cli::parse_real("1.5", "--alpha", 1, 1000) == 1.5);
  for (const char* bad : {"inf", "nan", "-inf", "1e400", "0.5", "1.5x"})
    CHECK_THROWS_WITH(cli::parse_real(bad, "--alpha", 1, 1000),
                      Equals(std::string("--alpha: expected a number from 1 to 1000, got '") + bad + "'"));
}

TEST_CASE("sizes in bytes take K, M, G and T", "[numeric_flags]") {
  CHECK(cli::parse_bytes("4096", "--max-memory") == 4096);
  CHECK(cli::parse_bytes("4K", "--max-memory") == 4096);
  CHECK(cli::parse_bytes("3G", "--max-memory") == int64_t{3} << 30);
  for (const char* bad : {"", "0", "-1G", "4X", "G", "99999999999T"})
    CHECK_THROWS_WITH(cli::parse_bytes(bad, "--max-memory"),
                      Contains("--max-memory: expected a size in bytes"));
}

TEST_CASE("evaluation is refused from shapes when its tensors exceed the budget", "[memory_budget]") {
  Graph g;
  NodeId x = g.add_input("x", {1000, 1000});
  NodeId w = g.add_weight("w", {1000, 1000});
  g.add_output({g.add(OpType::matmul, {{x}, {w}}, {}, "mm")});
  const int64_t before = memory_budget_bytes();
  set_memory_budget(20'000'000);  // x and w (8 MB each in double) fit, the product as well does not
  CHECK_THROWS_WITH(
      check_evaluation_memory(g, sizeof(double)),
      Equals("evaluating matmul 'mm' (output 1000x1000: 8.0 MB, with the tensors live then) needs "
             "24.0 MB, over the memory budget of 20.0 MB (--max-memory)"));
  set_memory_budget(24'000'000);
  CHECK_NOTHROW(check_evaluation_memory(g, sizeof(double)));
  set_memory_budget(before);
  CHECK(default_memory_budget_bytes() > 0);
}

}  // namespace
}  // namespace superopt
