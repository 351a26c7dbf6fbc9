// Shape inference of the operators only imported models use (pad, slice,
// reduce_mean), kept apart from the registry's table so that each file stays short.
#pragma once

#include <span>
#include <string>

#include "runtime/core/operator_registry.h"

namespace superopt {
namespace registry_detail {

// Throws Error "OP: why (inputs SHAPES)", the registry's one message format.
[[noreturn]] void fail(OpType op, std::span<const TensorDesc* const> inputs, const std::string& why);

}  // namespace registry_detail

// The output of pad, slice or reduce_mean; throws Error when the input does not fit.
void infer_reshaping_import(OpType op, const OpParams& p, std::span<const TensorDesc* const> in,
                            TensorDesc& out);

}  // namespace superopt
