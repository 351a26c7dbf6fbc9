// How deep any superopt reader lets its input nest (JSON arrays and objects,
// axiom terms): one limit for every format, far beyond what real files need
// (graph files nest 5 deep, the shipped axioms 6) and far below what would
// overflow the stack of a recursive reader or of the code that walks the result.
#pragma once

#include <string>

namespace superopt {

inline constexpr int kMaxNestingDepth = 64;

// "nesting deeper than 64 at line L": the message every reader gives.
inline std::string nesting_error(int line) {
  return "nesting deeper than " + std::to_string(kMaxNestingDepth) + " at line " + std::to_string(line);
}

}  // namespace superopt
