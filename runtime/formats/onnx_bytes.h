// Importing an ONNX model held in memory (a serialized ModelProto), as the
// Python package gets it from torch.onnx.export into a buffer.
#pragma once

#include <string>
#include <string_view>

#include "runtime/formats/onnx_read.h"

namespace superopt {

// As read_onnx_file, from the model's bytes; errors start with `source_name`
// instead of a path. External data files cannot be found (there is no folder
// beside a buffer): a model that refers to one is refused as a file would be
// without them.
OnnxModel read_onnx_bytes(std::string_view bytes, const std::string& source_name,
                          const OnnxImportOptions& options = {});

}  // namespace superopt
