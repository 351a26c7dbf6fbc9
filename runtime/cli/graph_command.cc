// `superopt graph check|run|export MODEL`: validate a graph file or builtin
// model and list its nodes and costs, execute it on the CPU reference and
// print checksums of its outputs, or write it as a graph file.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/graph_report.h"
#include "runtime/cli/numeric_flags.h"
#include "runtime/core/arith.h"
#include "runtime/core/error.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/core/graph_hash.h"
#include "runtime/db/graph_dump.h"
#include "runtime/exec/cost_models.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/model_file.h"
#include "runtime/formats/op_params_json.h"
#include "runtime/models/model_zoo.h"

namespace superopt {
namespace {

using Json = nlohmann::ordered_json;
namespace po = boost::program_options;

struct GraphArgs {
  std::string file;
  bool json = false;
  uint64_t seed = 1;
  std::string cost;  // check: a cost model spec, or empty
  std::string dump;  // run: an HDF5 file for the sources and outputs, or empty
  std::vector<std::string> input_shapes;
};

constexpr std::string_view kBuiltinPrefix = "builtin:";

// Parses FILE [--seed S | --cost SPEC] [--json]; nullopt after printing help.
std::optional<GraphArgs> parse_graph_args(std::string_view command, const std::vector<std::string>& args,
                                          bool with_seed) {
  GraphArgs a;
  std::string usage = "superopt graph " + std::string(command) + " FILE" +
                      (with_seed ? " [--seed S] [--dump FILE.h5]" : " [--cost SPEC]") +
                      " [--input-shape NAME=DIMS] [--json]";
  po::options_description options("options");
  options.add_options()(
      "file", po::value(&a.file),
      "the graph file (JSON, see data/graphs/README.md), an ONNX model (.onnx) or builtin:NAME "
      "(data/models/README.md)");
  cli::add_model_options(options, a.input_shapes);
  if (with_seed)
    options.add_options()("seed", cli::seed(&a.seed), "seed of the random inputs and weights (default 1)")(
        "dump", po::value(&a.dump),
        "also write every input, weight and output as float64 datasets to this HDF5 file");
  else
    options.add_options()("cost", po::value(&a.cost),
                          "also cost every operator with a cost model: analytic:DEVICE, table:FILE or gpu");
  options.add_options()("json", po::bool_switch(&a.json), "print one JSON object instead of a table");
  po::positional_options_description positional;
  positional.add("file", 1);
  if (!cli::parse(usage, options, positional, args)) return std::nullopt;
  if (a.file.empty()) throw Error("graph " + std::string(command) + ": missing FILE (usage: " + usage + ")");
  return a;
}

std::string pad(const std::string& s, size_t width, bool right) {
  std::string fill(width > s.size() ? width - s.size() : 0, ' ');
  return right ? fill + s : s + fill;
}

// Prints rows as aligned columns; columns listed in numeric are right-aligned.
void print_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric) {
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "  " : "") + pad(row[c], width[c], numeric[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? std::string(sep) : "") + parts[i];
  return s;
}

// ---------------------------------------------------------------- check

std::string shapes_str(const std::vector<Shape>& shapes) {
  std::vector<std::string> parts;
  for (const Shape& s : shapes) parts.push_back(s.str());
  return join(parts, ", ");
}

std::string named_shapes_str(const std::vector<std::pair<std::string, Shape>>& list) {
  std::vector<std::string> parts;
  for (const auto& [name, shape] : list) parts.push_back(name + " " + shape.str());
  return parts.empty() ? "none" : join(parts, ", ");
}

std::string cost_str(double ms) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6f", ms);
  return std::isinf(ms) ? "inf" : buf;
}

void print_check(const CheckReport& r) {
  std::cout << "graph " << (r.name.empty() ? "(unnamed)" : printable(r.name)) << " in " << printable(r.file)
            << ": valid\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"node", "op", "inputs", "output", "params", "FLOPs", "bytes read", "bytes written"}};
  if (r.cost) rows[0].push_back("cost ms");
  for (const NodeReport& n : r.nodes) {
    std::string params = n.params;
    if (n.groups) params += (params.empty() ? "" : " ") + std::string("groups=") + std::to_string(*n.groups);
    rows.push_back({n.name, n.op, n.inputs.empty() ? "-" : join(n.inputs, ","), shapes_str(n.outputs), params,
                    std::to_string(n.cost.flops), std::to_string(n.cost.bytes_read),
                    std::to_string(n.cost.bytes_written)});
    if (n.cost_ms) rows.back().push_back(cost_str(*n.cost_ms));
  }
  print_table(rows, {false, false, false, false, false, true, true, true, true});
  int64_t weight_elements = 0;
  for (const auto& w : r.weights) weight_elements += w.second.num_elements();
  std::cout << "\noperators:     " << r.operators << "\n"
            << "FLOPs:         " << r.total.flops << "\n"
            << "bytes read:    " << r.total.bytes_read << "\n"
            << "bytes written: " << r.total.bytes_written << "\n"
            << "inputs:        " << named_shapes_str(r.inputs) << "\n"
            << "weights:       " << r.weights.size() << " (" << weight_elements << " elements)\n"
            << "outputs:       " << named_shapes_str(r.outputs) << "\n"
            << "hash:          " << r.hash << "\n";
  if (!r.cost) return;
  std::cout << "cost model:    " << r.cost->model << "\n"
            << "cost:          " << cost_str(r.cost->total_ms) << " ms"
            << (std::isinf(r.cost->total_ms) ? " (peak memory over the device's limit)" : "") << "\n"
            << "peak memory:   " << r.cost->peak_bytes << " bytes of activations\n"
            << "fallbacks:     " << r.cost->fallbacks << "\n";
}

int graph_check(const std::vector<std::string>& args) {
  std::optional<GraphArgs> a = parse_graph_args("check", args, false);
  if (!a) return cli::kExitOk;
  std::unique_ptr<CostModel> cost = a->cost.empty() ? nullptr : make_cost_model(a->cost);
  CheckReport r =
      check_graph(a->file, load_named_model(a->file, cli::model_options(a->input_shapes)), cost.get());
  if (a->json)
    std::cout << check_json(r).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  else
    print_check(r);
  return cli::kExitOk;
}

// ---------------------------------------------------------------- run

// The checksum weights element i by 1 + (i mod 7), so that it changes when
// values move within a tensor as well as when they change; sums run in index
// order, so the same file and seed give the same digits on one machine.
struct OutputSummary {
  std::string name;
  Shape shape;
  double sum = 0, mean_abs = 0, checksum = 0;
};

OutputSummary summarise(const std::string& name, const Tensor<double>& t) {
  OutputSummary s{.name = name, .shape = t.shape};
  double abs_sum = 0;
  for (size_t i = 0; i < t.data.size(); ++i) {
    s.sum += t.data[i];
    abs_sum += std::abs(t.data[i]);
    s.checksum += t.data[i] * double(1 + i % 7);
  }
  s.mean_abs = t.data.empty() ? 0 : abs_sum / double(t.data.size());
  return s;
}

std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

void print_run_json(const GraphArgs& a, const std::string& name, const std::vector<OutputSummary>& outputs,
                    double total) {
  Json list = Json::array();
  for (const OutputSummary& o : outputs)
    list.push_back({{"name", o.name},
                    {"shape", shape_json(o.shape)},
                    {"sum", o.sum},
                    {"mean_abs", o.mean_abs},
                    {"checksum", o.checksum}});
  Json j = {{"file", a.file}, {"name", name}, {"seed", a.seed}, {"outputs", list}, {"total_checksum", total}};
  std::cout << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

void print_run_table(const GraphArgs& a, const std::string& name, const std::vector<OutputSummary>& outputs,
                     double total) {
  std::cout << "graph " << (name.empty() ? "(unnamed)" : printable(name)) << " in " << printable(a.file)
            << ", seed " << a.seed << ", CPU reference in double\n\n";
  std::vector<std::vector<std::string>> rows = {{"output", "shape", "sum", "mean |x|", "checksum"}};
  for (const OutputSummary& o : outputs)
    rows.push_back({o.name, o.shape.str(), num(o.sum), num(o.mean_abs), num(o.checksum)});
  print_table(rows, {false, false, true, true, true});
  std::cout << "\ntotal checksum: " << num(total) << "\n";
}

int graph_run(const std::vector<std::string>& args) {
  std::optional<GraphArgs> a = parse_graph_args("run", args, true);
  if (!a) return cli::kExitOk;
  LoadedModel named = load_named_model(a->file, cli::model_options(a->input_shapes));
  const Graph& g = named.graph;
  RealArith<double> ar;
  // Every source value passes through here once, so the dump sees what the evaluator used.
  std::vector<NamedTensor> sources;
  SourceValues<RealArith<double>> random = random_sources(ar, a->seed);
  SourceValues<RealArith<double>> recorded = [&](const Graph& graph, NodeId id) {
    Tensor<double> t = random(graph, id);
    if (!a->dump.empty()) sources.emplace_back(tensor_label(graph, {id, 0}), t);
    return t;
  };
  std::vector<Tensor<double>> values = evaluate(g, ar, recorded);
  std::vector<OutputSummary> outputs;
  double total = 0;  // output k's checksum weighted by k + 1, so that swapped outputs show
  for (size_t k = 0; k < values.size(); ++k) {
    outputs.push_back(summarise(tensor_label(g, g.outputs()[k]), values[k]));
    total += double(k + 1) * outputs.back().checksum;
  }
  if (!a->dump.empty()) {
    std::vector<NamedTensor> named_outputs;
    for (size_t k = 0; k < values.size(); ++k)
      named_outputs.emplace_back(tensor_label(g, g.outputs()[k]), std::move(values[k]));
    write_graph_dump(a->dump, named.name, a->seed, sources, named_outputs);
  }
  if (a->json)
    print_run_json(*a, named.name, outputs, total);
  else
    print_run_table(*a, named.name, outputs, total);
  return cli::kExitOk;
}

// ---------------------------------------------------------------- export

int graph_export(const std::vector<std::string>& args) {
  std::string model, out;
  std::vector<std::string> input_shapes;
  const std::string usage = "superopt graph export MODEL --out FILE [--input-shape NAME=DIMS]";
  po::options_description options("options");
  options.add_options()("model", po::value(&model), "builtin:NAME, NAME, a graph file or an ONNX model")(
      "out", po::value(&out), "the file to write: ONNX when it ends in .onnx, else a graph file (JSON)");
  cli::add_model_options(options, input_shapes);
  po::positional_options_description positional;
  positional.add("model", 1);
  if (!cli::parse(usage, options, positional, args)) return cli::kExitOk;
  if (model.empty() || out.empty())
    throw Error("graph export: missing MODEL or --out FILE (usage: " + usage + ")");
  bool is_file = model.starts_with(kBuiltinPrefix) || model.find('/') != std::string::npos ||
                 model.ends_with(".json") || model.ends_with(".onnx");
  LoadedModel named = load_named_model(is_file ? model : std::string(kBuiltinPrefix) + model,
                                       cli::model_options(input_shapes));
  write_model_file(out, named.graph, named.name, named.output_names);
  std::cout << "wrote " << out << " (" << named.graph.num_operators() << " operators)\n";
  return cli::kExitOk;
}

}  // namespace

int graph_command(const std::vector<std::string>& args) {
  static const cli::Subcommand subcommands[] = {
      {"check", "validate a graph file; list its nodes, shapes, FLOPs, bytes and hash", graph_check},
      {"run", "execute a graph on the CPU reference (double) and print output checksums", graph_run},
      {"export", "write a model as a graph file or an ONNX model", graph_export},
  };
  return cli::dispatch("superopt graph", subcommands, args);
}

}  // namespace superopt
