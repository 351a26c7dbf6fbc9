// Operator parameters in JSON: the one reader and writer shared by graph files,
// operator-set files and anything else that names an operator's parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/core/operator_registry.h"
#include "runtime/formats/json_text.h"

namespace superopt {

// What a "params" object says. The axis stays as written (it may be negative)
// because only the reader knows the rank to normalise it against; params.axis
// keeps its default.
struct ParsedParams {
  OpParams params;
  std::optional<int64_t> axis;
};

// Reads the "params" object of an operator; v is null when the field is absent.
// Accepts only parameters the operator takes, requires shape and kernel where
// taken and the axis of concat and split, and leaves the rest at their defaults.
// `field` names the object in errors: "FILE: ENTRY: params.stride: why".
ParsedParams read_op_params(OpType op, const json::Json* v, const json::Where& w,
                            std::string_view field = "params");

// Every parameter the operator takes, written explicitly, except a transpose's
// unset perm (meaning: reverse), which has no spelling.
json::Json op_params_json(OpType op, const OpParams& p);

// [d0, d1, ...]; [] for a scalar.
json::Json shape_json(const Shape& s);

}  // namespace superopt
