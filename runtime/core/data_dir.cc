// The data and axiom folders: an environment variable, else the build-time path.
#include "runtime/core/data_dir.h"

#include <cstdlib>

#ifndef SUPEROPT_DATA_DIR
#define SUPEROPT_DATA_DIR "data"
#endif
#ifndef SUPEROPT_AXIOM_DIR
#define SUPEROPT_AXIOM_DIR "verify/axioms"
#endif

namespace superopt {
namespace {

std::string from_env(const char* variable, const char* fallback) {
  const char* env = std::getenv(variable);
  return env && *env ? env : fallback;
}

}  // namespace

std::string data_dir() {
  return from_env("SUPEROPT_DATA_DIR", SUPEROPT_DATA_DIR);
}

std::string data_path(std::string_view relative) {
  return data_dir().append("/").append(relative);
}

std::string axiom_dir() {
  return from_env("SUPEROPT_AXIOM_DIR", SUPEROPT_AXIOM_DIR);
}

}  // namespace superopt
