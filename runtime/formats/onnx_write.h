// Exporting graphs as ONNX models (opset 13): weights with data become
// initializers, and so do weight-only operators on them (computed once: the
// optimizer's enlarged, concatenated and merged kernels), weights without data
// (builtin models) graph inputs, TASO's
// constants initializers with their values, and each operator the ONNX nodes
// that compute the same thing. The model passes onnx::checker before it is written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

inline constexpr int kOnnxExportOpset = 13;

// The serialized model. output_names names the graph outputs in order (an
// imported model's own names); when empty, outputs are named after their nodes.
// Throws Error for an operator ONNX cannot express (opaque), or merge_groups
// on a weight without data.
std::string onnx_model_bytes(const Graph& g, const std::vector<std::string>& output_names = {},
                             std::string_view graph_name = {});

// A model and, where it would pass `external_above_bytes` serialized (protobuf
// holds at most 2 GB: regnet_y_128gf optimized is 2.6 GB), its initializers'
// values as ONNX external data: `data`, to be written beside the model as
// `data_location` (a name relative to the model's folder). `data` is empty
// when the model holds its values itself.
struct OnnxModelFiles {
  std::string model, data;
};
inline constexpr size_t kOnnxExternalAboveBytes = size_t{1} << 30;
OnnxModelFiles onnx_model_files(const Graph& g, const std::string& data_location,
                                const std::vector<std::string>& output_names = {},
                                std::string_view graph_name = {},
                                size_t external_above_bytes = kOnnxExternalAboveBytes);

}  // namespace superopt
