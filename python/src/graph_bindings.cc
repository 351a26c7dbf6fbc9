// superopt.load and the Graph handle: a model from builtin:NAME, a graph file,
// an ONNX file or ONNX bytes; its report (what `graph check --json` prints),
// its text as graph JSON or ONNX, its cost, and its outputs on the CPU
// reference in double (what `graph run` computes) as NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include "python/src/bindings.h"
#include "runtime/cli/command_line.h"
#include "runtime/cli/graph_report.h"
#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/exec/cost_models.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/model_file.h"
#include "runtime/formats/onnx_bytes.h"
#include "runtime/formats/onnx_write.h"
#include "runtime/formats/op_params_json.h"
#include "runtime/models/model_zoo.h"

namespace superopt::python {
namespace {

namespace py = pybind11;
using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::shared_ptr<GraphHandle> load_spec(const std::string& spec,
                                       const std::vector<std::string>& input_shapes) {
  OnnxImportOptions options = cli::model_options(input_shapes);
  py::gil_scoped_release release;
  LoadedModel m = load_named_model(spec, options);
  return std::make_shared<GraphHandle>(GraphHandle{m.name, std::move(m.graph), m.output_names, spec});
}

std::shared_ptr<GraphHandle> load_onnx(const py::bytes& data, const std::string& source_name,
                                       const std::vector<std::string>& input_shapes) {
  OnnxImportOptions options = cli::model_options(input_shapes);
  std::string bytes = data;
  py::gil_scoped_release release;
  OnnxModel m = read_onnx_bytes(bytes, source_name, options);
  return std::make_shared<GraphHandle>(GraphHandle{m.name, std::move(m.graph), m.output_names, source_name});
}

std::string check_text(const GraphHandle& h, const std::optional<std::string>& cost) {
  std::unique_ptr<CostModel> model = cost ? make_cost_model(*cost) : nullptr;
  LoadedModel named{h.name, h.graph, h.output_names};
  return check_json(check_graph(h.source, named, model.get()))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

double cost_ms(const GraphHandle& h, const std::string& spec) {
  std::unique_ptr<CostModel> model = make_cost_model(spec);
  py::gil_scoped_release release;
  return graph_cost_ms(h.graph, *model);
}

Array to_array(const Tensor<double>& t) {
  std::vector<py::ssize_t> dims;
  for (int i = 0; i < t.shape.rank(); ++i) dims.push_back(t.shape[i]);
  Array a(dims);
  std::copy(t.data.begin(), t.data.end(), a.mutable_data());
  return a;
}

// Sources given by name (inputs, or weights to override), else seeded random
// values as `graph run --seed` draws them (a weight with data keeps its data).
std::vector<Array> reference_outputs(const GraphHandle& h, uint64_t seed,
                                     const std::map<std::string, Array>& given) {
  const Graph& g = h.graph;
  std::map<NodeId, Tensor<double>> values;
  for (const auto& [name, array] : given) {
    std::optional<NodeId> id = g.find(name);
    if (!id || (g.node(*id).op != OpType::input && g.node(*id).op != OpType::weight))
      throw Error("run: the graph has no input or weight '" + name + "'");
    const Shape& shape = g.shape({*id, 0});
    if (array.size() != shape.num_elements() || array.ndim() != shape.rank())
      throw Error("run: '" + name + "' must have shape " + shape.str());
    for (int i = 0; i < shape.rank(); ++i)
      if (array.shape(i) != shape[i]) throw Error("run: '" + name + "' must have shape " + shape.str());
    values.emplace(*id,
                   Tensor<double>(shape, std::vector<double>(array.data(), array.data() + array.size())));
  }
  std::vector<Tensor<double>> outputs;
  {
    py::gil_scoped_release release;
    RealArith<double> ar;
    SourceValues<RealArith<double>> random = random_sources(ar, seed);
    outputs = evaluate(g, ar, [&](const Graph& graph, NodeId id) {
      auto it = values.find(id);
      return it != values.end() ? it->second : random(graph, id);
    });
  }
  std::vector<Array> arrays;
  for (const Tensor<double>& t : outputs) arrays.push_back(to_array(t));
  return arrays;
}

// What superopt.graph_module builds a torch.nn.Module from: the graph as
// graph JSON without weight data (every node keyed "#ID", since names may hold
// ':'; inputs and weights keep theirs as "label"), in topological order, each
// node's output shapes, and the weights' data by key as float32 arrays
// (absent for weights without data).
py::tuple module_spec(const GraphHandle& h) {
  const Graph& g = h.graph;
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  auto key = [&](TensorRef t) {
    std::string k = "#" + std::to_string(t.node);
    return t.port ? k + ":" + std::to_string(t.port) : k;
  };
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array(), weights = inputs, nodes = inputs,
                         outputs = inputs, shapes = nlohmann::ordered_json::object();
  py::dict data;
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    const std::string name = key({id, 0});
    nlohmann::ordered_json node_shapes = nlohmann::ordered_json::array();
    for (int port = 0; port < n.num_outputs(); ++port) node_shapes.push_back(shape_json(g.shape({id, port})));
    shapes[name] = node_shapes;
    if (n.op == OpType::input) {
      inputs.push_back({{"name", name}, {"label", n.name.str()}, {"shape", shape_json(g.shape({id, 0}))}});
    } else if (n.op == OpType::weight) {
      weights.push_back({{"name", name}, {"label", n.name.str()}, {"shape", shape_json(g.shape({id, 0}))}});
      if (const std::vector<float>* values = g.weight_data(id)) {
        const Shape& s = g.shape({id, 0});
        std::vector<py::ssize_t> dims;
        for (int i = 0; i < s.rank(); ++i) dims.push_back(s[i]);
        py::array_t<float> a(dims);
        std::copy(values->begin(), values->end(), a.mutable_data());
        data[py::str(name)] = a;
      }
    } else {
      nlohmann::ordered_json refs = nlohmann::ordered_json::array();
      for (TensorRef t : n.inputs()) refs.push_back(key(t));
      nodes.push_back({{"name", name},
                       {"op", std::string(op_name(n.op))},
                       {"params", op_params_json(n.op, n.params)},
                       {"inputs", refs}});
    }
  }
  for (TensorRef t : g.outputs()) outputs.push_back(key(t));
  nlohmann::ordered_json graph = {
      {"name", h.name}, {"inputs", inputs}, {"weights", weights}, {"nodes", nodes}, {"outputs", outputs}};
  return py::make_tuple(graph.dump(), shapes.dump(), data);
}

// The graph with its weights' data dropped (names, shapes and every operator
// kept): the search then leaves weight-only operators in place instead of
// folding them into new float32 weights, so that superopt.torch can compute
// them in the module's own precision from the original parameters.
std::shared_ptr<GraphHandle> without_weight_data(const GraphHandle& h) {
  const Graph& g = h.graph;
  std::optional<std::vector<NodeId>> order = g.topological_order();
  if (!order) throw Error("graph has a cycle");
  Graph out;
  std::vector<NodeId> id_in_out(size_t(g.num_nodes()), -1);
  for (NodeId id : *order) {
    const Node& n = g.node(id);
    const std::string name = n.name.str();
    if (n.op == OpType::input) {
      id_in_out[size_t(id)] = out.add_input(name, g.shape({id, 0}));
    } else if (n.op == OpType::weight) {
      id_in_out[size_t(id)] = out.add_weight(name, g.shape({id, 0}));
    } else {
      std::vector<TensorRef> ins;
      for (TensorRef t : n.inputs()) ins.push_back({id_in_out[size_t(t.node)], t.port});
      id_in_out[size_t(id)] = out.add(n.op, std::span<const TensorRef>(ins), n.params, name);
    }
  }
  for (TensorRef t : g.outputs()) out.add_output({id_in_out[size_t(t.node)], t.port});
  return std::make_shared<GraphHandle>(GraphHandle{h.name, std::move(out), h.output_names, h.source});
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<GraphHandle, std::shared_ptr<GraphHandle>>(m, "GraphHandle")
      // Nothing changes a handle's graph once made: a copy (copy.deepcopy of a
      // module holding a result) shares it.
      .def("__copy__", [](const std::shared_ptr<GraphHandle>& h) { return h; })
      .def("__deepcopy__", [](const std::shared_ptr<GraphHandle>& h, const py::dict&) { return h; })
      .def_readonly("name", &GraphHandle::name)
      .def_readonly("source", &GraphHandle::source)
      .def_readonly("output_names", &GraphHandle::output_names)
      .def_property_readonly("num_operators", [](const GraphHandle& h) { return h.graph.num_operators(); })
      .def("check_json", &check_text, py::arg("cost") = std::nullopt)
      .def("to_json", [](const GraphHandle& h) { return write_graph_json(h.graph, h.name); })
      .def("to_onnx",
           [](const GraphHandle& h) { return py::bytes(onnx_model_bytes(h.graph, h.output_names, h.name)); })
      .def("save", [](const GraphHandle& h,
                      const std::string& path) { write_model_file(path, h.graph, h.name, h.output_names); })
      .def("cost_ms", &cost_ms)
      .def("module_spec", &module_spec)
      .def("without_weight_data", &without_weight_data)
      .def("reference_outputs", &reference_outputs, py::arg("seed"), py::arg("inputs"));
  m.def("load", &load_spec, py::arg("spec"), py::arg("input_shapes"));
  m.def("load_onnx_bytes", &load_onnx, py::arg("data"), py::arg("source_name"), py::arg("input_shapes"));
  m.def("builtin_model_names", &builtin_model_names);
}

}  // namespace superopt::python
