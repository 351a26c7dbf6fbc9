// The writer's lock on a database (see writer_lock.h).
#include "runtime/core/writer_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "runtime/core/atomic_file.h"
#include "runtime/core/error.h"

namespace superopt {
namespace {

// Whether fd is still the file at `path` (the holder before us may have
// removed it while we waited).
bool still_at_path(int fd, const std::string& path) {
  struct stat held {
  }, named{};
  if (fstat(fd, &held) != 0 || stat(path.c_str(), &named) != 0) return false;
  return held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

// flock, again after a signal that did not end the process.
int lock_retrying(int fd, int operation) {
  int rc;
  do rc = flock(fd, operation);
  while (rc != 0 && errno == EINTR);
  return rc;
}

}  // namespace

WriterLock::WriterLock(const std::string& path, bool wait) : lock_path_(path + ".lock") {
  check_output_path(path);  // a read-only database fails now, not after the work
  const std::string busy = path + " is being written by another superopt process (lock " + lock_path_ + ")";
  bool told = false;
  for (;;) {
    fd_ = open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) throw Error("cannot lock " + path + ": " + std::strerror(errno));
    if (lock_retrying(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) {
        const int e = errno;
        close(fd_);
        throw Error("cannot lock " + path + ": " + std::strerror(e));
      }
      if (!wait) {
        close(fd_);
        throw Error(busy);
      }
      if (!told) std::cerr << "superopt: waiting: " << busy << "\n";
      told = true;
      lock_retrying(fd_, LOCK_EX);
    }
    if (still_at_path(fd_, lock_path_)) {
      on_signal_.cover(lock_path_);
      return;
    }
    close(fd_);  // removed by the holder as it finished: lock the new one
  }
}

WriterLock::~WriterLock() {
  // Removed before the lock goes, so no one locks a file that is about to vanish.
  unlink(lock_path_.c_str());
  close(fd_);
}

std::unique_ptr<WriterLock> lock_existing(const std::string& path, bool wait) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return nullptr;
  return std::make_unique<WriterLock>(path, wait);
}

}  // namespace superopt
