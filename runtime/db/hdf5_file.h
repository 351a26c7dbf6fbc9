// Small helpers over the HDF5 C API: an owning handle, HDF5's own error
// message as a string, and the types the rule database stores.
#pragma once

#include <hdf5.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace superopt::hdf5 {

// Owns one HDF5 identifier, so that every path out of a function closes it.
// Never wrap the library's predefined types (H5T_NATIVE_INT and the like).
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    std::swap(id_, other.id_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { close(); }

  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closing a file flushes it, so its result can be taken explicitly.
  herr_t close();

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Turns off HDF5's printing of its error stack to stderr, so that failures
// surface only as our one-line errors.
void silence_errors();

// The most specific message on HDF5's error stack, which is then cleared.
std::string error_reason();

// Variable-length strings in the given character set.
Handle string_type(H5T_cset_t cset = H5T_CSET_UTF8);

// An enum over uint8 whose value i is names[i], so that h5dump prints names.
Handle uint8_enum_type(std::span<const std::string_view> names);

// File access with locking where the file system supports it.
Handle file_access();

// Why the link NAME in LOC may not be followed, or "" when it may. Only hard
// links are: an external link opens another file, and a soft link may lead to
// one, so either would let a file we read make us read any file.
std::string link_problem(hid_t loc, const char* name);

// Why the open dataset's data may not be read, or "" when it may: external
// storage and virtual datasets keep the data in other files, any file the
// writer named (/etc/passwd read as a rule's note).
std::string storage_problem(hid_t dataset);

}  // namespace superopt::hdf5
