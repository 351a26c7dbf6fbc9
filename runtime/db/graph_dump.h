// `superopt graph run --dump FILE.h5`: a graph's source values and outputs as
// float64 HDF5 datasets, so that another implementation (scripts/bench/torch_models.py)
// can run the same model on the same values and compare every output.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/tensor.h"

namespace superopt {

// One named tensor: a source's node name, or an output's tensor label ("sp:1").
using NamedTensor = std::pair<std::string, Tensor<double>>;

// Writes PATH atomically. Layout (format "superopt-graph-dump", version 1):
//   attributes format, format_version, description, model, seed
//   /sources/NAME   every input and weight, with the tensor's shape (scalars as HDF5 scalars)
//   /outputs/LABEL  every graph output, likewise
//   /output_order   the output labels in graph order (strings)
// Throws Error "cannot write PATH: ..." when the file cannot be written.
void write_graph_dump(const std::string& path, const std::string& model, uint64_t seed,
                      const std::vector<NamedTensor>& sources, const std::vector<NamedTensor>& outputs);

}  // namespace superopt
