// Writing the HDF5 rule database (layout in rule_database.h) atomically through
// a temporary file; rule status names.
#include "runtime/rule_database.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "runtime/error.h"
#include "runtime/graph_json.h"
#include "runtime/hdf5_io.h"
#include "runtime/json_text.h"

namespace superopt {

namespace {

constexpr std::string_view kStatusNames[kNumRuleStatuses] = {"candidate", "verified", "refuted", "unknown"};

using hdf5::Handle;

using hdf5::Writer;

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

// The rules as columns, converted before the file is created so that a
// graph that cannot be written leaves no file behind.
struct RuleColumns {
  std::vector<std::string> source, target, mapping, note;
  std::vector<uint64_t> fingerprint;
  std::vector<uint8_t> status;
  std::vector<double> proof_ms;
  std::vector<int32_t> source_ops, target_ops;
};

RuleColumns rule_columns(const std::string& path, const std::vector<Rule>& rules) {
  RuleColumns c;
  for (size_t k = 0; k < rules.size(); ++k) {
    const Rule& r = rules[k];
    std::string where = "cannot write " + path + ": rule " + std::to_string(k);
    if (static_cast<int>(r.status) >= kNumRuleStatuses)
      json::throw_error(where + ": invalid status " + std::to_string(static_cast<int>(r.status)));
    if (r.source.outputs().size() != r.target.outputs().size())
      json::throw_error(where + ": source has " + std::to_string(r.source.outputs().size()) +
                        " outputs, target has " + std::to_string(r.target.outputs().size()));
    try {
      c.source.push_back(write_graph_json(r.source));
      c.target.push_back(write_graph_json(r.target));
    } catch (const Error& e) {
      json::throw_error(where + ": " + e.what());
    }
    c.mapping.push_back(output_mapping_text(r.source.outputs().size()));
    c.note.push_back(r.note);
    c.fingerprint.push_back(r.fingerprint);
    c.status.push_back(static_cast<uint8_t>(r.status));
    c.proof_ms.push_back(r.proof_ms);
    c.source_ops.push_back(r.source.num_operators());
    c.target_ops.push_back(r.target.num_operators());
  }
  return c;
}

void write_rules(const Writer& w, const RuleColumns& c) {
  Handle rules = w.group("rules");
  size_t n = c.source.size();
  w.column(rules, "source", c.source, "source graph (superopt-graph JSON)");
  w.column(rules, "target", c.target, "target graph (superopt-graph JSON), same inputs as the source");
  w.column(rules, "output_mapping", c.mapping, "S:T pairs: source output S is target output T");
  w.column(rules, "fingerprint", H5T_STD_U64LE, H5T_NATIVE_UINT64, n, c.fingerprint.data(),
           "fingerprint class both graphs fell in");
  Handle status = hdf5::uint8_enum_type(kStatusNames);
  w.column(rules, "status", status, status, n, c.status.data(), "candidate, verified, refuted or unknown");
  w.column(rules, "proof_ms", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, c.proof_ms.data(),
           "milliseconds the verifier spent");
  w.column(rules, "note", c.note, "refuted: the counterexample; unknown: why");
  w.column(rules, "source_ops", H5T_STD_I32LE, H5T_NATIVE_INT32, n, c.source_ops.data(),
           "operators in the source graph");
  w.column(rules, "target_ops", H5T_STD_I32LE, H5T_NATIVE_INT32, n, c.target_ops.data(),
           "operators in the target graph");
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

void RuleDatabase::write(const std::string& path) const {
  hdf5::silence_errors();
  RuleColumns columns = rule_columns(path, rules);
  hdf5::write_atomically(path, [&](const Writer& w) {
    write_info(w, w.file(), info);
    write_rules(w, columns);
  });
}

}  // namespace superopt
