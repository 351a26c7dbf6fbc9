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

}  // namespace superopt
