// write_file_atomically (atomic_file.h): temporary file, fsync, rename.
#include "runtime/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "runtime/core/error.h"

namespace superopt {
namespace {

[[noreturn]] void fail(const std::string& path, int error_number) {
  throw Error("cannot write " + path + ": " + std::strerror(error_number));
}

// The temporary file, removed unless it has been renamed into place.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) : path_(target + ".tmp-XXXXXX") {
    fd_ = ::mkstemp(path_.data());
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

  // Returns 0 or the errno of the failed write.
  int write_all(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return 0;
  }
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
};

// Makes the rename itself durable; a failure here loses nothing already written.
void sync_folder(const std::string& path) {
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  TemporaryFile temp(path);
  if (int e = temp.write_all(bytes)) fail(path, e);
  if (int e = temp.sync_and_close()) fail(path, e);
  if (int e = temp.rename_to(path)) fail(path, e);
  sync_folder(path);
}

}  // namespace superopt
