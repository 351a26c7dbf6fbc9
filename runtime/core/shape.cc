// The errors of Shape's range checks (see shape.h), out of line: the checks
// themselves are inline, on every shape built.
#include "runtime/core/shape.h"

#include "runtime/core/error.h"

namespace superopt {

void Shape::throw_dimension_out_of_range(int64_t d) {
  throw Error("dimension " + std::to_string(d) + " is out of range (at most " + std::to_string(INT32_MAX) +
              ")");
}

void Shape::throw_rank_too_large() const {
  throw Error("a tensor of rank " + std::to_string(rank_ + 1) + " after " + str() + ": at most rank " +
              std::to_string(kMaxRank) + " is supported");
}

}  // namespace superopt
