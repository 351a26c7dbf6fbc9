// The papers' models, built in code with their exact parameters (TASO,
// MetaFlow, OCGGS), and one loader for "builtin:NAME", an ONNX model or a graph file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/formats/onnx_read.h"

namespace superopt {

// Names accepted after "builtin:", e.g. "resnet50", "bert", "resnet_blocks:K".
std::vector<std::string> builtin_model_names();

// Builds a builtin model by name ("resnet50", "resnet_blocks:4"). Weights carry
// no data (they are seeded random values when run). Throws Error naming the
// model and listing the known ones when the name is unknown.
Graph build_builtin_model(std::string_view name);

// A model with the names it came with.
struct LoadedModel {
  std::string name;  // the builtin's or the file's graph name
  Graph graph;
  std::vector<std::string> output_names;  // ONNX models: the outputs' names; else empty
};

// "builtin:NAME" builds a model, a path ending in ".onnx" is imported as ONNX
// (with `options`; its weights carry their data), anything else is read as a
// graph file. Throws Error when options are given for a model that is not ONNX.
LoadedModel load_named_model(const std::string& spec, const OnnxImportOptions& options = {});
Graph load_model(const std::string& spec, const OnnxImportOptions& options = {});

}  // namespace superopt
