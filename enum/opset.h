// Operator sets: the operators, parameter values and input tensors the rule generator enumerates over.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/operator_registry.h"

namespace superopt::enumeration {

// Format, version 1 (see also data/opsets/README.md):
//
//   {
//     "format": "superopt-opset", "version": 1, "name": "taso",
//     "description": "optional free text",
//     "sources": [
//       {"name": "x", "count": 3, "kind": "input", "shape": [2, 4]},
//       {"name": "s", "kind": "weight", "shape": []}
//     ],
//     "operators": [
//       {"op": "matmul"},
//       {"op": "conv2d", "params": [{"stride": [1, 1], "padding": "same", "activation": "none"},
//                                   {"stride": [1, 1], "padding": "same", "activation": "relu"}]},
//       {"op": "enlarge", "params": [{"kernel": [3, 3]}], "sources_only": true},
//       {"op": "concat", "params": [{"axis": 0}, {"axis": 1}]},
//       {"op": "I_ewmul", "params": [{"shape": [2, 4]}, {"shape": [2, 4, 5, 5]}]}
//     ]
//   }
//
// - "format", "version" and a non-empty "name" are required; "description" is
//   an optional string; "sources" and "operators" are non-empty arrays.
// - A source has a "name" (non-empty, no ':'), a "kind" ("input" or "weight")
//   and a "shape" (at most 6 positive integers; [] is a scalar).
// - "count": N (1 to 64) expands a source into name1..nameN. Each source
//   entry is one interchange class, numbered in file order from 0: the N
//   copies share it, every other entry has its own. Expanded names must be
//   unique.
// - An operator's "op" is a registry operator other than input, weight and
//   opaque. "params" is a non-empty array of parameter objects (the keys of
//   graph files' node params); each one is a variant. Without "params" the
//   operator has one variant with default parameters, which is an error where
//   a parameter is required (shape, kernel, axis). An axis must be given
//   (softmax too) and lie in 0..5: without an input rank there is no negative
//   or last axis. The same operator with equal parameters twice is an error.
//   "sources_only" (default false) restricts the inputs to sources; "rank": N
//   (optional) restricts every input to rank N; "inputs": N (optional, default
//   the operator's fewest) the number of inputs, "inputs": 3 for a conv2d with
//   its bias [O].
// - TASO's constants (C_pool, I_conv, I_matmul, I_ewmul) are operators, not
//   sources: as in TASO's generator, a graph that uses one spends an operator
//   materialising it. Each variant's "shape" must have the operator's form
//   (C_pool [C,1,kh,kw], I_conv [C,C/g,kh,kw] with odd kh, kw, I_matmul square
//   in its last two dimensions).
// - Unknown fields, unknown parameters and wrong types are errors.

// A tensor graphs may read: a graph input or a weight (a one-element weight is
// the scalar of smul). TASO's constants are operators (OpsetOperator).
struct OpsetSource {
  std::string name;             // "x1", "w2"
  OpType kind = OpType::input;  // input or weight
  Shape shape;
  // Sources with equal class are interchangeable (same kind, shape and role):
  // a canonical graph uses them in index order. Distinct for everything else.
  int interchange_class = 0;
};

// One operator with one choice of parameters.
struct OpsetOperator {
  OpType op = OpType::relu;
  OpParams params;            // axis already non-negative; a transpose's perm may be unset (reverse);
                              // a constant's shape valid for it
  bool sources_only = false;  // may read only sources (TASO applies enlarge to inputs only)
  int input_rank = 0;         // every input has this rank; 0: any
  int num_inputs = 0;         // inputs it takes (3: a conv2d with its bias); 0: the operator's fewest

  int arity() const { return num_inputs ? num_inputs : op_info(op).min_inputs; }
};

struct Opset {
  std::string name;
  std::vector<OpsetSource> sources;
  std::vector<OpsetOperator> operators;
  std::string text;  // the file, verbatim (stored in rule databases)
};

// Sources are in file order with counts expanded; operators hold one entry per
// variant, in file order. Throws Error naming the file, the entry and the
// problem on one line, e.g.
//   taso.json: operators[3] ("conv2d"): params[1].stride: expected an array of 2 positive integers, got 1
// or the line:column of a JSON syntax error.
Opset parse_opset(std::string_view text, std::string_view source_name);
Opset read_opset_file(const std::string& path);

}  // namespace superopt::enumeration
