// Reading and writing superopt's HDF5 files (rule databases, cost tables):
// typed attributes and 1-D datasets, atomic writes, and one-line errors that
// name the file for every way it can be missing, foreign or damaged.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/db/hdf5_file.h"

namespace superopt::hdf5 {

// Writes into one open file; every failure throws "cannot write PATH: what: reason".
class Writer {
 public:
  Writer(const std::string& path, hid_t file) : path_(path), file_(file) {}

  [[noreturn]] void fail(const std::string& what) const;
  Handle check(hid_t id, const std::string& what) const {
    if (id < 0) fail(what);
    return Handle(id);
  }
  void check(herr_t result, const std::string& what) const {
    if (result < 0) fail(what);
  }

  hid_t file() const { return file_; }
  // The root attributes every superopt file starts with: format, format_version, description.
  void format_header(std::string_view format, int64_t version, const std::string& description) const;
  Handle group(const char* name) const;
  void attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value) const;
  void attribute(hid_t obj, const char* name, const std::string& value) const;
  void attribute(hid_t obj, const char* name, int64_t value) const;
  // A 1-D dataset of n elements, with a description for whoever opens the file.
  void column(hid_t group, const char* name, hid_t file_type, hid_t mem_type, size_t n, const void* data,
              const std::string& description) const;
  void column(hid_t group, const char* name, const std::vector<std::string>& values,
              const std::string& description) const;
  // Strings for many elements of similar text (rule graphs: about 20x smaller):
  // fixed-length, NUL-padded to the longest, in deflated chunks; readers see
  // strings as with column() (h5py: bytes). Variable-length strings instead
  // when padding would cost over 64x the text, a value holds a NUL, or this
  // HDF5 lacks deflate.
  void compressed_column(hid_t group, const char* name, const std::vector<std::string>& values,
                         const std::string& description) const;

 private:
  const std::string& path_;
  hid_t file_;
};

// Creates PATH atomically: `fill` writes the file in memory, whose bytes then go
// through write_file_atomically (runtime/core/atomic_file.h); on any error PATH
// is untouched and no temporary file is left.
void write_atomically(const std::string& path, const std::function<void(const Writer&)>& fill);

// A dataset or an attribute: both hold typed elements in a dataspace.
struct Item {
  Handle id;
  std::string name;  // for messages: "rules/source", "attribute 'max_ops'"
  bool attribute = false;

  Handle type() const { return Handle(attribute ? H5Aget_type(id) : H5Dget_type(id)); }
  Handle space() const { return Handle(attribute ? H5Aget_space(id) : H5Dget_space(id)); }
  herr_t read(hid_t mem_type, void* buf) const {
    return attribute ? H5Aread(id, mem_type, buf) : H5Dread(id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  }
};

// Reads one file; every failure throws "PATH: what is wrong".
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& why) const;
  // Opens the file: "cannot open PATH: reason", "not an HDF5 file", "damaged HDF5 file".
  void open();
  hid_t file() const { return file_; }

  // Checks the format attribute ("not a superopt KIND (...)") and returns
  // format_version, refusing versions above max_version and below 1.
  int64_t check_format(std::string_view format, std::string_view kind, int64_t max_version) const;
  Handle group(const char* name) const;
  // A dataset in `group` (the file itself for a root dataset, group_name "").
  Item dataset(hid_t group, const char* group_name, const char* name) const;
  bool has_attribute(const char* name) const { return H5Aexists(file_, name) > 0; }
  Item attribute(const char* name) const;

  // Attributes hold one element; datasets are 1-D.
  size_t count(const Item& item) const;
  std::vector<std::string> strings(const Item& item) const;
  std::string string(const char* attribute_name) const { return strings(attribute(attribute_name))[0]; }
  template <typename T>
  std::vector<T> numbers(const Item& item, hid_t mem_type, bool integral) const {
    H5T_class_t cls = H5Tget_class(item.type());
    if (cls != H5T_INTEGER && (integral || cls != H5T_FLOAT))
      fail(item.name + (integral ? ": expected integers" : ": expected numbers"));
    std::vector<T> out(rows_in_memory(item, sizeof(T)));
    if (!out.empty() && item.read(mem_type, out.data()) < 0)
      fail("cannot read " + item.name + ": " + error_reason());
    return out;
  }
  int64_t integer(const char* attribute_name) const {
    return numbers<int64_t>(attribute(attribute_name), H5T_NATIVE_INT64, true)[0];
  }
  void expect_length(const Item& item, size_t got, const std::string& other, size_t expected) const;
  // count(item), refused with the file, the dataset and the size when that many
  // elements of `bytes_each` in memory are over the larger of the memory budget
  // and its default (runtime/core/memory_budget.h: --max-memory bounds tensors,
  // not a file's data): a 2^40-row dataset was a bare "out of memory".
  size_t rows_in_memory(const Item& item, size_t bytes_each) const;

 private:
  void fixed_strings(const Item& item, hid_t type, std::vector<std::string>& out) const;

  const std::string& path_;
  Handle file_;
};

}  // namespace superopt::hdf5
