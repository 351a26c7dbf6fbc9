// Temporary files removed when a signal ends the process: SIGINT, SIGTERM or
// SIGHUP during an atomic write (atomic_file.h) would otherwise leave the
// half-written PATH.tmp-XXXXXX beside the output (issue 37, item 9: 80-110 MB
// after a killed `graph export`), and a killed writer its PATH.lock
// (writer_lock.h).
#pragma once

#include <string>

namespace superopt {

// While one lives, the file it created is removed if SIGINT, SIGTERM or SIGHUP
// ends the process. The handler is async-signal-safe: the path is kept in a
// fixed buffer (one of a few slots), unlinked, and the signal raised again with
// its default action, so the exit status still says which signal it was. A
// signal that had a handler of its own (an embedding interpreter's SIGINT) goes
// to that handler instead and the file is left to its owner; an ignored signal
// stays ignored. A path too long for a slot, or more files at once than slots,
// is simply not covered.
class TempFileCleanup {
 public:
  TempFileCleanup() = default;
  ~TempFileCleanup();
  // mkstemp(pattern) with those signals blocked until the file is covered, so
  // that no signal falls between its creation and its cover. Returns the
  // descriptor, or -1 with errno set; covers one file per object.
  int create(std::string& pattern);
  // Covers a file that exists already and is this process's to remove (a
  // writer's lock file, once locked); one file per object, like create.
  void cover(const std::string& path);
  TempFileCleanup(const TempFileCleanup&) = delete;
  TempFileCleanup& operator=(const TempFileCleanup&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace superopt
