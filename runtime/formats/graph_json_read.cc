// Reading graph files: entries, name resolution, dependency order, then the Graph.
#include <charconv>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/json_text.h"
#include "runtime/formats/op_params_json.h"

namespace superopt {
namespace {

using namespace json;

// ---------------------------------------------------------------- entries

// One input, weight or node as written; inputs[].node indexes Document::entries.
struct Entry {
  Where where;
  std::string name;
  OpType op = OpType::input;
  OpParams params;
  std::optional<int64_t> axis;  // as written; normalised once the input rank is known
  std::vector<float> data;      // weights only
  std::vector<std::string> input_names;
  std::vector<TensorRef> inputs;
};

struct Document {
  std::string name;
  std::vector<Entry> entries;  // inputs, then weights, then nodes, in file order
  std::vector<TensorRef> outputs;
};

std::string entry_label(std::string_view array, size_t i, const Json& v) {
  std::string s = std::string(array) + "[" + std::to_string(i) + "]";
  if (const Json* name = v.is_object() ? find_field(v, "name") : nullptr; name && name->is_string())
    s += " (" + name->dump(-1, ' ', false, Json::error_handler_t::replace) + ")";
  return s;
}

std::vector<float> read_data(const Json& v, const Shape& shape, const Where& w) {
  if (!v.is_array()) w.fail("data", "expected an array of numbers" + got(v));
  if (int64_t(v.size()) != shape.num_elements())
    w.fail("data", std::to_string(v.size()) + " values for shape " + shape.str() + " (" +
                       std::to_string(shape.num_elements()) + " elements)");
  std::vector<float> data;
  data.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    std::optional<float> f = as_float(v[i]);
    if (!f && v[i].is_string() && (v[i] == "inf" || v[i] == "-inf"))  // what the writer makes of infinities
      f = v[i] == "inf" ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    if (!f)
      w.fail("data[" + std::to_string(i) + "]",
             "expected a number in float range, \"inf\" or \"-inf\"" + got(v[i]));
    data.push_back(*f);
  }
  return data;
}

Entry read_source(const Json& v, std::string_view array, size_t i, const std::string& file) {
  Entry e;
  e.where = {file, entry_label(array, i, v)};
  e.op = array == "weights" ? OpType::weight : OpType::input;
  if (!v.is_object()) e.where.fail("", "expected an object" + got(v));
  if (e.op == OpType::weight)
    check_fields(v, {"name", "shape", "data"}, e.where);
  else
    check_fields(v, {"name", "shape"}, e.where);
  e.name = read_tensor_name(v, e.where);
  e.params.shape = read_shape(need_field(v, "shape", e.where), "shape", e.where);
  if (const Json* data = find_field(v, "data")) e.data = read_data(*data, e.params.shape, e.where);
  return e;
}

std::string known_operators() {
  std::string list;
  for (int i = 0; i < kNumOpTypes; ++i)
    if (OpType(i) != OpType::input && OpType(i) != OpType::weight)
      list += (list.empty() ? "" : ", ") + std::string(op_name(OpType(i)));
  return list;
}

void read_node_inputs(const Json* v, Entry& e) {
  if (v && !v->is_array()) e.where.fail("inputs", "expected an array of tensor names" + got(*v));
  if (v)
    for (size_t i = 0; i < v->size(); ++i)
      e.input_names.push_back(need_string((*v)[i], "inputs[" + std::to_string(i) + "]", e.where));
  const OpInfo& info = op_info(e.op);
  int n = static_cast<int>(e.input_names.size());
  if (n < info.min_inputs || n > info.max_inputs) {
    std::string range = std::to_string(info.min_inputs);
    if (info.max_inputs != info.min_inputs) range += " to " + std::to_string(info.max_inputs);
    e.where.fail("inputs", std::string(info.name) + " takes " + range +
                               (range == "1" ? " input" : " inputs") + ", got " + std::to_string(n));
  }
}

Entry read_node(const Json& v, size_t i, const std::string& file) {
  Entry e;
  e.where = {file, entry_label("nodes", i, v)};
  if (!v.is_object()) e.where.fail("", "expected an object" + got(v));
  check_fields(v, {"name", "op", "inputs", "params"}, e.where);
  e.name = read_tensor_name(v, e.where);
  const std::string& op = need_string(need_field(v, "op", e.where), "op", e.where);
  std::optional<OpType> type = op_from_name(op);
  if (!type) e.where.fail("op", "unknown operator '" + op + "' (known: " + known_operators() + ")");
  if (*type == OpType::input || *type == OpType::weight)
    e.where.fail("op", "'" + op + "' entries belong in the top-level \"" + op + "s\" array");
  e.op = *type;
  read_node_inputs(find_field(v, "inputs"), e);
  ParsedParams parsed = read_op_params(e.op, find_field(v, "params"), e.where);
  e.params = parsed.params;
  e.axis = parsed.axis;
  return e;
}

// ---------------------------------------------------------------- references

using NameIndex = std::unordered_map<std::string, int>;

NameIndex index_names(const std::vector<Entry>& entries) {
  NameIndex index;
  for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
    auto [it, fresh] = index.emplace(entries[i].name, i);
    if (!fresh)
      entries[i].where.fail(
          "name", "duplicate name '" + entries[i].name + "' (also " + entries[it->second].where.entry + ")");
  }
  return index;
}

// "name" or "name:K" to an entry index and port.
TensorRef resolve(const std::string& ref, const std::vector<Entry>& entries, const NameIndex& names,
                  const Where& w, const std::string& field) {
  std::string name = ref;
  int port = 0;
  if (size_t colon = ref.find(':'); colon != std::string::npos) {
    name = ref.substr(0, colon);
    std::string_view digits = std::string_view(ref).substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      w.fail(field, "bad output port in '" + ref + "' (expected NAME or NAME:K with K a number)");
  }
  auto it = names.find(name);
  if (it == names.end()) w.fail(field, "no tensor named '" + name + "'");
  const OpInfo& info = op_info(entries[it->second].op);
  if (port < 0 || port >= info.num_outputs)
    w.fail(field, "bad output port in '" + ref + "': '" + name + "' (" + std::string(info.name) + ") has " +
                      std::to_string(info.num_outputs) + (info.num_outputs == 1 ? " output" : " outputs"));
  return {it->second, port};
}

// ---------------------------------------------------------------- document

void read_entries(const Json& root, std::string_view array, Document& doc, const std::string& file) {
  const Json* v = find_field(root, array);
  if (!v) return;
  if (!v->is_array()) Where{file, ""}.fail(array, "expected an array" + got(*v));
  for (size_t i = 0; i < v->size(); ++i)
    doc.entries.push_back(array == "nodes" ? read_node((*v)[i], i, file)
                                           : read_source((*v)[i], array, i, file));
}

void read_header(const Json& root, Document& doc, const Where& top) {
  if (!root.is_object()) top.fail("", "expected a JSON object at the top level" + got(root));
  check_fields(root, {"format", "version", "name", "description", "inputs", "weights", "nodes", "outputs"},
               top);
  const Json& format = need_field(root, "format", top);
  if (format != "superopt-graph") top.fail("format", "expected \"superopt-graph\"" + got(format));
  const Json& version = need_field(root, "version", top);
  if (as_int(version) != 1) top.fail("version", "this superopt reads version 1 only" + got(version));
  if (const Json* name = find_field(root, "name")) doc.name = need_string(*name, "name", top);
  if (const Json* text = find_field(root, "description")) need_string(*text, "description", top);
}

Document read_document(const Json& root, const std::string& file) {
  Document doc;
  Where top{file, ""};
  read_header(root, doc, top);
  for (std::string_view array : {"inputs", "weights", "nodes"}) read_entries(root, array, doc, file);
  NameIndex names = index_names(doc.entries);
  for (Entry& e : doc.entries)
    for (size_t i = 0; i < e.input_names.size(); ++i)
      e.inputs.push_back(
          resolve(e.input_names[i], doc.entries, names, e.where, "inputs[" + std::to_string(i) + "]"));
  const Json& outputs = need_field(root, "outputs", top);
  if (!outputs.is_array() || outputs.empty())
    top.fail("outputs", "expected a non-empty array of tensor names" + got(outputs));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string field = "outputs[" + std::to_string(i) + "]";
    doc.outputs.push_back(resolve(need_string(outputs[i], field, top), doc.entries, names, top, field));
  }
  return doc;
}

int64_t normalised_axis(const Entry& e, const Shape& first_input) {
  int64_t rank = first_input.rank();
  if (!e.axis) return rank - 1;  // softmax: the last dimension
  int64_t axis = *e.axis < 0 ? *e.axis + rank : *e.axis;
  if (axis < 0 || axis >= rank)
    e.where.fail("params.axis", "axis " + std::to_string(*e.axis) + " is out of range for the first input " +
                                    first_input.str() + " (rank " + std::to_string(rank) + ")");
  return axis;
}

// Shapes inferred from huge inputs (broadcasting, concatenation) may leave the
// range the rest of superopt counts in.
void check_output_sizes(const Graph& g, NodeId id, const Where& w) {
  for (int port = 0; port < g.node(id).num_outputs(); ++port) {
    const Shape& s = g.shape({id, port});
    int64_t n = 1;
    for (int i = 0; i < s.rank(); ++i)
      if (s[i] <= 0 || __builtin_mul_overflow(n, s[i], &n) || n > kMaxElements)
        w.fail("", "output shape " + s.str() + " is too large (more than 2^40 elements)");
  }
}

NodeId add_entry(Graph& g, const Entry& e, const std::vector<NodeId>& ids) {
  if (e.op == OpType::input) return g.add_input(e.name, e.params.shape);
  if (e.op == OpType::weight) return g.add_weight(e.name, e.params.shape, e.data);
  std::vector<TensorRef> inputs;
  for (TensorRef r : e.inputs) inputs.push_back({ids[r.node], r.port});
  OpParams params = e.params;
  if (op_info(e.op).takes(Param::axis))
    params.axis = static_cast<int32_t>(normalised_axis(e, g.shape(inputs[0])));
  NodeId id = -1;
  try {
    id = g.add(e.op, inputs, params, e.name);
  } catch (const Error& err) {
    e.where.fail("", err.what());
  }
  check_output_sizes(g, id, e.where);
  return id;
}

Graph build_graph(const Document& doc, const std::string& file) {
  Graph g;
  g.reserve(static_cast<int>(doc.entries.size()));
  std::vector<NodeId> ids(doc.entries.size(), -1);
  DependencyOrder ordering = dependency_order(static_cast<int>(doc.entries.size()), [&](int e) {
    return std::span<const TensorRef>(doc.entries[e].inputs);
  });
  if (!ordering.cycle.empty()) {
    std::string path;
    for (int e : ordering.cycle) path += (path.empty() ? "" : " -> ") + doc.entries[e].name;
    throw_error(file + ": nodes: cycle: " + path);
  }
  for (int e : ordering.order) ids[e] = add_entry(g, doc.entries[e], ids);
  for (TensorRef t : doc.outputs) g.add_output({ids[t.node], t.port});
  return g;
}

}  // namespace

NamedGraph read_named_graph_json(std::string_view text, std::string_view source_name) {
  std::string file(source_name);
  Document doc = read_document(parse_json(text, file), file);
  return {doc.name, build_graph(doc, file)};
}

Graph read_graph_json(std::string_view text, std::string_view source_name) {
  return read_named_graph_json(text, source_name).graph;
}

NamedGraph read_named_graph_file(const std::string& path) {
  return read_named_graph_json(json::read_text_file(path), path);
}

Graph read_graph_file(const std::string& path) {
  return read_named_graph_file(path).graph;
}

}  // namespace superopt
