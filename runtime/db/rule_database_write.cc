// Writing the HDF5 rule database (layout in rule_database.h) atomically through
// a temporary file; rule status names.
#include "runtime/db/rule_database.h"

#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "runtime/core/error.h"
#include "runtime/db/hdf5_io.h"
#include "runtime/db/rule_columns.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/json_text.h"

namespace superopt {

namespace {

using hdf5::Handle;
using hdf5::Writer;
using namespace rule_columns;

std::string output_mapping_text(size_t num_outputs) {
  std::string s;
  for (size_t k = 0; k < num_outputs; ++k) {
    // Appending, not operator+: GCC 12 warns falsely (-Wrestrict) on "," + string.
    if (k) s += ',';
    s.append(std::to_string(k)).append(":").append(std::to_string(k));
  }
  return s;
}

void write_info(const Writer& w, hid_t file, const RuleSetInfo& info) {
  w.format_header(kRuleDatabaseFormat, kRuleDatabaseFormatVersion,
                  "superopt substitution rules: rule K is element K of every dataset in /rules; source and "
                  "target are superopt-graph JSON; /stages lists the rule count after each generator stage");
  w.attribute(file, "generator_version", info.generator_version);
  w.attribute(file, "opset_name", info.opset_name);
  w.attribute(file, "opset", info.opset_json);
  w.attribute(file, "max_ops", int64_t{info.max_ops});
  w.attribute(file, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, &info.seed);
  w.attribute(file, "arguments", info.arguments);
  Handle stages = w.group("stages");
  std::vector<std::string> names;
  std::vector<int64_t> counts;
  for (const auto& [name, count] : info.stage_counts) names.push_back(name), counts.push_back(count);
  w.column(stages, "name", names, "generator stage, in order");
  w.column(stages, "count", H5T_STD_I64LE, H5T_NATIVE_INT64, counts.size(), counts.data(),
           "rules left after the stage");
}

// Appends rule k to the columns; every rule is converted before the file is
// created, so that a graph that cannot be written leaves no file behind.
void append_rule(RuleColumns& c, const std::string& path, size_t k, const Rule& r) {
  std::string where = "cannot write " + path + ": rule " + std::to_string(k);
  if (static_cast<int>(r.status) >= kNumRuleStatuses)
    json::throw_error(where + ": invalid status " + std::to_string(static_cast<int>(r.status)));
  c.note.push_back(r.note);
  c.derivation.push_back(derivation_text(r.derivation));
  c.family.push_back(r.family ? size_family_text(*r.family) : std::string());
  c.fingerprint.push_back(r.fingerprint);
  c.status.push_back(r.status);
  c.proof_ms.push_back(r.proof_ms);
  if (r.graphs_released()) return;  // its graph columns are copied (copy_graph_columns)
  if (r.source.outputs().size() != r.target.outputs().size())
    json::throw_error(where + ": source has " + std::to_string(r.source.outputs().size()) +
                      " outputs, target has " + std::to_string(r.target.outputs().size()));
  try {
    c.source.push_back(write_graph_json(r.source));
    c.target.push_back(write_graph_json(r.target));
  } catch (const Error& e) {
    json::throw_error(where + ": " + e.what());
  }
  c.output_mapping.push_back(output_mapping_text(r.source.outputs().size()));
  c.source_ops.push_back(r.source.num_operators());
  c.target_ops.push_back(r.target.num_operators());
}

// The columns that describe the rules' graphs, which a database whose graphs
// were released copies from the file they came from.
constexpr const Column* kGraphColumns[] = {&kSource, &kTarget, &kOutputMapping, &kSourceOps, &kTargetOps};

// Copies the graph columns of `from` into `rules`, after checking that it
// still holds the rules being written (their count and fingerprints): the
// graphs were released on the promise that the file keeps them.
void copy_graph_columns(const Writer& w, hid_t rules, const std::string& from,
                        const std::vector<uint64_t>& fingerprints) {
  hdf5::Reader r(from);
  r.open();
  Handle group = r.group("rules");
  const std::vector<uint64_t> stored =
      r.numbers<uint64_t>(r.dataset(group, "rules", kFingerprint.name), H5T_NATIVE_UINT64, true);
  if (stored != fingerprints)
    w.fail("the rules' graphs were released, and " + from + " no longer holds these rules");
  for (const Column* col : kGraphColumns) {
    r.dataset(group, "rules", col->name);  // fails naming the file when absent
    w.check(H5Ocopy(group, col->name, rules, col->name, H5P_DEFAULT, H5P_DEFAULT),
            std::string("copying rules/") + col->name + " from " + from);
  }
}

// Each text column is freed once HDF5 has it: the file is built in memory,
// so holding the text as well would take a third copy of the database.
// `graphs_from` non-empty: the graph columns come from that file instead.
void write_rules(const Writer& w, RuleColumns& c, const std::string& graphs_from) {
  Handle rules = w.group("rules");
  size_t n = c.fingerprint.size();
  auto strings = [&](const Column& col, std::vector<std::string>& values) {
    w.compressed_column(rules, col.name, values, col.description);
    std::vector<std::string>().swap(values);
  };
  auto numbers = [&](const Column& col, hid_t file_type, hid_t memory_type, const void* data) {
    w.column(rules, col.name, file_type, memory_type, n, data, col.description);
  };
  if (graphs_from.empty()) {
    strings(kSource, c.source);
    strings(kTarget, c.target);
    strings(kOutputMapping, c.output_mapping);
    numbers(kSourceOps, H5T_STD_I32LE, H5T_NATIVE_INT32, c.source_ops.data());
    numbers(kTargetOps, H5T_STD_I32LE, H5T_NATIVE_INT32, c.target_ops.data());
  } else {
    copy_graph_columns(w, rules, graphs_from, c.fingerprint);
  }
  numbers(kFingerprint, H5T_STD_U64LE, H5T_NATIVE_UINT64, c.fingerprint.data());
  Handle status = hdf5::uint8_enum_type(kStatusNames);
  static_assert(sizeof(RuleStatus) == sizeof(uint8_t));
  numbers(kStatus, status, status, c.status.data());
  numbers(kProofMs, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.proof_ms.data());
  strings(kNote, c.note);
  strings(kDerivation, c.derivation);
  strings(kFamily, c.family);
  // The text was many small blocks amid the heap: give their pages back
  // before the file image is copied out.
  malloc_trim(0);
}

}  // namespace

std::string_view rule_status_name(RuleStatus s) {
  auto i = static_cast<size_t>(s);
  return i < std::size(kStatusNames) ? kStatusNames[i] : "invalid";
}

std::optional<RuleStatus> rule_status_from_name(std::string_view name) {
  for (int i = 0; i < kNumRuleStatuses; ++i)
    if (kStatusNames[i] == name) return static_cast<RuleStatus>(i);
  return std::nullopt;
}

namespace {

void write_columns(const std::string& path, const RuleSetInfo& info, RuleColumns& columns,
                   const std::string& graphs_from = {}) {
  hdf5::write_atomically(path, [&](const Writer& w) {
    write_info(w, w.file(), info);
    write_rules(w, columns, graphs_from);
  });
}

}  // namespace

void RuleDatabase::write(const std::string& path) const {
  hdf5::silence_errors();
  const auto released =
      std::count_if(rules.begin(), rules.end(), [](const Rule& r) { return r.graphs_released(); });
  if (released > 0 && size_t(released) < rules.size())
    json::throw_error("cannot write " + path + ": " + std::to_string(released) + " of " +
                      std::to_string(rules.size()) +
                      " rules have their graphs released (all or none can be written)");
  RuleColumns columns;
  for (size_t k = 0; k < rules.size(); ++k) append_rule(columns, path, k, rules[k]);
  write_columns(path, info, columns, released > 0 ? graphs_file : std::string());
}

void RuleDatabase::release_graphs(size_t k) {
  if (graphs_file.empty())
    throw Error("rule " + std::to_string(k) + ": graphs released from a database that no file holds");
  Rule& r = rules.at(k);
  if (r.graphs_released()) return;
  r.released_operators = r.num_operators();
  r.source = Graph();
  r.target = Graph();
}

void RuleDatabase::release_all_graphs() {
  for (size_t k = 0; k < rules.size(); ++k) release_graphs(k);
  malloc_trim(0);
}

void write_rule_database(const std::string& path, const RuleSetInfo& info, size_t num_rules,
                         const std::function<void(size_t k, Rule& rule)>& rule_at,
                         const std::function<void(size_t rules_done)>& progress) {
  hdf5::silence_errors();
  RuleColumns columns;
  for (size_t k = 0; k < num_rules; ++k) {
    Rule rule;
    rule_at(k, rule);
    append_rule(columns, path, k, rule);
    if (progress) progress(k + 1);
  }
  write_columns(path, info, columns);
}

}  // namespace superopt
