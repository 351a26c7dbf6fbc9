// Writing a model file by its extension: ONNX for ".onnx", else the JSON graph
// format. Written to a temporary file beside the target and renamed, so that a
// failure leaves nothing behind.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

// Throws Error "cannot write PATH: reason" or the writer's own error.
void write_model_file(const std::string& path, const Graph& g, const std::string& name,
                      const std::vector<std::string>& output_names = {});

}  // namespace superopt
