// Reading input files whole, safely (see regular_file.h).
#include "runtime/core/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/error.h"

namespace superopt {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

int open_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error("cannot open " + path + ": " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) throw Error("cannot open " + path + ": is a directory");
    throw Error("cannot open " + path + ": not a regular file (" + kind_of(st.st_mode) + ")");
  }
  if (uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    throw Error(path + ": " + std::to_string(st.st_size) + " bytes, over the limit of " +
                std::to_string(max_bytes) + " bytes for " + what);
  }
  // Blocking again for the reads (a regular file never blocks, but protobuf's
  // streams treat EAGAIN as an error).
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
  const int fd = open_regular_file(path, max_bytes, what);
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw Error("cannot read " + path + ": " + std::strerror(e));
    }
    if (n == 0) break;
    bytes.append(buffer, size_t(n));
    if (bytes.size() > max_bytes) {  // grew while we read
      ::close(fd);
      throw Error(path + ": over the limit of " + std::to_string(max_bytes) + " bytes for " + what);
    }
  }
  ::close(fd);
  return bytes;
}

}  // namespace superopt
