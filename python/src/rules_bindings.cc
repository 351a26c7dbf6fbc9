// superopt.RuleDatabase's handle: a rule database read once (HDF5), its counts
// by status (what `db info` counts), the minimal set (verified rules, derived
// from no other) and one rule's two sides and verdict (what `db show` prints).
#include <pybind11/stl.h>

#include <map>

#include "python/src/bindings.h"
#include "runtime/formats/graph_json.h"
#include "search/rule_databases.h"

namespace superopt::python {
namespace {

namespace py = pybind11;

std::shared_ptr<RulesHandle> read_rules(const std::string& path) {
  py::gil_scoped_release release;
  auto handle = std::make_shared<RulesHandle>();
  handle->path = path;
  // "A.h5,B.h5": the databases' rules one after another, as optimize --rules reads them.
  handle->db = std::make_shared<const RuleDatabase>(read_rule_databases(split_rule_paths(path)).all);
  return handle;
}

std::map<std::string, int64_t> status_counts(const RulesHandle& h) {
  std::map<std::string, int64_t> counts;
  for (int s = 0; s < kNumRuleStatuses; ++s) counts[std::string(rule_status_name(RuleStatus(s)))] = 0;
  for (const Rule& r : h.db->rules) ++counts[std::string(rule_status_name(r.status))];
  return counts;
}

std::vector<int64_t> minimal_set(const RulesHandle& h) {
  std::vector<int64_t> ids;
  for (size_t k = 0; k < h.db->rules.size(); ++k)
    if (h.db->rules[k].status == RuleStatus::verified) ids.push_back(int64_t(k));
  return ids;
}

const Rule& rule_at(const RulesHandle& h, int64_t k) {
  if (k < 0 || size_t(k) >= h.db->rules.size())
    throw py::index_error("rule " + std::to_string(k) + ": the database has " +
                          std::to_string(h.db->rules.size()) + " rules (0 to " +
                          std::to_string(int64_t(h.db->rules.size()) - 1) + ")");
  return h.db->rules[size_t(k)];
}

std::shared_ptr<GraphHandle> side(const RulesHandle& h, int64_t k, bool target) {
  const Rule& r = rule_at(h, k);
  std::string name = "rule " + std::to_string(k) + (target ? " target" : " source");
  return std::make_shared<GraphHandle>(GraphHandle{name, target ? r.target : r.source, {}, h.path});
}

py::dict rule_fields(const RulesHandle& h, int64_t k) {
  const Rule& r = rule_at(h, k);
  py::dict d;
  d["id"] = k;
  d["status"] = std::string(rule_status_name(r.status));
  d["fingerprint"] = r.fingerprint;
  d["operators"] = r.num_operators();
  d["note"] = r.note;
  d["derivation"] = derivation_text(r.derivation);
  d["family"] = r.family ? py::object(py::str(size_family_text(*r.family))) : py::object(py::none());
  return d;
}

py::dict info_fields(const RulesHandle& h) {
  const RuleSetInfo& i = h.db->info;
  py::dict d;
  d["generator_version"] = i.generator_version;
  d["opset"] = i.opset_name;
  d["max_ops"] = i.max_ops;
  d["seed"] = i.seed;
  d["arguments"] = i.arguments;
  d["stages"] = i.stage_counts;
  return d;
}

}  // namespace

void bind_rules(py::module_& m) {
  py::class_<RulesHandle, std::shared_ptr<RulesHandle>>(m, "RulesHandle")
      .def_readonly("path", &RulesHandle::path)
      .def("__len__", [](const RulesHandle& h) { return h.db->rules.size(); })
      .def("status_counts", &status_counts)
      .def("minimal_set", &minimal_set)
      .def("rule_fields", &rule_fields)
      .def("side", &side, py::arg("k"), py::arg("target"))
      .def("info", &info_fields);
  m.def("read_rules", &read_rules, py::arg("path"));
}

}  // namespace superopt::python
