// A signal during an atomic write (issue 37, item 9): SIGTERM or SIGINT while
// `graph export` wrote a 256 MB model left an 80-110 MB PATH.tmp-XXXXXX. A
// child process writes in a loop; the parent signals it the moment a
// temporary file appears (inotify) and then looks for leftovers. Its own
// executable: the handlers are installed once per process, at the first
// temporary file, and Catch2's own handlers must not be what the child inherits.
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "runtime/core/atomic_file.h"
#include "runtime/core/error.h"
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

// Waits until a file whose name holds ".tmp-" is created in the watched folder.
bool temporary_file_created(int watch) {
  alignas(inotify_event) char buffer[4096];
  for (;;) {
    ssize_t n = ::read(watch, buffer, sizeof buffer);
    if (n <= 0) return false;
    for (char* at = buffer; at < buffer + n;) {
      auto* event = reinterpret_cast<inotify_event*>(at);
      if (event->len && std::strstr(event->name, ".tmp-")) return true;
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
  bool created = temporary_file_created(watch);
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

}  // namespace
}  // namespace superopt
