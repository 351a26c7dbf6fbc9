// Small helpers over the HDF5 C API (see hdf5_file.h).
#include "runtime/db/hdf5_file.h"

#include <cstdint>
#include <string>

namespace superopt::hdf5 {

herr_t Handle::close() {
  herr_t result = 0;
  if (id_ >= 0) {
    switch (H5Iget_type(id_)) {
      case H5I_FILE:
        result = H5Fclose(id_);
        break;
      case H5I_GROUP:
        result = H5Gclose(id_);
        break;
      case H5I_DATASET:
        result = H5Dclose(id_);
        break;
      case H5I_ATTR:
        result = H5Aclose(id_);
        break;
      case H5I_DATATYPE:
        result = H5Tclose(id_);
        break;
      case H5I_DATASPACE:
        result = H5Sclose(id_);
        break;
      case H5I_GENPROP_LST:
        result = H5Pclose(id_);
        break;
      default:
        result = H5Idec_ref(id_);
    }
  }
  id_ = H5I_INVALID_HID;
  return result;
}

void silence_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

namespace {

// HDF5's low-level messages hold a whole record ("file write failed: time =
// ...\n, filename = ..., errno = 27, error message = 'File too large', buf =
// 0x..."): keep the system's message when there is one, and one line always.
std::string one_line_reason(const std::string& desc) {
  const std::string marker = "error message = '";
  if (size_t at = desc.find(marker); at != std::string::npos) {
    size_t end = desc.find('\'', at + marker.size());
    if (end != std::string::npos) return desc.substr(at + marker.size(), end - at - marker.size());
  }
  std::string out;
  for (char c : desc) out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  return out;
}

}  // namespace

// Walking upward, entry 0 is the deepest call: the most specific message.
std::string error_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? "HDF5 error" : one_line_reason(reason);
}

Handle string_type(H5T_cset_t cset) {
  Handle t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, cset);
  return t;
}

Handle uint8_enum_type(std::span<const std::string_view> names) {
  Handle t(H5Tenum_create(H5T_NATIVE_UINT8));
  for (size_t i = 0; i < names.size(); ++i) {
    auto value = static_cast<uint8_t>(i);
    H5Tenum_insert(t, std::string(names[i]).c_str(), &value);
  }
  return t;
}

Handle file_access() {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_file_locking(fapl, true, true);
  return fapl;
}

std::string link_problem(hid_t loc, const char* name) {
  H5L_info_t info{};
  if (H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0) return "cannot be inspected: " + error_reason();
  switch (info.type) {
    case H5L_TYPE_HARD:
      return "";
    case H5L_TYPE_SOFT:
      return "is a soft link, refused (superopt follows no links in the files it reads)";
    case H5L_TYPE_EXTERNAL:
      return "is an external link to another file, refused (superopt reads nothing outside the file)";
    default:
      return "is a user-defined link, refused (superopt follows no links in the files it reads)";
  }
}

std::string storage_problem(hid_t dataset) {
  Handle dcpl(H5Dget_create_plist(dataset));
  if (!dcpl.valid()) return "has no readable creation properties: " + error_reason();
  if (H5Pget_layout(dcpl) == H5D_VIRTUAL)
    return "is a virtual dataset (its data in other files), refused (superopt reads nothing outside the "
           "file)";
  if (H5Pget_external_count(dcpl) != 0)
    return "has external storage (its data in another file), refused (superopt reads nothing outside the "
           "file)";
  return "";
}

}  // namespace superopt::hdf5
