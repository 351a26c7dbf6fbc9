// The one error type of superopt: a message for the user, thrown where input is bad.
#pragma once

#include <stdexcept>
#include <string>

namespace superopt {

// Thrown for anything a user can cause (malformed graphs, shapes that do not
// fit, bad files, wrong flags). The command line prints what() on one line and
// exits with code 2; internal invariants use assert instead.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace superopt
