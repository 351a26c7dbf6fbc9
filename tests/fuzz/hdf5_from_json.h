// The HDF5 fuzz harnesses' input: a JSON description of a file's attributes
// and 1-D datasets (the form h5_to_fuzz_json.py dumps a real file in), written
// as a real HDF5 file with our writer. Mutating the description rather than
// the file's bytes fuzzes what our readers do with what a file holds (wrong
// types, missing or extra items, lengths that disagree, malformed text in
// strings) instead of the HDF5 library's own parsing of damaged bytes, which
// is Debian's libhdf5 and crashes and hangs on its own (tests/fuzz/README.md).
//   {"attributes": [[NAME, TYPE, VALUE], ...],
//    "datasets":   [["GROUP/NAME" or "NAME", TYPE, [VALUES...], [ENUM NAMES...]?], ...]}
//   TYPE: str, i64, u64, i32, f64, enum (uint8 whose value i is the i-th name)
#pragma once

#include <cstdlib>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/db/hdf5_io.h"

namespace superopt::fuzz {

namespace detail {

using nlohmann::json;

// A JSON number as a T, or false when it is not one T can hold exactly (the
// description may hold 1e30 where an integer column is written).
template <class T>
bool number_of(const json& v, T& out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) return false;
    out = v.get<T>();
    return true;
  } else {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
      out = static_cast<T>(u);
      return true;
    }
    if (!v.is_number_integer()) return false;
    const int64_t i = v.get<int64_t>();
    if (!std::in_range<T>(i)) return false;
    out = static_cast<T>(i);
    return true;
  }
}

// Numbers of one type, or false when a value is not one.
template <class T>
bool numbers_of(const json& values, std::vector<T>& out) {
  for (const json& v : values) {
    T x{};
    if (!number_of(v, x)) return false;
    out.push_back(x);
  }
  return true;
}

template <class T>
void number_column(const hdf5::Writer& w, hid_t group, const char* name, hid_t file_type, hid_t mem_type,
                   const json& values) {
  std::vector<T> data;
  if (!numbers_of(values, data)) throw Error("not numbers");
  w.column(group, name, file_type, mem_type, data.size(), data.data(), "fuzz");
}

inline void write_attribute(const hdf5::Writer& w, const json& a) {
  if (!a.is_array() || a.size() != 3 || !a[0].is_string() || !a[1].is_string()) throw Error("bad attribute");
  const std::string name = a[0], type = a[1];
  const json& v = a[2];
  if (type == "str" && v.is_string()) return w.attribute(w.file(), name.c_str(), v.get<std::string>());
  int64_t i = 0;
  if (type == "i64" && number_of(v, i)) return w.attribute(w.file(), name.c_str(), i);
  uint64_t u = 0;
  if (type == "u64" && number_of(v, u))
    return w.attribute(w.file(), name.c_str(), H5T_STD_U64LE, H5T_NATIVE_UINT64, &u);
  throw Error("bad attribute type");
}

inline void enum_column(const hdf5::Writer& w, hid_t group, const char* name, const json& values,
                        const json& names_json) {
  if (!names_json.is_array() || names_json.empty() || names_json.size() > 255) throw Error("bad enum names");
  std::vector<std::string> names;
  for (const json& n : names_json) {
    if (!n.is_string()) throw Error("bad enum names");
    names.push_back(n.get<std::string>());
  }
  std::vector<std::string_view> views(names.begin(), names.end());
  hdf5::Handle enum_type = hdf5::uint8_enum_type(views);
  std::vector<uint8_t> data;
  if (!numbers_of(values, data)) throw Error("not numbers");
  w.column(group, name, enum_type, enum_type, data.size(), data.data(), "fuzz");
}

inline void write_dataset(const hdf5::Writer& w, std::map<std::string, hdf5::Handle>& groups, const json& d) {
  if (!d.is_array() || d.size() < 3 || !d[0].is_string() || !d[1].is_string() || !d[2].is_array())
    throw Error("bad dataset");
  const std::string path = d[0], type = d[1];
  const json& values = d[2];
  hid_t group = w.file();
  std::string name = path;
  if (size_t slash = path.find('/'); slash != std::string::npos) {
    std::string group_name = path.substr(0, slash);
    name = path.substr(slash + 1);
    auto it = groups.find(group_name);
    if (it == groups.end()) it = groups.emplace(group_name, w.group(group_name.c_str())).first;
    group = it->second;
  }
  const char* n = name.c_str();
  if (type == "str") {
    std::vector<std::string> strings;
    for (const json& v : values) {
      if (!v.is_string()) throw Error("not strings");
      strings.push_back(v.get<std::string>());
    }
    return w.column(group, n, strings, "fuzz");
  }
  if (type == "i64") return number_column<int64_t>(w, group, n, H5T_STD_I64LE, H5T_NATIVE_INT64, values);
  if (type == "u64") return number_column<uint64_t>(w, group, n, H5T_STD_U64LE, H5T_NATIVE_UINT64, values);
  if (type == "i32") return number_column<int32_t>(w, group, n, H5T_STD_I32LE, H5T_NATIVE_INT32, values);
  if (type == "f64") return number_column<double>(w, group, n, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values);
  if (type == "enum" && d.size() == 4) return enum_column(w, group, n, values, d[3]);
  throw Error("bad dataset type");
}

}  // namespace detail

// Writes the file the description names at PATH; false when the text is not a
// description this can write (the input is then skipped).
inline bool write_hdf5_from_json(std::string_view text, const std::string& path) {
  using detail::json;
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return false;
  const json& attributes = doc.value("attributes", json::array());
  const json& datasets = doc.value("datasets", json::array());
  if (!attributes.is_array() || !datasets.is_array()) return false;
  // Written in place, without write_atomically's fsync and rename: the file
  // is scratch, and syncing would bound the harness to the disk's speed.
  try {
    hdf5::silence_errors();
    hdf5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    if (!file.valid()) abort();  // the scratch folder failed: not a finding
    hdf5::Writer w(path, file);
    std::map<std::string, hdf5::Handle> groups;
    for (const json& a : attributes) detail::write_attribute(w, a);
    for (const json& d : datasets) detail::write_dataset(w, groups, d);
    groups.clear();
    if (file.close() < 0) abort();
  } catch (const Error&) {
    return false;
  } catch (const json::exception&) {
    return false;  // a number out of its type's range
  }
  return true;
}

}  // namespace superopt::fuzz
