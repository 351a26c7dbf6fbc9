// superopt's errors as Python exceptions: superopt::Error (the command line's
// one-line message, exit 2 there) becomes superopt.Error, a ValueError, with
// the same message; running out of memory becomes MemoryError.
#include <new>

#include "python/src/bindings.h"
#include "runtime/core/error.h"

namespace superopt::python {

void bind_errors(pybind11::module_& m) {
  static pybind11::exception<Error> error(m, "Error", PyExc_ValueError);
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace superopt::python
