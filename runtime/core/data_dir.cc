// The data and axiom folders: an environment variable, else the install layout
// next to the binary, else the source tree when run from its build tree.
#include "runtime/core/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "runtime/core/error.h"

// Set by runtime/core/CMakeLists.txt; the defaults keep a hand-compiled file building.
#ifndef SUPEROPT_SOURCE_DATA_DIR
#define SUPEROPT_SOURCE_DATA_DIR "data"
#endif
#ifndef SUPEROPT_SOURCE_AXIOM_DIR
#define SUPEROPT_SOURCE_AXIOM_DIR "verify/axioms"
#endif
#ifndef SUPEROPT_BUILD_DIR
#define SUPEROPT_BUILD_DIR ""
#endif
#ifndef SUPEROPT_SHARE_FROM_BIN
#define SUPEROPT_SHARE_FROM_BIN "../share/superopt"
#endif

namespace superopt {
namespace {

namespace fs = std::filesystem;

// The folder holding the running binary; empty when /proc/self/exe is unreadable.
fs::path binary_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// Whether `dir` lies under the build tree this binary was compiled in.
bool inside_build_tree(const fs::path& dir) {
  std::error_code ec;
  fs::path build = fs::weakly_canonical(SUPEROPT_BUILD_DIR, ec);
  if (ec || build.empty() || std::string(SUPEROPT_BUILD_DIR).empty()) return false;
  fs::path rel = fs::weakly_canonical(dir, ec).lexically_relative(build);
  return !ec && !rel.empty() && *rel.begin() != "..";
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// The lookup of data_dir.h for one folder: `variable`, then BIN/<share>/`installed`,
// then `source` when the binary runs from its build tree.
std::string find_folder(const char* variable, const char* installed, const char* source) {
  if (const char* env = std::getenv(variable); env && *env) {
    if (!is_dir(env))
      throw Error(std::string("no data folder: $") + variable + "=" + env + " is not a folder");
    return env;
  }
  std::string tried;
  fs::path bin = binary_dir();
  if (!bin.empty()) {
    fs::path share = (bin / SUPEROPT_SHARE_FROM_BIN / installed).lexically_normal();
    if (is_dir(share)) return share.string();
    tried = share.string();
    if (inside_build_tree(bin)) {
      if (is_dir(source)) return source;
      tried += std::string(", ") + source;
    }
  }
  throw Error(std::string("no data folder: tried ") + (tried.empty() ? "nothing" : tried) + " (set $" +
              variable + ")");
}

}  // namespace

std::string data_dir() {
  return find_folder("SUPEROPT_DATA_DIR", "data", SUPEROPT_SOURCE_DATA_DIR);
}

std::string data_path(std::string_view relative) {
  return data_dir().append("/").append(relative);
}

std::string axiom_dir() {
  return find_folder("SUPEROPT_AXIOM_DIR", "axioms", SUPEROPT_SOURCE_AXIOM_DIR);
}

}  // namespace superopt
