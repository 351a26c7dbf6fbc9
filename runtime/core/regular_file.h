// Reading an input file whole, safely: only a regular file, only up to a size
// limit, so that a FIFO, /dev/zero or a directory given as a model, an axiom
// file or an operator set is one line of error, never a hang or an unbounded read.
#pragma once

#include <cstdint>
#include <string>

namespace superopt {

// The bytes of the regular file at PATH. Throws Error "cannot open PATH:
// REASON" where it cannot be opened, "cannot open PATH: is a directory", "cannot
// open PATH: not a regular file (a FIFO)" for anything else but a regular file (opened without blocking, so a
// FIFO with no writer does not hang), and "PATH: N bytes, over the limit of M bytes for WHAT" for a file
// larger than max_bytes.
std::string read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what);

// Where a reader needs a descriptor (protobuf's streams): PATH opened for
// reading after the same checks; the caller closes it.
int open_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what);

// The limit for the text files we read (graph JSON, axioms, operator sets,
// device profiles): far above any we write, far below what would exhaust memory.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t(1) << 30;

}  // namespace superopt
