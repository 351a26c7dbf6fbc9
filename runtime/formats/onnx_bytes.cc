// Importing an ONNX model from memory (onnx_bytes.h). The importer reads files
// (onnx_read.cc): the bytes go into a fresh private folder, alone, so that no
// external data file can be found beside them, and the folder goes afterwards.
#include "runtime/formats/onnx_bytes.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/core/error.h"

namespace superopt {
namespace {

namespace fs = std::filesystem;

// A folder only this process uses, removed when it goes out of scope.
class PrivateFolder {
 public:
  PrivateFolder() {
    std::string pattern = (fs::temp_directory_path() / "superopt-onnx-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw Error(std::string("cannot make a temporary folder: ") + std::strerror(errno));
    path_ = pattern;
  }
  ~PrivateFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

OnnxModel read_onnx_bytes(std::string_view bytes, const std::string& source_name,
                          const OnnxImportOptions& options) {
  PrivateFolder folder;
  const std::string file = (folder.path() / "model.onnx").string();
  {
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out.flush()) throw Error(source_name + ": cannot write a temporary copy: " + std::strerror(errno));
  }
  try {
    return read_onnx_file(file, options);
  } catch (const Error& e) {
    std::string message = e.what();  // "FILE: reason": name the source instead of the copy
    if (message.rfind(file, 0) == 0) message = source_name + message.substr(file.size());
    throw Error(message);
  }
}

}  // namespace superopt
