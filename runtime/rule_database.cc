// Writing the HDF5 rule database (layout in rule_database.h) atomically through
// a temporary file; rule status names.
#include "runtime/rule_database.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "runtime/error.h"
#include "runtime/graph_json.h"
#include "runtime/hdf5_file.h"
#include "runtime/json_text.h"

namespace superopt {

namespace {

constexpr std::string_view kStatusNames[kNumRuleStatuses] = {"candidate", "verified", "refuted", "unknown"};

using hdf5::Handle;

// Writes the layout into one open file; every failure throws "cannot write PATH: ...".
class Writer {
 public:
  Writer(const std::string& path, hid_t file) : path_(path), file_(file) {}

  [[noreturn]] void fail(const std::string& what) const {
    json::throw_error("cannot write " + path_ + ": " + what + ": " + hdf5::error_reason());
  }
  Handle check(hid_t id, const std::string& what) const {
    if (id < 0) fail(what);
    return Handle(id);
  }
  void check(herr_t result, const std::string& what) const {
    if (result < 0) fail(what);
  }

  Handle group(const char* name) const {
    return check(H5Gcreate2(file_, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
  }

  void attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value) const {
    Handle space = check(H5Screate(H5S_SCALAR), name);
    Handle attr = check(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), name);
    check(H5Awrite(attr, mem_type, value), name);
  }
  void attribute(hid_t obj, const char* name, const std::string& value) const {
    const char* p = value.c_str();
    Handle t = hdf5::string_type();
    attribute(obj, name, t, t, &p);
  }
  void attribute(hid_t obj, const char* name, int64_t value) const {
    attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
  }

  // A 1-D dataset of n elements, with a description for whoever opens the file.
  void column(hid_t group, const char* name, hid_t file_type, hid_t mem_type, size_t n, const void* data,
              const std::string& description) const {
    hsize_t dims[1] = {n};
    Handle space = check(H5Screate_simple(1, dims, nullptr), name);
    Handle set =
        check(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
    if (n > 0) check(H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    attribute(set, "description", description);
  }
  void column(hid_t group, const char* name, const std::vector<std::string>& values,
              const std::string& description) const {
    std::vector<const char*> pointers;
    for (const std::string& s : values) pointers.push_back(s.c_str());
    Handle t = hdf5::string_type();
    column(group, name, t, t, values.size(), pointers.data(), description);
  }

 private:
  const std::string& path_;
  hid_t file_;
};

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
  w.attribute(file, "format", std::string(kRuleDatabaseFormat));
  w.attribute(file, "format_version", int64_t{kRuleDatabaseFormatVersion});
  w.attribute(file, "description",
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

// Makes the data durable before the rename makes it visible.
void sync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Removes the temporary file unless the rename happened.
struct TemporaryFile {
  std::string path;
  bool keep = false;
  ~TemporaryFile() {
    if (!keep) std::remove(path.c_str());
  }
};

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
  TemporaryFile tmp{path + ".tmp-" + std::to_string(::getpid())};
  // fopen first: its errno says plainly why a directory cannot be written.
  std::FILE* probe = std::fopen(tmp.path.c_str(), "wb");
  if (!probe) json::throw_error("cannot write " + path + ": " + std::strerror(errno));
  std::fclose(probe);
  {
    Handle fapl = hdf5::file_access();
    Handle file(H5Fcreate(tmp.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    Writer w(path, file);
    if (!file.valid()) w.fail("cannot create " + tmp.path);
    write_info(w, file, info);
    write_rules(w, columns);
    w.check(file.close(), "closing " + tmp.path);
  }
  sync_file(tmp.path);
  if (std::rename(tmp.path.c_str(), path.c_str()) != 0)
    json::throw_error("cannot write " + path + ": rename from " + tmp.path + ": " + std::strerror(errno));
  tmp.keep = true;
}

}  // namespace superopt
