// Choosing the writer by extension; the bytes are written atomically (atomic_file.h).
#include "runtime/formats/model_file.h"

#include "runtime/core/atomic_file.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/onnx_read.h"
#include "runtime/formats/onnx_write.h"

namespace superopt {

void write_model_file(const std::string& path, const Graph& g, const std::string& name,
                      const std::vector<std::string>& output_names) {
  const std::string bytes =
      is_onnx_path(path) ? onnx_model_bytes(g, output_names, name) : write_graph_json(g, name);
  write_file_atomically(path, bytes);
}

}  // namespace superopt
