// Importing ONNX models (opsets 11 to 17) as graphs whose weights carry the
// model's data: shape computations on constants are folded, nodes may come in
// any order, and every operator maps onto the registry's (or the import stops
// with one line naming the operator, the node and the opset).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

struct OnnxImportOptions {
  // Shapes for inputs by name: required for inputs with a dynamic dimension,
  // and must agree with the static ones (--input-shape NAME=1x3x224x224).
  std::vector<std::pair<std::string, Shape>> input_shapes;
};

struct OnnxModel {
  std::string name;                       // the graph's name in the file
  Graph graph;                            // outputs in the model's order
  std::vector<std::string> output_names;  // the model's output names, in order
  int onnx_nodes = 0;                     // nodes in the file
  int opset = 0;                          // of the default domain
};

inline constexpr int kMinOnnxOpset = 11;
inline constexpr int kMaxOnnxOpset = 17;

// Reads an .onnx file (with external data files beside it). Throws Error with
// one line starting with the path: not a model, opset outside 11..17, a cycle,
// an unsupported operator, a dynamic input without a shape, data that does not
// fit its shape, missing external data, shapes that do not fit an operator.
OnnxModel read_onnx_file(const std::string& path, const OnnxImportOptions& options = {});

// Whether a model spec names an ONNX file (ends in ".onnx").
bool is_onnx_path(const std::string& spec);

// "NAME=1x3x224x224" as a name and a shape; throws Error naming the flag.
std::pair<std::string, Shape> parse_input_shape(const std::string& text);

}  // namespace superopt
