// Unit tests of the limits every reader and writer shares: the atomic write
// (atomic_file.h), the numeric flag parsers (numeric_flags.h) and the memory
// budget (memory_budget.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>

#include "runtime/cli/numeric_flags.h"
#include "runtime/core/atomic_file.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/memory_budget.h"
#include "runtime/core/regular_file.h"
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

mode_t file_type(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & S_IFMT;
}

// Issue 37, item 3: the rename put a regular file where /dev/null was.
TEST_CASE("an output that is a FIFO is written in place, to its reader", "[atomic_file]") {
  test::TempDir dir;
  const std::string fifo = dir.file("out.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opened first, so that the writer finds a reader; read by a thread, since
  // the output is larger than the pipe holds and the writes must block.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  const std::string bytes(300000, 'x');
  std::string got;
  std::thread drain([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    char buffer[65536];
    while (got.size() < bytes.size() && std::chrono::steady_clock::now() < give_up) {
      ssize_t n = ::read(reader, buffer, sizeof buffer);
      if (n > 0) got.append(buffer, static_cast<size_t>(n));
      if (n <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  write_file_atomically(fifo, bytes);
  drain.join();
  ::close(reader);
  CHECK(got == bytes);
  CHECK(file_type(fifo) == S_IFIFO);
  CHECK(dir.entries() == std::vector<std::string>{"out.fifo"});
}

TEST_CASE("a FIFO with no reader is refused at once, not waited for", "[atomic_file]") {
  test::TempDir dir;
  const std::string fifo = dir.file("out.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(write_file_atomically(fifo, "new"),
                    Equals("cannot write " + fifo + ": a FIFO with no reader"));
  CHECK(file_type(fifo) == S_IFIFO);
  CHECK(dir.entries() == std::vector<std::string>{"out.fifo"});
}

TEST_CASE("a read-only output is refused, not replaced", "[atomic_file]") {
  test::TempDir dir;
  const std::string path = dir.file("out.json");
  write_file_atomically(path, "old");
  REQUIRE(::chmod(path.c_str(), 0444) == 0);
  // Root may write any mode: the mode bits decide then.
  CHECK_THROWS_WITH(write_file_atomically(path, "new"),
                    Equals("cannot write " + path + ": the file is read-only (mode 0444), not replaced"));
  CHECK(contents(path) == "old");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0444);
  CHECK(dir.entries() == std::vector<std::string>{"out.json"});
}

TEST_CASE("a directory as the output is refused, and stays a directory", "[atomic_file]") {
  test::TempDir dir;
  const std::string folder = dir.file("out");
  std::filesystem::create_directory(folder);
  CHECK_THROWS_WITH(write_file_atomically(folder, "new"),
                    Equals("cannot write " + folder + ": Is a directory"));
  CHECK(file_type(folder) == S_IFDIR);
  CHECK(dir.entries() == std::vector<std::string>{"out"});
}

// Our own device nodes (root only; skipped elsewhere), never the system's:
// null (1,3) takes the bytes, full (1,7) fails with ENOSPC; both stay devices.
TEST_CASE("a character device as the output is written in place, not replaced", "[atomic_file]") {
  test::TempDir dir;
  const std::string null = dir.file("null"), full = dir.file("full");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    WARN("cannot make device nodes here (needs root): skipped");
    return;
  }
  CHECK_NOTHROW(write_file_atomically(null, std::string(100000, 'x')));
  CHECK(file_type(null) == S_IFCHR);
  CHECK_THROWS_WITH(write_file_atomically(full, "new"),
                    Equals("cannot write " + full + ": No space left on device"));
  CHECK(file_type(full) == S_IFCHR);
  auto names = dir.entries();
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"full", "null"});
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
  set_memory_budget(23'999'999);  // a difference the rounded figures would hide
  CHECK_THROWS_WITH(check_evaluation_memory(g, sizeof(double)),
                    Contains("needs 24000000 bytes, over the memory budget of 23999999 bytes"));
  set_memory_budget(24'000'000);
  CHECK_NOTHROW(check_evaluation_memory(g, sizeof(double)));
  set_memory_budget(before);
  CHECK(default_memory_budget_bytes() > 0);
}

}  // namespace
}  // namespace superopt

namespace superopt {
namespace {

TEST_CASE("input files are regular files within a size limit: a FIFO or /dev/zero is one line, not a hang",
          "[regular_file]") {
  test::TempDir dir;
  const std::string fifo = dir.file("model.json");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_regular_file(fifo, 1024, "a graph"),
                    Catch::Matchers::Equals("cannot open " + fifo + ": not a regular file (a FIFO)"));
  CHECK_THROWS_WITH(
      read_regular_file("/dev/zero", 1024, "a graph"),
      Catch::Matchers::Equals("cannot open /dev/zero: not a regular file (a character device)"));
  CHECK_THROWS_WITH(read_regular_file(dir.path.string(), 1024, "a graph"),
                    Catch::Matchers::Contains("is a directory"));
  const std::string big = dir.file("big.json");
  write_file_atomically(big, std::string(2048, ' '));
  CHECK_THROWS_WITH(read_regular_file(big, 1024, "a graph"),
                    Catch::Matchers::Equals(big + ": 2048 bytes, over the limit of 1024 bytes for a graph"));
  CHECK(read_regular_file(big, 2048, "a graph").size() == 2048);
}

}  // namespace
}  // namespace superopt

namespace superopt {
namespace {

TEST_CASE("a shape refuses a dimension beyond 32 bits and a rank beyond 6, not cut or overrun", "[shape]") {
  Shape s;
  CHECK_THROWS_WITH(s.push_back((int64_t(1) << 32) + 4),
                    Catch::Matchers::Equals("dimension 4294967300 is out of range (at most 2147483647)"));
  CHECK(s.rank() == 0);
  for (int i = 0; i < kMaxRank; ++i) s.push_back(2);
  CHECK_THROWS_WITH(s.push_back(2), Catch::Matchers::Contains("a tensor of rank 7 after 2x2x2x2x2x2"));
  CHECK_THROWS_AS(s.set(0, int64_t(1) << 40), Error);
  CHECK(s[0] == 2);
}

}  // namespace
}  // namespace superopt

namespace superopt {
namespace {

TEST_CASE("messages are printable: escape sequences, line breaks and NULs from files come out as \\xNN",
          "[printable]") {
  CHECK(printable("plain text, tabs\tand all") == "plain text, tabs\\x09and all");
  CHECK(printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  const std::string with_nul("cut\0here\nnext", 13);
  CHECK(std::string(Error("location '" + with_nul + "'").what()) == "location 'cut\\x00here\\x0anext'");
  CHECK(std::string(Error("\x7f").what()) == "\\x7f");
  CHECK(printable("ünïcode stays") == "ünïcode stays");
}

}  // namespace
}  // namespace superopt
