// Reading operator-set files: sources expanded into interchangeable groups,
// operator variants checked against the registry, every error on one line.
#include "enum/opset.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "enum/graph_code.h"
#include "runtime/core/error.h"
#include "runtime/formats/json_text.h"
#include "runtime/formats/op_params_json.h"

namespace superopt::enumeration {
namespace {

using namespace json;

// Interchangeable sources are used in index order, so a large group only
// multiplies graphs that differ by a renaming; 64 is far beyond any use.
constexpr int64_t kMaxCount = 64;

// sources[2] ("w") or operators[3] ("conv2d"), from the entry's `key` field.
std::string entry_label(std::string_view array, size_t i, const Json& v, std::string_view key) {
  std::string s = std::string(array) + "[" + std::to_string(i) + "]";
  if (const Json* k = v.is_object() ? find_field(v, key) : nullptr; k && k->is_string())
    s += " (" + k->dump(-1, ' ', false, Json::error_handler_t::replace) + ")";
  return s;
}

const Json& need_entries(const Json& root, std::string_view key, const Where& top, std::string_view what) {
  const Json& v = need_field(root, key, top);
  if (!v.is_array() || v.empty())
    top.fail(key, "expected a non-empty array of " + std::string(what) + got(v));
  return v;
}

void read_header(const Json& root, const Where& top, Opset& opset) {
  if (!root.is_object()) top.fail("", "expected a JSON object at the top level" + got(root));
  check_fields(root, {"format", "version", "name", "description", "sources", "operators"}, top);
  const Json& format = need_field(root, "format", top);
  if (format != "superopt-opset") top.fail("format", "expected \"superopt-opset\"" + got(format));
  const Json& version = need_field(root, "version", top);
  if (as_int(version) != 1) top.fail("version", "this superopt reads version 1 only" + got(version));
  const Json& name = need_field(root, "name", top);
  opset.name = need_string(name, "name", top);
  if (opset.name.empty() || has_control_character(opset.name))
    top.fail("name", "expected a non-empty name without control characters" + got(name));
  if (const Json* text = find_field(root, "description")) need_string(*text, "description", top);
}

// ---------------------------------------------------------------- sources

OpType read_source_kind(const Json& v, const Where& w) {
  const std::string& kind = need_string(v, "kind", w);
  std::optional<OpType> op = op_from_name(kind);
  // TASO's generator spends an operator on each constant a graph uses, so a
  // constant is enumerated like any other operator, not read like an input.
  if (op && is_constant(*op))
    w.fail("kind", "constants are operators in an operator set; list {\"op\": \"" + kind +
                       "\", \"params\": [{\"shape\": [...]}]} under \"operators\"");
  if (!op || !(*op == OpType::input || *op == OpType::weight))
    w.fail("kind", "expected \"input\" or \"weight\"" + got(v));
  return *op;
}

int64_t read_count(const Json& obj, const Where& w) {
  const Json* v = find_field(obj, "count");
  if (!v) return 0;
  std::optional<int64_t> n = as_int(*v);
  if (!n || *n < 1 || *n > kMaxCount)
    w.fail("count", "expected an integer from 1 to " + std::to_string(kMaxCount) + got(*v));
  return *n;
}

// Where each source name was first defined, for duplicate errors.
using SourceNames = std::map<std::string, std::string>;

void add_source(OpsetSource source, const Where& w, SourceNames& names, Opset& opset) {
  auto [it, fresh] = names.emplace(source.name, w.entry);
  if (!fresh) w.fail("name", "duplicate name '" + source.name + "' (also " + it->second + ")");
  opset.sources.push_back(std::move(source));
}

void read_source_group(const Json& v, size_t i, const std::string& file, SourceNames& names, Opset& opset) {
  Where w{file, entry_label("sources", i, v, "name")};
  if (!v.is_object()) w.fail("", "expected an object" + got(v));
  check_fields(v, {"name", "count", "kind", "shape"}, w);
  OpsetSource source;
  source.name = read_tensor_name(v, w);
  source.kind = read_source_kind(need_field(v, "kind", w), w);
  source.shape = read_shape(need_field(v, "shape", w), "shape", w);
  source.interchange_class = static_cast<int>(i);
  int64_t count = read_count(v, w);
  if (count == 0) return add_source(source, w, names, opset);
  std::string base = source.name;
  for (int64_t k = 1; k <= count; ++k) {
    source.name = base + std::to_string(k);
    add_source(source, w, names, opset);
  }
}

// ---------------------------------------------------------------- operators

// Inputs and weights are the sources graphs read, and opaque is never
// rewritten. The constants have no inputs either, yet are operators: as in
// TASO's generator, using one costs an operator that materialises it. Operators
// only imported models use have no axioms, so no rule may contain them.
bool enumerable(OpType op) {
  return op != OpType::input && op != OpType::weight && op != OpType::opaque && !op_info(op).from_import;
}

std::string enumerable_operators() {
  std::string list;
  for (int i = 0; i < kNumOpTypes; ++i)
    if (enumerable(OpType(i))) list += (list.empty() ? "" : ", ") + std::string(op_name(OpType(i)));
  return list;
}

OpType read_operator_type(const Json& v, const Where& w) {
  const std::string& name = need_string(need_field(v, "op", w), "op", w);
  std::optional<OpType> op = op_from_name(name);
  if (!op || !enumerable(*op))
    w.fail("op", "'" + name + "' is not an operator to enumerate (allowed: " + enumerable_operators() + ")");
  return *op;
}

// A constant's shape must have the form its operator defines (C_pool is
// [C,1,kh,kw]); the registry's check is the one graphs get too.
void check_constant_shape(OpType op, const OpParams& params, const Where& w, const std::string& field) {
  TensorDesc out[1];
  try {
    infer_outputs(op, params, {}, out);
  } catch (const Error& err) {
    w.fail(field + ".shape", err.what());
  }
}

// There is no input rank to normalise a negative axis, or to find the last
// dimension (softmax's default), against: the axis is given and non-negative.
OpParams read_variant(OpType op, const Json* v, const Where& w, const std::string& field) {
  ParsedParams parsed = read_op_params(op, v, w, field);
  if (is_constant(op)) check_constant_shape(op, parsed.params, w, field);
  if (!op_info(op).takes(Param::axis)) return parsed.params;
  if (!parsed.axis)
    w.fail(field, std::string(op_name(op)) +
                      " requires parameter 'axis' (an operator set has no input rank to find the last axis)");
  const std::string why =
      "expected an integer from 0 to 5 (an operator set has no input rank to count a "
      "negative axis from)";
  if (*parsed.axis < 0) w.fail(field + ".axis", why + got((*v)["axis"]));
  parsed.params.axis = static_cast<int32_t>(*parsed.axis);
  return parsed.params;
}

// "rank": N restricts every input to rank N (TASO's 2-D matmul and transpose).
int read_input_rank(const Json& obj, const Where& w) {
  const Json* v = find_field(obj, "rank");
  if (!v) return 0;
  std::optional<int64_t> r = as_int(*v);
  if (!r || *r < 1 || *r > kMaxRank) w.fail("rank", "expected an integer from 1 to 6" + got(*v));
  return static_cast<int>(*r);
}

// "inputs": N (optional, default the operator's fewest) takes N inputs: 3 is a
// conv2d with its bias. Within the registry's range and the generator's codes.
int read_num_inputs(const Json& obj, OpType op, const Where& w) {
  const OpInfo& info = op_info(op);
  const Json* v = find_field(obj, "inputs");
  if (!v) return info.min_inputs;
  std::optional<int64_t> n = as_int(*v);
  const int most = std::min(info.max_inputs, kMaxCodeInputs);
  if (!n || *n < info.min_inputs || *n > most)
    w.fail("inputs", "expected an integer from " + std::to_string(info.min_inputs) + " to " +
                         std::to_string(most) + " for " + std::string(op_name(op)) + got(*v));
  return static_cast<int>(*n);
}

bool read_sources_only(const Json& obj, const Where& w) {
  const Json* v = find_field(obj, "sources_only");
  if (v && !v->is_boolean()) w.fail("sources_only", "expected true or false" + got(*v));
  return v && v->get<bool>();
}

// Where each variant was defined, parallel to Opset::operators.
using VariantPlaces = std::vector<std::string>;

void add_variant(OpsetOperator variant, std::string place, const Where& w, const std::string& field,
                 VariantPlaces& places, Opset& opset) {
  for (size_t k = 0; k < opset.operators.size(); ++k) {
    const OpsetOperator& other = opset.operators[k];
    if (other.op == variant.op && other.arity() == variant.arity() &&
        params_equal(variant.op, other.params, variant.params))
      w.fail(field, "duplicate variant of " + std::string(op_name(variant.op)) + " (also " + places[k] + ")");
  }
  places.push_back(std::move(place));
  opset.operators.push_back(variant);
}

void read_operator(const Json& v, size_t i, const std::string& file, VariantPlaces& places, Opset& opset) {
  Where w{file, entry_label("operators", i, v, "op")};
  if (!v.is_object()) w.fail("", "expected an object" + got(v));
  check_fields(v, {"op", "params", "sources_only", "rank", "inputs"}, w);
  OpsetOperator variant;
  variant.op = read_operator_type(v, w);
  variant.num_inputs = read_num_inputs(v, variant.op, w);
  variant.sources_only = read_sources_only(v, w);
  variant.input_rank = read_input_rank(v, w);
  const Json* params = find_field(v, "params");
  if (!params) {
    variant.params = read_variant(variant.op, nullptr, w, "params");
    return add_variant(variant, w.entry, w, "", places, opset);
  }
  if (!params->is_array() || params->empty())
    w.fail("params", "expected a non-empty array of parameter objects" + got(*params));
  for (size_t k = 0; k < params->size(); ++k) {
    std::string field = "params[" + std::to_string(k) + "]";
    variant.params = read_variant(variant.op, &(*params)[k], w, field);
    add_variant(variant, w.entry + " " + field, w, field, places, opset);
  }
}

}  // namespace

Opset parse_opset(std::string_view text, std::string_view source_name) {
  std::string file(source_name);
  Json root = parse_json(text, file);
  Where top{file, ""};
  Opset opset;
  read_header(root, top, opset);
  const Json& sources = need_entries(root, "sources", top, "source objects");
  SourceNames names;
  for (size_t i = 0; i < sources.size(); ++i) read_source_group(sources[i], i, file, names, opset);
  const Json& operators = need_entries(root, "operators", top, "operator objects");
  VariantPlaces places;
  for (size_t i = 0; i < operators.size(); ++i) read_operator(operators[i], i, file, places, opset);
  opset.text = std::string(text);
  return opset;
}

Opset read_opset_file(const std::string& path) {
  return parse_opset(read_text_file(path), path);
}

}  // namespace superopt::enumeration
