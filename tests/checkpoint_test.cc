// Generation checkpoints: finished units survive a restart, a torn last entry
// is dropped, and a log of another run is refused.
#include <catch2/catch.hpp>

#include <filesystem>

#include "enum/checkpoint.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::enumeration;
using Catch::Contains;

namespace {

// A folder of its own for each test process (removed at exit), so that two
// runs at once never share one.
std::string fresh_dir(const std::string& name) {
  static const test::TempDir process_dir;
  auto dir = process_dir.path / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<std::string> replayed(const CheckpointLog& log) {
  std::vector<std::string> blocks;
  log.replay([&](std::string_view b) { blocks.emplace_back(b); });
  return blocks;
}

}  // namespace

TEST_CASE("checkpoint: finished units and their records survive a restart", "[checkpoint]") {
  std::string dir = fresh_dir("restart");
  {
    CheckpointLog log(dir, 0, 1, 42, "run A");
    REQUIRE(log.done_units().empty());
    log.append(7, "records of unit 7");
    log.append(3, std::string(1000, 'x'));
  }
  CheckpointLog again(dir, 0, 1, 42, "run A");
  REQUIRE(again.done_units() == std::vector<int64_t>{7, 3});
  REQUIRE(replayed(again) == std::vector<std::string>{"records of unit 7", std::string(1000, 'x')});
  again.append(9, "more");
}

TEST_CASE("checkpoint: a torn last entry is dropped and overwritten", "[checkpoint]") {
  std::string dir = fresh_dir("torn");
  {
    CheckpointLog log(dir, 0, 1, 42, "run A");
    log.append(1, "complete");
    log.append(2, "cut short by a kill");
  }
  std::string path = dir + "/rank-0.log";
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
  {
    CheckpointLog log(dir, 0, 1, 42, "run A");
    REQUIRE(log.done_units() == std::vector<int64_t>{1});
    log.append(2, "redone");
  }
  CheckpointLog log(dir, 0, 1, 42, "run A");
  REQUIRE(log.done_units() == std::vector<int64_t>{1, 2});
  REQUIRE(replayed(log) == std::vector<std::string>{"complete", "redone"});
}

TEST_CASE("checkpoint: logs of other runs are refused", "[checkpoint]") {
  std::string dir = fresh_dir("other");
  { CheckpointLog log(dir, 0, 2, 42, "opset small, max-ops 3, seed 1"); }
  REQUIRE_THROWS_WITH(CheckpointLog(dir, 0, 2, 43, "opset small, max-ops 2, seed 1"),
                      Contains("other arguments (opset small, max-ops 3, seed 1)"));
  REQUIRE_THROWS_WITH(CheckpointLog(dir, 0, 4, 42, "x"),
                      Contains("written by a run on 2 ranks; this run has 4"));
  std::string garbage = fresh_dir("garbage");
  std::filesystem::create_directories(garbage);
  std::FILE* f = std::fopen((garbage + "/rank-0.log").c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("not a log", f);
  std::fclose(f);
  REQUIRE_THROWS_WITH(CheckpointLog(garbage, 0, 1, 42, "x"), Contains("not a superopt checkpoint"));
}
