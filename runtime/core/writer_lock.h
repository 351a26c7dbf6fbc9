// One writer at a time for a file that is read, changed and written back (a
// rule database): two writers that each read, decide and write would
// otherwise lose one's updates, since atomic writes keep only the last file.
#pragma once

#include <memory>
#include <string>

#include "runtime/core/temp_file_cleanup.h"

namespace superopt {

// An advisory lock (flock) on the companion file PATH.lock, held from before
// the read to after the last write, and released on any exit, a killed
// process included (the kernel drops it with the descriptor). The lock is not
// on PATH itself because every atomic write replaces PATH's inode, and a lock
// on the old inode would no longer exclude a process that opens the new one.
//
// First, PATH is checked as the write will check it (check_output_path,
// atomic_file.h): a read-only database is refused at once, not after the work.
// When another process holds it, the constructor prints one line to stderr
// naming PATH and waits (wait = true), or throws Error with that line (wait =
// false). Throws Error "cannot lock PATH: REASON" when the companion file
// cannot be created (a folder we cannot write, where the write would fail
// too: better now than after hours of work). The destructor removes the
// companion file while still holding the lock; a waiter that then gets a lock
// on the removed file sees it is gone and locks the new one instead. So does
// SIGINT, SIGTERM or SIGHUP ending the process (temp_file_cleanup.h); a process
// killed otherwise (SIGKILL) leaves the file, which the next writer locks.
class WriterLock {
 public:
  explicit WriterLock(const std::string& path, bool wait = true);
  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

  const std::string& lock_path() const { return lock_path_; }

 private:
  std::string lock_path_;
  int fd_ = -1;
  TempFileCleanup on_signal_;  // the lock file goes with a process a signal ends
};

// The lock on PATH where PATH exists; none where it does not (the read that
// follows names that problem in its own words).
std::unique_ptr<WriterLock> lock_existing(const std::string& path, bool wait = true);

}  // namespace superopt
