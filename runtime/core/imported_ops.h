// Shape inference of the operators only imported models use (pad, slice,
// reduce_mean, layer_norm, expand, resize), kept apart from the registry's table so that each file stays
// short.
#pragma once

#include <span>
#include <string>

#include "runtime/core/operator_registry.h"

namespace superopt {
namespace registry_detail {

// Records why the inputs do not fit in c; returns false, so that a shape rule
// ends with `return fail(c, why)`.
bool fail(ShapeCheck& c, std::string why);

}  // namespace registry_detail

// The output of pad, slice, reduce_mean, layer_norm, expand or resize; false (c
// says why) when the input does not fit.
bool infer_reshaping_import(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
                            TensorDesc& out, ShapeCheck& c);

}  // namespace superopt
