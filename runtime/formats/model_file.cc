// Choosing the writer by extension; the bytes are written atomically (atomic_file.h).
#include "runtime/formats/model_file.h"

#include <filesystem>

#include "runtime/core/atomic_file.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/onnx_read.h"
#include "runtime/formats/onnx_write.h"

namespace superopt {

void write_model_file(const std::string& path, const Graph& g, const std::string& name,
                      const std::vector<std::string>& output_names, size_t onnx_external_above_bytes) {
  if (!is_onnx_path(path)) return write_file_atomically(path, write_graph_json(g, name));
  // A model past protobuf's limit keeps its values in PATH.data beside it; the
  // data first, so that a model file never names data that is not there.
  const std::string data_name = std::filesystem::path(path).filename().string() + ".data";
  OnnxModelFiles files = onnx_model_files(g, data_name, output_names, name, onnx_external_above_bytes);
  const bool external = !files.data.empty();
  if (external) {
    write_file_atomically(path + ".data", files.data);
    std::string().swap(files.data);
  }
  write_file_atomically(path, files.model);
  // A self-contained model over one that kept its values beside it: that
  // PATH.data is no model's now (removed after the model is in place, so that
  // a failure leaves the old pair whole).
  std::error_code ignored;
  if (!external) std::filesystem::remove(path + ".data", ignored);
}

}  // namespace superopt
