// Reading the HDF5 rule database (layout in rule_database.h): every way a file
// can be missing, foreign, damaged or inconsistent is a one-line Error.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "runtime/error.h"
#include "runtime/graph_json.h"
#include "runtime/hdf5_file.h"
#include "runtime/json_text.h"
#include "runtime/rule_database.h"

namespace superopt {

namespace {

using hdf5::Handle;

// A dataset or an attribute: both hold typed elements in a dataspace.
struct Item {
  Handle id;
  std::string name;  // for messages: "rules/source", "attribute 'max_ops'"
  bool attribute = false;

  Handle type() const { return Handle(attribute ? H5Aget_type(id) : H5Dget_type(id)); }
  Handle space() const { return Handle(attribute ? H5Aget_space(id) : H5Dget_space(id)); }
  herr_t read(hid_t mem_type, void* buf) const {
    return attribute ? H5Aread(id, mem_type, buf) : H5Dread(id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  }
};

// Reads one file; every failure throws "PATH: what is wrong".
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& why) const { json::throw_error(path_ + ": " + why); }

  void open() {
    std::FILE* f = std::fopen(path_.c_str(), "rb");
    if (!f || (std::fgetc(f) == EOF && std::ferror(f))) {
      std::string why = std::strerror(errno);
      if (f) std::fclose(f);
      json::throw_error("cannot open " + path_ + ": " + why);
    }
    std::fclose(f);
    Handle fapl = hdf5::file_access();
    htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
    if (is_hdf5 == 0) fail("not an HDF5 file (no HDF5 signature)");
    if (is_hdf5 < 0) fail("not a readable HDF5 file: " + hdf5::error_reason());
    file_ = Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl));
    if (!file_.valid()) fail("damaged HDF5 file: " + hdf5::error_reason());
  }

  Handle group(const char* name) const {
    if (H5Lexists(file_, name, H5P_DEFAULT) <= 0) fail("missing group /" + std::string(name));
    Handle g(H5Gopen2(file_, name, H5P_DEFAULT));
    if (!g.valid()) fail("cannot open group /" + std::string(name) + ": " + hdf5::error_reason());
    return g;
  }
  Item dataset(hid_t group, const char* group_name, const char* name) const {
    std::string full = std::string(group_name) + "/" + name;
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) fail("missing dataset /" + full);
    Item item{Handle(H5Dopen2(group, name, H5P_DEFAULT)), full, false};
    if (!item.id.valid()) fail("cannot open dataset /" + full + ": " + hdf5::error_reason());
    return item;
  }
  bool has_attribute(const char* name) const { return H5Aexists(file_, name) > 0; }
  Item attribute(const char* name) const {
    if (!has_attribute(name)) fail("missing attribute '" + std::string(name) + "'");
    Item item{Handle(H5Aopen(file_, name, H5P_DEFAULT)), "attribute '" + std::string(name) + "'", true};
    if (!item.id.valid()) fail("cannot open " + item.name + ": " + hdf5::error_reason());
    return item;
  }

  // Attributes hold one element; datasets are 1-D.
  size_t count(const Item& item) const {
    Handle space = item.space();
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[H5S_MAX_RANK] = {};
    if (rank < 0 || H5Sget_simple_extent_dims(space, dims, nullptr) < 0)
      fail(item.name + ": " + hdf5::error_reason());
    if (item.attribute && rank != 0) fail(item.name + ": expected a single value");
    if (!item.attribute && rank != 1)
      fail(item.name + ": expected a 1-D dataset, got rank " + std::to_string(rank));
    return item.attribute ? 1 : dims[0];
  }

  std::vector<std::string> strings(const Item& item) const {
    Handle type = item.type();
    if (H5Tget_class(type) != H5T_STRING) fail(item.name + ": expected strings");
    size_t n = count(item);
    std::vector<std::string> out(n);
    if (n == 0) return out;
    if (H5Tis_variable_str(type) > 0) {
      Handle mem = hdf5::string_type(H5Tget_cset(type));
      std::vector<char*> pointers(n, nullptr);
      herr_t status = item.read(mem, pointers.data());
      for (size_t i = 0; i < n; ++i)
        if (pointers[i]) out[i] = pointers[i], H5free_memory(pointers[i]);
      if (status < 0) fail("cannot read " + item.name + ": " + hdf5::error_reason());
    } else {  // fixed-length strings, as numpy's bytes arrays are stored
      size_t size = H5Tget_size(type);
      Handle mem(H5Tcopy(type));
      std::vector<char> buf(n * size);
      if (item.read(mem, buf.data()) < 0) fail("cannot read " + item.name + ": " + hdf5::error_reason());
      for (size_t i = 0; i < n; ++i) out[i].assign(&buf[i * size], strnlen(&buf[i * size], size));
    }
    return out;
  }
  std::string string(const char* attribute_name) const { return strings(attribute(attribute_name))[0]; }

  template <typename T>
  std::vector<T> numbers(const Item& item, hid_t mem_type, bool integral) const {
    H5T_class_t cls = H5Tget_class(item.type());
    if (cls != H5T_INTEGER && (integral || cls != H5T_FLOAT))
      fail(item.name + (integral ? ": expected integers" : ": expected numbers"));
    std::vector<T> out(count(item));
    if (!out.empty() && item.read(mem_type, out.data()) < 0)
      fail("cannot read " + item.name + ": " + hdf5::error_reason());
    return out;
  }
  int64_t integer(const char* attribute_name) const {
    return numbers<int64_t>(attribute(attribute_name), H5T_NATIVE_INT64, true)[0];
  }

  // Maps the file's enum members to statuses by name, so that stored values
  // need not match ours; values that are no member are refused.
  std::vector<RuleStatus> statuses(const Item& item) const {
    Handle type = item.type();
    if (H5Tget_class(type) != H5T_ENUM || H5Tget_size(type) != 1)
      fail(item.name + ": expected an enum over uint8");
    std::optional<RuleStatus> by_value[256];
    for (int m = 0; m < H5Tget_nmembers(type); ++m) {
      uint8_t value = 0;
      char* name = H5Tget_member_name(type, m);
      std::string member = name ? name : "";
      H5free_memory(name);
      H5Tget_member_value(type, m, &value);
      by_value[value] = rule_status_from_name(member);
      if (!by_value[value]) fail(item.name + ": unknown status name '" + member + "'");
    }
    std::vector<uint8_t> raw(count(item));
    if (!raw.empty() && item.read(type, raw.data()) < 0)
      fail("cannot read " + item.name + ": " + hdf5::error_reason());
    std::vector<RuleStatus> out;
    for (size_t k = 0; k < raw.size(); ++k) {
      if (!by_value[raw[k]])
        fail(item.name + "[" + std::to_string(k) + "]: unknown status value " + std::to_string(raw[k]));
      out.push_back(*by_value[raw[k]]);
    }
    return out;
  }

  void expect_length(const Item& item, size_t got, const std::string& other, size_t expected) const {
    if (got != expected)
      fail("/" + item.name + " has " + std::to_string(got) + " entries, /" + other + " has " +
           std::to_string(expected));
  }

 private:
  const std::string& path_;
  Handle file_;
};

RuleSetInfo read_info(const Reader& r) {
  if (!r.has_attribute("format")) r.fail("not a superopt rule database (no 'format' attribute)");
  std::string format = r.string("format");
  if (format != kRuleDatabaseFormat)
    r.fail("not a superopt rule database (format is '" + format + "', expected '" +
           std::string(kRuleDatabaseFormat) + "')");
  RuleSetInfo info;
  int64_t version = r.integer("format_version");
  if (version > kRuleDatabaseFormatVersion)
    r.fail("format_version " + std::to_string(version) + " is newer than this superopt reads (" +
           std::to_string(kRuleDatabaseFormatVersion) + "); update superopt");
  if (version < 1) r.fail("bad format_version " + std::to_string(version));
  info.format_version = static_cast<int>(version);
  info.generator_version = r.string("generator_version");
  info.opset_name = r.string("opset_name");
  info.opset_json = r.string("opset");
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
    unsigned s = 0, t = 0;
    char extra = 0;
    std::string pair = text.substr(pos, end - pos);
    if (std::sscanf(pair.c_str(), "%u:%u%c", &s, &t, &extra) != 2 || s >= n || t >= n || source_seen[s] ||
        target_seen[t])
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

// The /rules datasets, one vector per field.
struct RuleColumns {
  std::vector<std::string> source, target, mapping, note;
  std::vector<uint64_t> fingerprint;
  std::vector<RuleStatus> status;
  std::vector<double> proof_ms;
  std::vector<int32_t> source_ops, target_ops;
};

// Rule k from the columns, checked against itself.
Rule make_rule(const Reader& r, const std::string& path, const RuleColumns& c, size_t k) {
  Rule rule;
  rule.source = rule_graph(path, k, "source", c.source[k]);
  rule.target = rule_graph(path, k, "target", c.target[k]);
  std::string where = "rule " + std::to_string(k) + ": ";
  size_t n = rule.source.outputs().size();
  if (rule.target.outputs().size() != n)
    r.fail(where + "source has " + std::to_string(n) + " outputs, target has " +
           std::to_string(rule.target.outputs().size()));
  rule.target.set_outputs(aligned_outputs(r, k, c.mapping[k], rule.target));
  if (c.source_ops[k] != rule.source.num_operators() || c.target_ops[k] != rule.target.num_operators())
    r.fail(where + "source_ops/target_ops say " + std::to_string(c.source_ops[k]) + "/" +
           std::to_string(c.target_ops[k]) + ", the graphs have " +
           std::to_string(rule.source.num_operators()) + "/" + std::to_string(rule.target.num_operators()) +
           " operators");
  rule.fingerprint = c.fingerprint[k];
  rule.status = c.status[k];
  rule.proof_ms = c.proof_ms[k];
  rule.note = c.note[k];
  return rule;
}

std::vector<Rule> read_rules(const Reader& r, const std::string& path) {
  Handle group = r.group("rules");
  auto item = [&](const char* name) { return r.dataset(group, "rules", name); };
  Item source = item("source");
  RuleColumns c;
  c.source = r.strings(source);
  size_t n = c.source.size();
  auto same_length = [&](const Item& it, size_t got) { r.expect_length(it, got, source.name, n); };
  Item target = item("target"), mapping = item("output_mapping"), note = item("note");
  same_length(target, (c.target = r.strings(target)).size());
  same_length(mapping, (c.mapping = r.strings(mapping)).size());
  same_length(note, (c.note = r.strings(note)).size());
  Item fingerprint = item("fingerprint"), status = item("status"), proof_ms = item("proof_ms");
  same_length(fingerprint,
              (c.fingerprint = r.numbers<uint64_t>(fingerprint, H5T_NATIVE_UINT64, true)).size());
  same_length(status, (c.status = r.statuses(status)).size());
  same_length(proof_ms, (c.proof_ms = r.numbers<double>(proof_ms, H5T_NATIVE_DOUBLE, false)).size());
  Item source_ops = item("source_ops"), target_ops = item("target_ops");
  same_length(source_ops, (c.source_ops = r.numbers<int32_t>(source_ops, H5T_NATIVE_INT32, true)).size());
  same_length(target_ops, (c.target_ops = r.numbers<int32_t>(target_ops, H5T_NATIVE_INT32, true)).size());
  std::vector<Rule> rules;
  rules.reserve(n);
  for (size_t k = 0; k < n; ++k) rules.push_back(make_rule(r, path, c, k));
  return rules;
}

}  // namespace

RuleDatabase RuleDatabase::read(const std::string& path) {
  hdf5::silence_errors();
  Reader reader(path);
  reader.open();
  RuleDatabase db;
  db.info = read_info(reader);
  db.rules = read_rules(reader, path);
  return db;
}

}  // namespace superopt
