// Unit tests of the writer's lock on a database (runtime/core/writer_lock.h):
// one writer at a time, no file left behind, a waiter that outlives a holder.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "runtime/core/error.h"
#include "runtime/core/writer_lock.h"
#include "tests/temp_dir.h"

namespace superopt {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("a second writer is refused while the first holds the lock, and no lock file stays",
          "[writer_lock]") {
  test::TempDir dir;
  const std::string db = dir.file("rules.h5");
  {
    WriterLock first(db);
    CHECK(std::filesystem::exists(first.lock_path()));
    CHECK_THROWS_WITH(WriterLock(db, false),
                      Contains("rules.h5 is being written by another superopt process (lock ") &&
                          Contains("rules.h5.lock)"));
  }
  CHECK(dir.entries().empty());
  WriterLock again(db, false);  // free again
}

TEST_CASE("a waiting writer gets the lock when the holder finishes", "[writer_lock]") {
  test::TempDir dir;
  const std::string db = dir.file("rules.h5");
  std::atomic<bool> holder_done{false}, waiter_locked{false};
  std::thread waiter;
  {
    WriterLock holder(db);
    waiter = std::thread([&] {
      WriterLock mine(db);  // waits, then locks the file the holder's release left (or a new one)
      waiter_locked = true;
      CHECK(holder_done.load());
      CHECK(std::filesystem::exists(mine.lock_path()));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK_FALSE(waiter_locked.load());
    holder_done = true;
  }
  waiter.join();
  CHECK(waiter_locked.load());
  CHECK(dir.entries().empty());
}

TEST_CASE("lock_existing locks a file that exists and nothing else", "[writer_lock]") {
  test::TempDir dir;
  CHECK(lock_existing(dir.file("absent.h5")) == nullptr);
  CHECK(dir.entries().empty());
  const std::string db = dir.file("present.h5");
  FILE* f = std::fopen(db.c_str(), "w");
  REQUIRE(f);
  std::fclose(f);
  auto lock = lock_existing(db);
  REQUIRE(lock);
  CHECK_THROWS_AS(WriterLock(db, false), Error);
}

TEST_CASE("a lock in a folder that does not exist is an error naming the file", "[writer_lock]") {
  CHECK_THROWS_WITH(WriterLock("/nonexistent-folder/rules.h5"),
                    Contains("cannot lock /nonexistent-folder/rules.h5: No such file or directory"));
}

}  // namespace
}  // namespace superopt
