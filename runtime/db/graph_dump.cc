// Writing a graph's source values and outputs as float64 HDF5 datasets (see graph_dump.h).
#include "runtime/db/graph_dump.h"

#include <algorithm>
#include <vector>

#include "runtime/db/hdf5_io.h"

namespace superopt {
namespace {

// An N-D float64 dataset with the tensor's own shape, so that h5py reads it as is.
void write_tensor(const hdf5::Writer& w, hid_t group, const std::string& name, const Tensor<double>& t) {
  std::vector<hsize_t> dims;
  for (int i = 0; i < t.shape.rank(); ++i) dims.push_back(static_cast<hsize_t>(t.shape[i]));
  hdf5::Handle space =
      w.check(dims.empty() ? H5Screate(H5S_SCALAR)
                           : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
              name);
  hdf5::Handle set = w.check(
      H5Dcreate2(group, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
  if (!t.data.empty())
    w.check(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data.data()), name);
}

}  // namespace

void write_graph_dump(const std::string& path, const std::string& model, uint64_t seed,
                      const std::vector<NamedTensor>& sources, const std::vector<NamedTensor>& outputs) {
  hdf5::write_atomically(path, [&](const hdf5::Writer& w) {
    w.format_header(
        "superopt-graph-dump", 1,
        "inputs, weights and outputs of one CPU reference run in double (superopt graph run --dump)");
    w.attribute(w.file(), "model", model);
    w.attribute(w.file(), "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, &seed);
    hdf5::Handle source_group = w.group("sources");
    for (const auto& [name, t] : sources) write_tensor(w, source_group, name, t);
    hdf5::Handle output_group = w.group("outputs");
    std::vector<std::string> order;
    for (const auto& [name, t] : outputs) {
      // A tensor listed twice among the outputs is stored once and named twice in the order.
      if (std::find(order.begin(), order.end(), name) == order.end()) write_tensor(w, output_group, name, t);
      order.push_back(name);
    }
    w.column(w.file(), "output_order", order, "the graph's outputs in order");
  });
}

}  // namespace superopt
