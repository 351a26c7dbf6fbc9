// The papers' models, built in code with their exact parameters (TASO,
// MetaFlow, OCGGS), and one loader for "builtin:NAME" or a graph file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

// Names accepted after "builtin:", e.g. "resnet50", "bert", "resnet_blocks:K".
std::vector<std::string> builtin_model_names();

// Builds a builtin model by name ("resnet50", "resnet_blocks:4"). Weights carry
// no data (they are seeded random values when run). Throws Error naming the
// model and listing the known ones when the name is unknown.
Graph build_builtin_model(std::string_view name);

// "builtin:NAME" builds a model; anything else is read as a graph file.
Graph load_model(const std::string& spec);

}  // namespace superopt
