// libFuzzer harness: ONNX models (runtime/formats/onnx_read.h), read by every
// command that takes a model; the bytes become a .onnx file our reader opens.
// The model's folder has neighbours that external data locations can name
// (issue 37): a link inside the folder, a link out of it, a link to a folder
// outside, a FIFO, and the model under its seed's name; the seeds made by
// make_external_seeds.py name each.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/formats/onnx_read.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// SCRATCH/model/, with its neighbours, made once; returns the folder.
const std::filesystem::path& model_dir() {
  namespace fs = std::filesystem;
  static const fs::path dir = [] {
    const fs::path scratch = superopt::fuzz::scratch_dir();
    const fs::path model = scratch / "model";
    fs::create_directories(model);
    fs::create_directories(scratch / "outside");
    // 64 bytes outside the model's folder: what a link out of it would read.
    std::ofstream(scratch / "outside" / "help.txt", std::ios::binary) << std::string(64, '\x01');
    std::ofstream(model / "weights.bin", std::ios::binary) << std::string(64, '\0');
    std::error_code ignored;
    fs::create_symlink("weights.bin", model / "link_inside", ignored);
    fs::create_symlink("../outside/help.txt", model / "link_outside", ignored);
    fs::create_symlink("../outside", model / "outside_dir", ignored);
    fs::create_symlink("model.onnx", model / "onnx_external_self.onnx", ignored);  // that seed's own name
    if (::mkfifo((model / "weights.fifo").c_str(), 0600) != 0 && errno != EEXIST) abort();
    return model;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace superopt;
  model_dir();
  std::string path = fuzz::input_file(data, size, "model/model.onnx");
  fuzz::expect_clean([&] { read_onnx_file(path); });
  return 0;
}
