// Writing a model file by its extension: ONNX for ".onnx", else the JSON graph
// format. Written to a temporary file beside the target and renamed, so that a
// failure leaves nothing behind.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/formats/onnx_write.h"

namespace superopt {

// Throws Error "cannot write PATH: reason" or the writer's own error. An ONNX
// model that would serialize past `onnx_external_above_bytes` keeps its
// initializers' values in PATH.data (ONNX external data; onnx_write.h); a
// smaller one removes a PATH.data left by the model it replaced.
void write_model_file(const std::string& path, const Graph& g, const std::string& name,
                      const std::vector<std::string>& output_names = {},
                      size_t onnx_external_above_bytes = kOnnxExternalAboveBytes);

}  // namespace superopt
