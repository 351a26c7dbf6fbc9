// What makes an ONNX model invalid (issue 37, item 6): names given twice (two
// nodes writing one value, two initializers or two inputs of one name, an input
// an initializer shadows with another shape) and onnx::checker, before anything
// is imported; ONNX's shape inference in strict mode and the graph outputs'
// declared shapes and element types against ours, after the import.
// Internal to runtime/formats.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt::onnx_import {

// Refuses a value name given twice: by two nodes, two initializers, two graph
// inputs, or an input and an initializer whose shapes or element types differ.
// Each message names the value (and the nodes).
void check_unique_names(const onnx::GraphProto& g);

// Puts the nodes in an order where each comes after the nodes it reads (file
// order among ready ones), as ONNX requires and the checker insists on; ours
// accepts any order. Throws Error on a cycle or a value nothing gives.
void sort_nodes(onnx::GraphProto& g);

// onnx::checker on a model whose nodes are sorted; external data is looked for
// in `model_dir`. Graph outputs without a shape are not asked for one (ONNX
// allows them). Throws Error with ONNX's first line.
void check_with_onnx_checker(onnx::ModelProto& model, const std::string& model_dir);

// What ONNX's shape inference needs of a model, taken before the import
// releases the weights' data: initializers over kInferenceDataBytes without
// their values, the outputs untyped.
inline constexpr size_t kInferenceDataBytes = size_t(1) << 20;
onnx::ModelProto inference_copy(const onnx::ModelProto& model);

// ONNX's shape inference in strict mode (node-level errors, inferred types and
// shapes that contradict declared ones) on an inference_copy. Run after our
// import has succeeded: libonnx 1.12's inference functions trust what the
// checker cannot see (Conv's with a rank-3 input and a rank-4 kernel crashed
// in convPoolShapeInference), our mappers' shape checks come first.
void check_with_onnx_inference(onnx::ModelProto& copy);

// Each declared output's element type is real and its static dimensions are
// ours: throws Error naming the output, the declared and the computed shape.
void check_declared_outputs(const std::vector<onnx::ValueInfoProto>& declared, const Graph& graph);

}  // namespace superopt::onnx_import
