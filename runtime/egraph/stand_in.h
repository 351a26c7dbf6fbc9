// A tensor of a scratch graph standing for an e-class: an input of its shape,
// or, where its descriptor carries a split tree, a concat of two inputs at the
// tree's most recent split point, so that a split of it has the shapes the
// class's own split would have (older split history is not reproduced).
#pragma once

#include <string>

#include "runtime/core/graph.h"

namespace superopt::egraph {

TensorRef stand_in(Graph& scratch, const TensorDesc& desc, const std::string& name);

}  // namespace superopt::egraph
