// TempFileCleanup (temp_file_cleanup.h): fixed slots of paths and a signal
// handler that unlinks them, then lets the signal do what it did before.
#include "runtime/core/temp_file_cleanup.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace superopt {
namespace {

// Only what a signal handler may touch: plain buffers and lock-free atomics.
constexpr int kSlots = 16;
constexpr size_t kPathBytes = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
enum SlotState : int { kFree = 0, kFilling = 1, kArmed = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes];
};
Slot g_slots[kSlots];
struct sigaction g_previous[NSIG];

void remove_and_resignal(int signal_number) {
  const struct sigaction& previous = g_previous[signal_number];
  if (previous.sa_handler != SIG_DFL) {          // someone else's handler: theirs to decide, the file stays
    if (previous.sa_flags & SA_SIGINFO) return;  // not installed over such handlers (see install_handlers)
    previous.sa_handler(signal_number);
    return;
  }
  for (Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == kArmed) ::unlink(slot.path);
  // Default action again, then the same signal: it is blocked while this
  // handler runs and ends the process as soon as the handler returns.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);
}

// Once per process, at the first temporary file: a signal left at its default
// action gets the handler; an ignored one or one with an SA_SIGINFO handler
// (which could not be chained here without its siginfo) is left alone.
void install_handlers() {
  for (int signal_number : kSignals) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0) continue;
    if (current.sa_handler == SIG_IGN || (current.sa_flags & SA_SIGINFO)) continue;
    g_previous[signal_number] = current;
    struct sigaction action {};
    action.sa_handler = remove_and_resignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(signal_number, &action, nullptr);
  }
}

// Takes a free slot and fills it with `path`; -1 when none is free or the path
// is too long (the file is then not covered).
int take_slot(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kArmed, std::memory_order_release);
    return i;
  }
  return -1;
}

void install_handlers_once() {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
}

}  // namespace

int TempFileCleanup::create(std::string& pattern) {
  install_handlers_once();
  sigset_t covered, old;
  sigemptyset(&covered);
  for (int signal_number : kSignals) sigaddset(&covered, signal_number);
  pthread_sigmask(SIG_BLOCK, &covered, &old);
  int fd = ::mkstemp(pattern.data());
  int error_number = errno;
  if (fd >= 0 && slot_ < 0) slot_ = take_slot(pattern);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);  // a signal that came meanwhile is handled here
  errno = error_number;
  return fd;
}

void TempFileCleanup::cover(const std::string& path) {
  install_handlers_once();
  if (slot_ < 0) slot_ = take_slot(path);
}

TempFileCleanup::~TempFileCleanup() {
  if (slot_ >= 0) g_slots[slot_].state.store(kFree, std::memory_order_release);
}

}  // namespace superopt
