// The one error type of superopt: a message for the user, thrown where input is bad.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace superopt {

// `text` with every control character (and DEL) written as \xNN: what came
// from a file (a name, a note, a location) prints as itself, never as a
// terminal escape sequence, a line break or a NUL that cuts the line short.
std::string printable(std::string_view text);

// Thrown for anything a user can cause (malformed graphs, shapes that do not
// fit, bad files, wrong flags). The command line prints what() on one line and
// exits with code 2; internal invariants use assert instead. The message is
// made printable here, once for every message, whatever it quotes.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(printable(message)) {}
  explicit Error(const char* message) : std::runtime_error(printable(message)) {}
};

}  // namespace superopt
