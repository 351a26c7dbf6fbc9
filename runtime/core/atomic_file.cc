// write_file_atomically (atomic_file.h): temporary file, fsync, rename; a
// character device or FIFO written in place, anything else refused.
#include "runtime/core/atomic_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "runtime/core/error.h"
#include "runtime/core/temp_file_cleanup.h"

namespace superopt {
namespace {

[[noreturn]] void fail(const std::string& path, int error_number) {
  throw Error("cannot write " + path + ": " + std::strerror(error_number));
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw Error("cannot write " + path + ": " + why);
}

// Returns 0 or the errno of the failed write.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

// The temporary file, removed unless it has been renamed into place, also when
// SIGINT, SIGTERM or SIGHUP ends the process meanwhile (temp_file_cleanup.h).
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) : path_(target + ".tmp-XXXXXX") {
    fd_ = on_signal_.create(path_);
    if (fd_ < 0) fail(target, errno);
    // mkstemp makes the file private (0600); an output is as readable as any new file.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) std::remove(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  int write_all(std::string_view bytes) { return superopt::write_all(fd_, bytes); }
  // fsync before the rename: otherwise a crash soon after could leave the new
  // name on an empty file. close() reports errors of delayed writes (NFS).
  int sync_and_close() {
    int result = ::fsync(fd_) == 0 ? 0 : errno;
    if (::close(fd_) != 0 && result == 0) result = errno;
    fd_ = -1;
    return result;
  }
  int rename_to(const std::string& target) {
    if (std::rename(path_.c_str(), target.c_str()) != 0) return errno;
    renamed_ = true;
    return 0;
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool renamed_ = false;
  TempFileCleanup on_signal_;
};

// Makes the rename itself durable; a failure here loses nothing already written.
void sync_folder(const std::string& path) {
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Blocks SIGPIPE in this thread while it lasts, so that a FIFO's reader going
// away fails the write with EPIPE (one line) instead of killing the process;
// a SIGPIPE raised meanwhile is taken off before the old mask returns.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    const timespec now{};
    while (sigtimedwait(&pipe_, nullptr, &now) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_, old_;
};

// A character device (/dev/null, a terminal) or a FIFO cannot be replaced by a
// rename: that would put a regular file where the system's /dev/null was. It is
// written in place instead. O_NONBLOCK makes the open of a FIFO without a
// reader fail at once (ENXIO) rather than wait forever; the writes then block
// again, so that a slow reader is waited for and nothing is lost.
void write_in_place(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO) refuse(path, "a FIFO with no reader");
  if (fd < 0) fail(path, errno);
  struct stat st {};
  int e = ::fstat(fd, &st) != 0 ? errno : 0;
  if (e == 0 && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) e = EINVAL;  // replaced since stat()
  if (e == 0 && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) e = errno;
  if (e == 0) {
    SigpipeBlocked blocked;
    e = write_all(fd, bytes);
  }
  if (::close(fd) != 0 && e == 0) e = errno;
  if (e) fail(path, e);
}

// What PATH is, for a refusal: anything but a regular file, a character device
// or a FIFO (a block device, a socket) is not an output. A directory gets the
// system's own words (EISDIR), as the rename over it used to give.
std::string kind_of(mode_t mode) {
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// A read-only file is kept, not replaced: the rename needs only the folder's
// permission, so the file's own must be checked. access() is true for root on
// any mode, hence the mode bits too.
void require_writable(const std::string& path, const struct stat& st) {
  const bool no_write_bits = (st.st_mode & 0222) == 0;
  if (!no_write_bits && ::access(path.c_str(), W_OK) == 0) return;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  // Which: a file without write bits, or one whose write bits are not ours (uid, gid).
  if (no_write_bits) refuse(path, std::string("the file is read-only (mode ") + mode + "), not replaced");
  refuse(path, std::string("the file is not writable by this user (mode ") + mode + ", owner uid " +
                   std::to_string(st.st_uid) + "), not replaced");
}

// Refuses what write_file_atomically never replaces; true for a character
// device or a FIFO (written in place).
bool check_existing_output(const std::string& path, const struct stat& st) {
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return true;
  if (S_ISDIR(st.st_mode)) fail(path, EISDIR);
  if (!S_ISREG(st.st_mode)) refuse(path, kind_of(st.st_mode) + ", not a regular file");
  require_writable(path, st);
  return false;
}

}  // namespace

void check_output_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) check_existing_output(path, st);
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  struct stat st {};
  // stat follows links: a link to /dev/null writes /dev/null.
  if (::stat(path.c_str(), &st) == 0 && check_existing_output(path, st)) return write_in_place(path, bytes);
  TemporaryFile temp(path);
  if (int e = temp.write_all(bytes)) fail(path, e);
  if (int e = temp.sync_and_close()) fail(path, e);
  if (int e = temp.rename_to(path)) fail(path, e);
  sync_folder(path);
}

}  // namespace superopt
