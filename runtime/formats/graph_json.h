// Graph files: reading and writing the JSON graph format (version 1), with
// one-line errors that name the file, the entry and the field at fault.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/graph.h"

namespace superopt {

// Format, version 1 (see also data/graphs/README.md):
//
//   {
//     "format": "superopt-graph", "version": 1, "name": "example",
//     "description": "optional free text",
//     "inputs":  [{"name": "x", "shape": [1, 256, 14, 14]}],
//     "weights": [{"name": "w1", "shape": [64, 256, 1, 1]},
//                 {"name": "s", "shape": [], "data": [0.5]}],
//     "nodes": [
//       {"name": "c1", "op": "conv2d", "inputs": ["x", "w1"],
//        "params": {"stride": [1, 1], "padding": "same", "activation": "relu"}},
//       {"name": "sp", "op": "split", "inputs": ["cat"], "params": {"axis": 1}}
//     ],
//     "outputs": ["c1", "sp:1"]
//   }
//
// - "format" and "version" are required and must be exactly as above;
//   "name" and "description" are optional strings; "inputs", "weights" and
//   "nodes" default to empty; "outputs" must list at least one tensor.
// - Every input, weight and node has a unique, non-empty name without ':'.
// - A tensor reference is a name, or "name:K" for output K of a multi-output
//   operator (split has outputs 0 and 1); "name" means "name:0".
// - Shapes are arrays of at most 6 positive integers; [] is a scalar.
// - Weight "data", when given, lists all elements in row-major order.
// - A node's "op" is an operator name from the registry other than input and
//   weight (those live in their own arrays); constants (C_pool, I_conv,
//   I_matmul, I_ewmul) are nodes without inputs.
// - "params" holds exactly parameters the operator takes:
//     shape [ints]            constants, reshape, opaque (required)
//     perm [ints]             transpose (default: reverse the dimensions)
//     kernel [h, w]           pool_avg, pool_max, enlarge (required)
//     stride [h, w]           conv2d, pooling (default [1, 1])
//     padding "same"|"valid"  conv2d, pooling (default "same")
//     activation "none"|"relu"|"sigmoid"|"silu"|"hardswish"|"gelu"|"relu6" conv2d (default "none")
//     axis int                concat, split (required); softmax (default
//                             last); negative counts from the back of the
//                             first input's shape
//     epsilon number          batchnorm (default 1e-5)
// - Nodes may appear in any order; references must not form a cycle.
// - Unknown fields, unknown parameters and wrong types are errors.

// Errors are superopt::Error with a one-line message naming the file, the
// entry and the field, or the line:column where the JSON text goes wrong:
//   f.json: nodes[3] ("conv2"): params.stride: expected an array of 2 positive integers, got "2"
//   f.json:12:5: JSON syntax error while parsing object - unexpected '}'; expected string literal
// Duplicate keys and nesting deeper than 32 levels are errors too.
Graph read_graph_json(std::string_view text, std::string_view source_name);

// Reads and parses a file; "cannot open FILE: reason" when it cannot be read.
Graph read_graph_file(const std::string& path);

// A graph file's content together with its optional name.
struct NamedGraph {
  std::string name;
  Graph graph;
};
NamedGraph read_named_graph_json(std::string_view text, std::string_view source_name);
NamedGraph read_named_graph_file(const std::string& path);

// Writes one entry per line: inputs and weights in graph order, nodes in
// dependency order (graph order where that is one already, so that writing
// a graph read from a written file gives the same text). Every parameter the
// operator takes is written; a file's "description" is not kept.
// Unnamed nodes, and nodes whose name is unusable or taken, get "n<id>".
// read_graph_json(write_graph_json(g)) is structurally equal to g, with the
// same names, parameters, weight data (bit for bit) and outputs. Throws Error
// for a cyclic graph, one without outputs, or weight data JSON cannot hold (NaN, inf).
std::string write_graph_json(const Graph& g, std::string_view graph_name = {});

}  // namespace superopt
