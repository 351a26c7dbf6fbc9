// What every libFuzzer harness of tests/fuzz/ shares: our one-line Error is
// the normal answer to bad input, anything else (a crash, a sanitizer report,
// another exception escaping, a hang) is a finding; and a scratch folder for
// the readers that take a path (HDF5, ONNX, device profiles).
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "runtime/core/error.h"

namespace superopt::fuzz {

// Runs a reader on one input; an Error is the clean rejection the command line
// turns into exit 2. Other exceptions escape and libFuzzer reports them.
template <class Read>
void expect_clean(Read&& read) {
  try {
    read();
  } catch (const Error&) {
  }
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A folder of this process's own under the temporary directory, removed at exit.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "superopt-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) abort();
    std::atexit([] { std::filesystem::remove_all(scratch_dir()); });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

// Writes the input to SCRATCH/NAME (replacing the last one) and returns the path,
// for the readers that open a file themselves, as the binary does.
inline std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  std::string path = (scratch_dir() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) abort();  // the scratch folder itself failed: not a finding in our readers
  return path;
}

}  // namespace superopt::fuzz
