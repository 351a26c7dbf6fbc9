// A signal during an atomic write (issue 37, item 9): SIGTERM or SIGINT while
// `graph export` wrote a 256 MB model left an 80-110 MB PATH.tmp-XXXXXX. A
// child process writes in a loop; the parent signals it the moment a
// temporary file appears (inotify) and then looks for leftovers. Its own
// executable: the handlers are installed once per process, at the first
// temporary file, and Catch2's own handlers must not be what the child inherits.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <string>

#include "runtime/core/atomic_file.h"
#include "runtime/core/error.h"
#include "runtime/core/writer_lock.h"
#include "tests/temp_dir.h"

namespace superopt {
namespace {

volatile sig_atomic_t g_asked_to_stop = 0;
void note_stop(int) {
  g_asked_to_stop = 1;
}

// The child: writes PATH over and over (large enough that each write takes a
// while), until a signal ends it; with a handler of its own, until asked to stop.
[[noreturn]] void write_forever(const std::string& path, bool own_handler) {
  struct sigaction action {};
  sigemptyset(&action.sa_mask);
  action.sa_handler = own_handler ? note_stop : SIG_DFL;
  for (int signal_number : {SIGINT, SIGTERM}) ::sigaction(signal_number, &action, nullptr);
  const std::string bytes(64 << 20, 'w');
  try {
    while (!g_asked_to_stop) write_file_atomically(path, bytes);
  } catch (const Error&) {
    ::_exit(3);
  }
  ::_exit(7);
}

// Waits until a file whose name holds `part` is created in the watched folder.
bool file_created(int watch, const char* part) {
  alignas(inotify_event) char buffer[4096];
  for (;;) {
    ssize_t n = ::read(watch, buffer, sizeof buffer);
    if (n <= 0) return false;
    for (char* at = buffer; at < buffer + n;) {
      auto* event = reinterpret_cast<inotify_event*>(at);
      if (event->len && std::strstr(event->name, part)) return true;
      at += sizeof(inotify_event) + event->len;
    }
  }
}

// Runs the child, sends `signal_number` once its first temporary file exists,
// and returns its wait status.
int status_after_signal(const test::TempDir& dir, int signal_number, bool own_handler) {
  int watch = ::inotify_init1(IN_CLOEXEC);
  REQUIRE(watch >= 0);
  REQUIRE(::inotify_add_watch(watch, dir.path.c_str(), IN_CREATE) >= 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) write_forever(dir.file("model.onnx"), own_handler);
  bool created = file_created(watch, ".tmp-");
  ::kill(child, signal_number);
  ::close(watch);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(created);
  return status;
}

std::vector<std::string> temporary_files(const test::TempDir& dir) {
  std::vector<std::string> found;
  for (const std::string& name : dir.entries())
    if (name.find(".tmp-") != std::string::npos) found.push_back(name);
  return found;
}

TEST_CASE("SIGTERM or SIGINT during an atomic write ends the process and leaves no temporary file",
          "[atomic_file]") {
  for (int signal_number : {SIGTERM, SIGINT}) {
    test::TempDir dir;
    int status = status_after_signal(dir, signal_number, false);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);  // the default action, as without the handler
    CHECK(temporary_files(dir).empty());
  }
}

TEST_CASE("a program's own signal handler still runs, and the write it lets finish leaves nothing behind",
          "[atomic_file]") {
  test::TempDir dir;
  int status = status_after_signal(dir, SIGTERM, true);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(temporary_files(dir).empty());
  CHECK(dir.entries() == std::vector<std::string>{"model.onnx"});
}

TEST_CASE("SIGTERM ends a writer holding a database's lock and leaves no lock file", "[writer_lock]") {
  test::TempDir dir;
  const std::string database = dir.file("rules.h5");
  // Not write_file_atomically: the handlers must be installed first in the child.
  std::ofstream(database) << "rules";
  int watch = ::inotify_init1(IN_CLOEXEC);
  REQUIRE(watch >= 0);
  REQUIRE(::inotify_add_watch(watch, dir.path.c_str(), IN_CREATE) >= 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    action.sa_handler = SIG_DFL;
    ::sigaction(SIGTERM, &action, nullptr);
    WriterLock lock(database);
    for (;;) ::pause();  // a long verify
  }
  bool created = file_created(watch, ".lock");
  ::close(watch);
  // The lock file appears at open(), before flock() and the cover: wait until it is held.
  for (int i = 0; i < 2000 && ::access((database + ".lock").c_str(), F_OK) == 0; ++i) {
    int fd = ::open((database + ".lock").c_str(), O_RDONLY | O_CLOEXEC);
    bool held = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    if (fd >= 0) ::close(fd);
    if (held) break;
    ::usleep(1000);
  }
  ::usleep(20000);  // from flock() to the cover: a few instructions
  ::kill(child, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(created);
  CHECK(WIFSIGNALED(status));
  CHECK(dir.entries() == std::vector<std::string>{"rules.h5"});
}

}  // namespace
}  // namespace superopt
