// Tests: FileEditor changes a written HDF5 file the way a foreign tool would,
// to make the damaged and malformed files the readers must refuse.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/db/hdf5_file.h"

namespace superopt::test {

// Edits a written HDF5 file (rule database, cost table) with the HDF5 C API,
// as a foreign tool would.
class FileEditor {
 public:
  explicit FileEditor(const std::string& path) : file_(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    REQUIRE(file_.valid());
  }

  void remove(const char* link) { REQUIRE(H5Ldelete(file_, link, H5P_DEFAULT) >= 0); }
  void remove_attribute(const char* name) { REQUIRE(H5Adelete(file_, name) >= 0); }

  void set_attribute(const char* name, int64_t value) {
    if (H5Aexists(file_, name) > 0) remove_attribute(name);
    hdf5::Handle space(H5Screate(H5S_SCALAR));
    hdf5::Handle attr(H5Acreate2(file_, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(H5Awrite(attr, H5T_NATIVE_INT64, &value) >= 0);
  }
  void set_attribute(const char* name, const std::string& value) {
    if (H5Aexists(file_, name) > 0) remove_attribute(name);
    hdf5::Handle type = hdf5::string_type();
    hdf5::Handle space(H5Screate(H5S_SCALAR));
    hdf5::Handle attr(H5Acreate2(file_, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
    const char* p = value.c_str();
    REQUIRE(H5Awrite(attr, type, &p) >= 0);
  }

  void replace_numbers(const char* dataset, const std::vector<int32_t>& values) {
    write_new(dataset, H5T_STD_I32LE, H5T_NATIVE_INT32, values.size(), values.data());
  }

  void replace_strings(const char* dataset, const std::vector<std::string>& values) {
    std::vector<const char*> pointers;
    for (const std::string& s : values) pointers.push_back(s.c_str());
    hdf5::Handle type = hdf5::string_type();
    write_new(dataset, type, type, values.size(), pointers.data());
  }

  // As numpy stores bytes arrays: every string padded to the longest.
  void replace_fixed_strings(const char* dataset, const std::vector<std::string>& values) {
    size_t size = 1;
    for (const std::string& v : values) size = std::max(size, v.size());
    std::vector<char> buf(values.size() * size, '\0');
    for (size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), &buf[i * size]);
    hdf5::Handle type(H5Tcopy(H5T_C_S1));
    REQUIRE(H5Tset_size(type, size) >= 0);
    REQUIRE(H5Tset_strpad(type, H5T_STR_NULLPAD) >= 0);
    write_new(dataset, type, type, values.size(), buf.data());
  }

  // Stores a raw value in the status enum: same memory and file type, so
  // HDF5 converts nothing and checks nothing.
  void set_raw_status(size_t k, uint8_t value) {
    hdf5::Handle set(H5Dopen2(file_, "rules/status", H5P_DEFAULT));
    hdf5::Handle type(H5Dget_type(set));
    std::vector<uint8_t> raw(4);
    REQUIRE(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) >= 0);
    raw[k] = value;
    REQUIRE(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) >= 0);
  }

 private:
  // Replaces `dataset` by a new one of n elements of file type `type`,
  // written from `data` (elements of memory type `memory`).
  void write_new(const char* dataset, hid_t type, hid_t memory, hsize_t n, const void* data) {
    remove(dataset);
    hdf5::Handle space(H5Screate_simple(1, &n, nullptr));
    hdf5::Handle set(H5Dcreate2(file_, dataset, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(H5Dwrite(set, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  }

  hdf5::Handle file_;
};

}  // namespace superopt::test
