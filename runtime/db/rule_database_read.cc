// Reading the HDF5 rule database (layout in rule_database.h): every way a file
// can be missing, foreign, damaged or inconsistent is a one-line Error.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>

#include "runtime/core/error.h"
#include "runtime/db/hdf5_io.h"
#include "runtime/db/rule_columns.h"
#include "runtime/db/rule_database.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/json_text.h"

namespace superopt {

namespace {

using hdf5::Handle;
using hdf5::Item;
using hdf5::Reader;
using namespace rule_columns;

// Maps the file's enum members to statuses by name, so that stored values
// need not match ours; values that are no member are refused.
std::vector<RuleStatus> statuses(const Reader& r, const Item& item) {
  Handle type = item.type();
  if (H5Tget_class(type) != H5T_ENUM || H5Tget_size(type) != 1)
    r.fail(item.name + ": expected an enum over uint8");
  std::optional<RuleStatus> by_value[256];
  for (int m = 0; m < H5Tget_nmembers(type); ++m) {
    uint8_t value = 0;
    char* name = H5Tget_member_name(type, m);
    std::string member = name ? name : "";
    H5free_memory(name);
    H5Tget_member_value(type, m, &value);
    by_value[value] = rule_status_from_name(member);
    if (!by_value[value]) r.fail(item.name + ": unknown status name '" + member + "'");
  }
  std::vector<uint8_t> raw(r.rows_in_memory(item, sizeof(uint8_t) + sizeof(RuleStatus)));
  if (!raw.empty() && item.read(type, raw.data()) < 0)
    r.fail("cannot read " + item.name + ": " + hdf5::error_reason());
  std::vector<RuleStatus> out;
  for (size_t k = 0; k < raw.size(); ++k) {
    if (!by_value[raw[k]])
      r.fail(item.name + "[" + std::to_string(k) + "]: unknown status value " + std::to_string(raw[k]));
    out.push_back(*by_value[raw[k]]);
  }
  return out;
}

RuleSetInfo info_of(const Reader& r) {
  RuleSetInfo info;
  info.format_version =
      static_cast<int>(r.check_format(kRuleDatabaseFormat, "rule database", kRuleDatabaseFormatVersion));
  info.generator_version = r.string("generator_version");
  info.opset_name = r.string("opset_name");
  info.opset_json = r.string("opset");
  // Empty in databases made without an operator set file (tests, derived sets).
  if (!info.opset_json.empty() && !nlohmann::json::accept(info.opset_json))
    r.fail("attribute 'opset': not JSON (it holds the operator set file, verbatim)");
  int64_t max_ops = r.integer("max_ops");
  if (max_ops < 0 || max_ops > INT32_MAX) r.fail("bad max_ops " + std::to_string(max_ops));
  info.max_ops = static_cast<int>(max_ops);
  info.seed = r.numbers<uint64_t>(r.attribute("seed"), H5T_NATIVE_UINT64, true)[0];
  info.arguments = r.string("arguments");
  Handle stages = r.group("stages");
  Item names_item = r.dataset(stages, "stages", "name");
  std::vector<std::string> names = r.strings(names_item);
  Item counts_item = r.dataset(stages, "stages", "count");
  std::vector<int64_t> counts = r.numbers<int64_t>(counts_item, H5T_NATIVE_INT64, true);
  r.expect_length(counts_item, counts.size(), names_item.name, names.size());
  for (size_t i = 0; i < names.size(); ++i) info.stage_counts.push_back({names[i], counts[i]});
  return info;
}

// "S:T,..." pairing every source output with one target output; returns the
// target's outputs reordered to line up with the source's.
std::vector<TensorRef> aligned_outputs(const Reader& r, size_t k, const std::string& text,
                                       const Graph& target) {
  size_t n = target.outputs().size();
  auto bad = [&] {
    r.fail("rule " + std::to_string(k) + ": output_mapping '" + text +
           "': expected S:T pairs matching outputs 0 to " + std::to_string(n - 1) + " one to one");
  };
  std::vector<TensorRef> aligned(n);
  std::vector<bool> source_seen(n), target_seen(n);
  size_t pairs = 0;
  for (size_t pos = 0; pos <= text.size(); ++pairs) {
    size_t end = std::min(text.find(',', pos), text.size());
    // from_chars, not sscanf's %u: 4294967296 must not read as 0.
    const std::string_view pair = std::string_view(text).substr(pos, end - pos);
    const size_t colon = pair.find(':');
    size_t s = n, t = n;
    auto number = [](std::string_view digits, size_t& v) {
      auto [stop, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      return !digits.empty() && ec == std::errc() && stop == digits.data() + digits.size();
    };
    if (colon == std::string_view::npos || !number(pair.substr(0, colon), s) ||
        !number(pair.substr(colon + 1), t) || s >= n || t >= n || source_seen[s] || target_seen[t])
      bad();
    source_seen[s] = target_seen[t] = true;
    aligned[s] = target.outputs()[t];
    pos = end + 1;
  }
  if (pairs != n) bad();
  return aligned;
}

Graph rule_graph(const std::string& path, size_t k, const char* side, const std::string& text) {
  return read_graph_json(text, path + ": rule " + std::to_string(k) + " " + side);
}

// Whether every slot of the family is a dimension of an input or weight of
// the rule; the reason when not.
std::optional<std::string> family_misfit(const SizeFamily& f, const Rule& rule) {
  for (const std::vector<SizeSlot>& c : f.equal)
    for (const SizeSlot& slot : c) {
      auto variable = [&](const Graph& g) -> std::optional<NodeId> {
        std::optional<NodeId> id = g.find(slot.variable);
        if (id && g.node(*id).op != OpType::input && g.node(*id).op != OpType::weight) return std::nullopt;
        return id;
      };
      const Graph* side = &rule.source;
      std::optional<NodeId> id = variable(*side);
      if (!id) id = variable(*(side = &rule.target));
      if (!id) return "its size family names '" + slot.variable + "', not an input or weight of the rule";
      if (slot.axis >= side->shape({*id, 0}).rank())
        return "its size family names axis " + std::to_string(slot.axis) + " of '" + slot.variable +
               "', of rank " + std::to_string(side->shape({*id, 0}).rank());
    }
  return std::nullopt;
}

// Rule k's graphs from the columns, checked against each other and the counts.
void read_graphs(const Reader& r, const std::string& path, const RuleColumns& c, size_t k, Rule& rule) {
  rule.source = rule_graph(path, k, "source", c.source[k]);
  rule.target = rule_graph(path, k, "target", c.target[k]);
  std::string where = "rule " + std::to_string(k) + ": ";
  size_t n = rule.source.outputs().size();
  if (rule.target.outputs().size() != n)
    r.fail(where + "source has " + std::to_string(n) + " outputs, target has " +
           std::to_string(rule.target.outputs().size()));
  rule.target.set_outputs(aligned_outputs(r, k, c.output_mapping[k], rule.target));
  // A rule replaces each source output by its target output: of another shape,
  // no match would ever take it, and the rule would be silently unused.
  for (size_t i = 0; i < n; ++i) {
    const Shape& from = rule.source.desc(rule.source.outputs()[i]).shape;
    const Shape& to = rule.target.desc(rule.target.outputs()[i]).shape;
    if (from != to)
      r.fail(where + "output " + std::to_string(i) + " is " + from.str() + " in the source and " + to.str() +
             " in the target");
  }
  if (c.source_ops[k] != rule.source.num_operators() || c.target_ops[k] != rule.target.num_operators())
    r.fail(where + "source_ops/target_ops say " + std::to_string(c.source_ops[k]) + "/" +
           std::to_string(c.target_ops[k]) + ", the graphs have " +
           std::to_string(rule.source.num_operators()) + "/" + std::to_string(rule.target.num_operators()) +
           " operators");
}

// Rule k from the columns, checked against itself; with `graphs` false, its
// graphs stay unread (released: only the operator count is kept).
Rule make_rule(const Reader& r, const std::string& path, const RuleColumns& c, size_t k, bool graphs) {
  Rule rule;
  std::string where = "rule " + std::to_string(k) + ": ";
  if (graphs) {
    read_graphs(r, path, c, k, rule);
  } else {
    if (c.source_ops[k] < 0 || c.target_ops[k] < 0)
      r.fail(where + "source_ops/target_ops say " + std::to_string(c.source_ops[k]) + "/" +
             std::to_string(c.target_ops[k]));
    rule.released_operators = c.source_ops[k] + c.target_ops[k];
  }
  rule.fingerprint = c.fingerprint[k];
  rule.status = c.status[k];
  rule.proof_ms = c.proof_ms[k];
  rule.note = c.note[k];
  if (!c.derivation.empty()) {
    try {
      rule.derivation = derivation_from_text(c.derivation[k]);
    } catch (const Error& e) {
      r.fail(where + e.what());
    }
  }
  if (!c.family.empty() && !c.family[k].empty()) {
    try {
      rule.family = size_family_from_text(c.family[k]);
    } catch (const Error& e) {
      r.fail(where + e.what());
    }
    if (graphs)
      if (std::optional<std::string> why = family_misfit(*rule.family, rule)) r.fail(where + *why);
  }
  if ((rule.status == RuleStatus::derived) != !rule.derivation.empty())
    r.fail(where +
           (rule.derivation.empty() ? "derived without a derivation" : "a derivation but not derived"));
  for (const DerivationStep& step : rule.derivation) {
    if (step.rule < 0 || step.rule >= int64_t(c.source.size()))
      r.fail(where + "its derivation uses rule " + std::to_string(step.rule) + ", which the database lacks");
    if (graphs && step.output >= int32_t(rule.source.outputs().size()))
      r.fail(where + "its derivation has a step on output " + std::to_string(step.output) +
             ", the rule has " + std::to_string(rule.source.outputs().size()));
  }
  return rule;
}

// Frees rule k's text once its rule is built, so that the graphs reuse that
// memory: at 4 operators the JSON columns alone are half a gigabyte.
void release_text(RuleColumns& c, size_t k) {
  for (std::vector<std::string>* column :
       {&c.source, &c.target, &c.output_mapping, &c.note, &c.derivation, &c.family})
    if (k < column->size()) std::string().swap((*column)[k]);
}

std::vector<Rule> read_rules(const Reader& r, const std::string& path,
                             const RuleDatabase::GraphsWanted& wanted) {
  Handle group = r.group("rules");
  auto item = [&](const Column& col) { return r.dataset(group, "rules", col.name); };
  Item source = item(kSource);
  RuleColumns c;
  c.source = r.strings(source);
  size_t n = c.source.size();
  auto same_length = [&](const Item& it, size_t got) { r.expect_length(it, got, source.name, n); };
  Item target = item(kTarget), mapping = item(kOutputMapping), note = item(kNote);
  same_length(target, (c.target = r.strings(target)).size());
  same_length(mapping, (c.output_mapping = r.strings(mapping)).size());
  same_length(note, (c.note = r.strings(note)).size());
  Item fingerprint = item(kFingerprint), status = item(kStatus), proof_ms = item(kProofMs);
  same_length(fingerprint,
              (c.fingerprint = r.numbers<uint64_t>(fingerprint, H5T_NATIVE_UINT64, true)).size());
  same_length(status, (c.status = statuses(r, status)).size());
  same_length(proof_ms, (c.proof_ms = r.numbers<double>(proof_ms, H5T_NATIVE_DOUBLE, false)).size());
  Item source_ops = item(kSourceOps), target_ops = item(kTargetOps);
  same_length(source_ops, (c.source_ops = r.numbers<int32_t>(source_ops, H5T_NATIVE_INT32, true)).size());
  same_length(target_ops, (c.target_ops = r.numbers<int32_t>(target_ops, H5T_NATIVE_INT32, true)).size());
  if (H5Lexists(group, kDerivation.name, H5P_DEFAULT) > 0) {  // absent before derivations existed
    Item derivation = item(kDerivation);
    same_length(derivation, (c.derivation = r.strings(derivation)).size());
  }
  if (H5Lexists(group, kFamily.name, H5P_DEFAULT) > 0) {  // absent before size families
    Item family = item(kFamily);
    same_length(family, (c.family = r.strings(family)).size());
  }
  std::vector<Rule> rules;
  rules.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    rules.push_back(make_rule(r, path, c, k, !wanted || wanted(c.status[k])));
    release_text(c, k);
  }
  return rules;
}

}  // namespace

RuleDatabase RuleDatabase::read(const std::string& path, const GraphsWanted& wanted) {
  hdf5::silence_errors();
  Reader reader(path);
  reader.open();
  RuleDatabase db;
  db.info = info_of(reader);
  db.rules = read_rules(reader, path, wanted);
  db.graphs_file = path;
  return db;
}

RuleSetInfo RuleDatabase::read_info(const std::string& path) {
  hdf5::silence_errors();
  Reader reader(path);
  reader.open();
  return info_of(reader);
}

}  // namespace superopt
