// Writing an output file all at once, so that no failure (a full disk, a file
// size limit, a killed process) ever leaves a truncated file or loses the one
// that was there: every file superopt writes (graph JSON, ONNX, HDF5 databases
// and cost tables) goes through here.
#pragma once

#include <string>
#include <string_view>

namespace superopt {

// Writes `bytes` to a temporary file in PATH's folder, syncs it to disk and
// renames it over PATH. On any failure the temporary file is removed, PATH is
// left as it was, and Error "cannot write PATH: REASON" is thrown, REASON being
// the system's (strerror) on one line.
// A PATH that exists and is not a regular file is never replaced: a character
// device or a FIFO is written in place (a FIFO without a reader is refused at
// once, not waited for), anything else (a directory) is refused; so is a
// read-only regular file (no write permission for us, or no write bit at all).
void write_file_atomically(const std::string& path, std::string_view bytes);

// Throws the Error write_file_atomically(path, ...) would throw for what PATH
// is, before any work: a directory, a file it refuses (a block device, a
// socket) or a read-only file. Nothing when PATH does not exist. For writers
// whose work comes first (verify on a read-only database failed after 13.6 s).
void check_output_path(const std::string& path);

}  // namespace superopt
