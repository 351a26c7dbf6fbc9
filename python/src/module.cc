// superopt._superopt: the compiled half of the Python package. Each binding
// file adds its functions; superopt/__init__.py is the documented face.
#include "python/src/bindings.h"

PYBIND11_MODULE(_superopt, m) {
  m.doc() = "superopt's C++ libraries for the superopt package (use superopt, not this module)";
  superopt::python::bind_errors(m);
  superopt::python::bind_graph(m);
  superopt::python::bind_rules(m);
  superopt::python::bind_optimize(m);
  superopt::python::bind_run(m);
}
