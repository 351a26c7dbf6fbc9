// The Python extension superopt._superopt: what its binding files share. The
// pure-Python package (python/superopt/) wraps these handles in the documented
// face; the reports cross as the same JSON text the command line prints.
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/db/rule_database.h"
#include "search/search.h"

namespace superopt::python {

// A loaded or optimized model: the graph with the names it came with.
struct GraphHandle {
  std::string name;
  Graph graph;
  std::vector<std::string> output_names;  // ONNX models: the outputs' names; else empty
  std::string source;                     // what it was loaded from ("builtin:x", a path, "<bytes>")
};

// A rule database read once, shared by every optimize() given it, with its
// usable rules compiled for the search once per choice of rules (keyed by
// allow_unverified, minimal_rules): a call reuses them instead of compiling
// thousands of rules again.
struct RulesHandle {
  std::string path;
  std::shared_ptr<const RuleDatabase> db;
  std::mutex compiled_mutex;
  std::map<std::pair<bool, bool>, std::shared_ptr<const UsableRules>> compiled;
};

void bind_errors(pybind11::module_& m);
void bind_graph(pybind11::module_& m);
void bind_rules(pybind11::module_& m);
void bind_optimize(pybind11::module_& m);
void bind_run(pybind11::module_& m);

}  // namespace superopt::python
