// What makes an ONNX model invalid, refused before anything is imported (issue
// 37, item 6): names given twice (two nodes writing one value, two initializers
// or two inputs of one name, an input an initializer shadows with another shape),
// then onnx::checker and ONNX's shape inference in strict mode; and, after the
// import, the graph outputs' declared shapes and element types against ours.
// Internal to runtime/formats.
#pragma once

#include <onnx/onnx_pb.h>

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

// onnx::checker and strict shape inference (node-level inference errors and
// inferred types that contradict declared ones are errors) on a model whose nodes
// are sorted; external data is looked for in `model_dir`. The graph outputs'
// declared types are set aside meanwhile (check_declared_outputs names a
// mismatch better than ONNX does) and outputs left without a shape are not
// asked for one. Throws Error with ONNX's first line.
void check_with_onnx(onnx::ModelProto& model, const std::string& model_dir);

// Each declared output's element type is real and its static dimensions are
// ours: throws Error naming the output, the declared and the computed shape.
void check_declared_outputs(const std::vector<onnx::ValueInfoProto>& declared, const Graph& graph);

}  // namespace superopt::onnx_import
