// Converting TensorProto data to known values, and their broadcasting arithmetic.
#include "runtime/formats/onnx_constant.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "runtime/core/error.h"

namespace superopt::onnx_import {
namespace {

using onnx::TensorProto;

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 40) / d)) throw Error("bad or too large dimensions");
    n *= d;
  }
  return n;
}

int element_size(int type) {
  switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return 4;
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::UINT64:
      return 8;
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return 1;
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return 2;
    default:
      return 0;
  }
}

// Little-endian element k of raw bytes as a double (real) or int64.
template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void from_raw(const std::string& bytes, int type, Constant& c) {
  const int64_t n = c.size();
  const char* p = bytes.data();
  if (c.is_real) {
    c.reals.resize(n);
    if (type == TensorProto::FLOAT) {
      std::memcpy(c.reals.data(), p, n * 4);
    } else {
      for (int64_t k = 0; k < n; ++k) c.reals[k] = static_cast<float>(load<double>(p + 8 * k));
    }
    return;
  }
  c.ints.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    const char* e = p + k * element_size(type);
    switch (type) {
      case TensorProto::INT64:
      case TensorProto::UINT64:
        c.ints[k] = load<int64_t>(e);
        break;
      case TensorProto::INT32:
        c.ints[k] = load<int32_t>(e);
        break;
      case TensorProto::UINT32:
        c.ints[k] = load<uint32_t>(e);
        break;
      case TensorProto::INT16:
        c.ints[k] = load<int16_t>(e);
        break;
      case TensorProto::UINT16:
        c.ints[k] = load<uint16_t>(e);
        break;
      case TensorProto::INT8:
        c.ints[k] = load<int8_t>(e);
        break;
      default:
        c.ints[k] = load<uint8_t>(e);
        break;
    }
  }
}

// The typed repeated field holding the data, as read by its count and getter.
void from_fields(const TensorProto& t, Constant& c) {
  const int64_t n = c.size();
  auto check = [&](int64_t have) {
    if (have != n)
      throw Error(std::to_string(have) + " values for shape of " + std::to_string(n) + " elements");
  };
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      check(t.float_data_size());
      c.reals.assign(t.float_data().begin(), t.float_data().end());
      return;
    case TensorProto::DOUBLE:
      check(t.double_data_size());
      for (double d : t.double_data()) c.reals.push_back(static_cast<float>(d));
      return;
    case TensorProto::INT64:
      check(t.int64_data_size());
      c.ints.assign(t.int64_data().begin(), t.int64_data().end());
      return;
    case TensorProto::UINT64:
      check(t.uint64_data_size());
      c.ints.assign(t.uint64_data().begin(), t.uint64_data().end());
      return;
    default:  // int32 and smaller integer types and bool live in int32_data
      check(t.int32_data_size());
      c.ints.assign(t.int32_data().begin(), t.int32_data().end());
      return;
  }
}

// An open file descriptor, closed on every path out.
struct FileDescriptor {
  int fd;
  explicit FileDescriptor(int f) : fd(f) {}
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
};

// The external data file LOCATION names, resolved (links included) and required
// to stay inside the model's folder, also resolved: a link in that folder to
// /etc/passwd, or to /etc with the file below it, passes any check of the text
// alone and would read a file the model's author does not own.
std::string external_path(const std::string& model_dir, const std::string& location) {
  namespace fs = std::filesystem;
  if (location.find('\0') != std::string::npos)  // the system would read the name only up to it
    throw Error("external data location '" + location + "' holds a NUL byte");
  if (location.find("..") != std::string::npos || location[0] == '/')
    throw Error("external data location '" + location + "' leaves the model's folder");
  const fs::path given = fs::path(model_dir.empty() ? "." : model_dir) / location;
  std::error_code error;
  const fs::path dir = fs::canonical(model_dir.empty() ? "." : model_dir, error);
  if (error) throw Error("model folder '" + model_dir + "' cannot be resolved: " + error.message());
  const fs::path file = fs::canonical(given, error);
  if (error) throw Error("external data file '" + given.string() + "' cannot be opened: " + error.message());
  const fs::path inside = file.lexically_relative(dir);
  if (inside.empty() || *inside.begin() == "..")
    throw Error("external data location '" + location + "' leaves the model's folder (it resolves to " +
                file.string() + ")");
  return file.string();
}

// Opens PATH for reading and requires a regular file: a FIFO would block the
// import forever, a device would read without end. O_NONBLOCK makes the open
// of a FIFO return at once; it changes nothing for a regular file.
int open_regular(const std::string& location, const std::string& path, int64_t& size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error("external data file '" + path + "' cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("external data location '" + location + "' is not a regular file");
  }
  size = static_cast<int64_t>(st.st_size);
  return fd;
}

// WANT bytes at OFFSET of the open file FD (named PATH in errors).
std::string read_at(int fd, const std::string& path, int64_t offset, int64_t want) {
  std::string bytes(static_cast<size_t>(want), '\0');
  int64_t done = 0;
  while (done < want) {
    ssize_t n = ::pread(fd, bytes.data() + done, static_cast<size_t>(want - done), offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("external data file '" + path + "' cannot be read: " + std::strerror(errno));
    if (n == 0) throw Error("external data file '" + path + "' is shorter than its tensor");
    done += n;
  }
  return bytes;
}

// A tensor's external_data entries.
struct ExternalEntry {
  std::string location;
  int64_t offset = 0, length = -1;
};

ExternalEntry external_entry(const TensorProto& t) {
  ExternalEntry e;
  for (const auto& entry : t.external_data()) {
    if (entry.key() == "location") e.location = entry.value();
    if (entry.key() == "offset") e.offset = std::stoll(entry.value());
    if (entry.key() == "length") e.length = std::stoll(entry.value());
  }
  if (e.location.empty()) throw Error("external data without a location");
  return e;
}

std::string external_bytes(const TensorProto& t, const std::string& model_dir, int64_t want) {
  const auto [location, offset, length] = external_entry(t);
  const std::string path = external_path(model_dir, location);
  int64_t file_bytes = 0;
  FileDescriptor file(open_regular(location, path, file_bytes));
  if (length >= 0 && length != want)
    throw Error("external data length " + std::to_string(length) + " does not match the shape (" +
                std::to_string(want) + " bytes)");
  // The file's size bounds the allocation: a shape of terabytes over a small
  // file is refused here, not allocated first.
  if (offset < 0 || offset > file_bytes || file_bytes - offset < want)
    throw Error("external data file '" + path + "' is shorter than its tensor (" + std::to_string(want) +
                " bytes at offset " + std::to_string(offset) + ")");
  return read_at(file.fd, path, offset, want);
}

}  // namespace

int64_t Constant::size() const {
  return element_count(dims);
}

Shape Constant::shape() const {
  return shape_of(dims);
}

Shape shape_of(const std::vector<int64_t>& dims) {
  if (dims.size() > kMaxRank) throw Error("rank " + std::to_string(dims.size()) + " is above 6");
  Shape s;
  for (int64_t d : dims) {
    if (d <= 0 || d > std::numeric_limits<int32_t>::max())
      throw Error("dimension " + std::to_string(d) + " is not a positive 32-bit size");
    s.push_back(d);
  }
  return s;
}

Constant Constant::integers(std::vector<int64_t> dims, std::vector<int64_t> values) {
  Constant c;
  c.dims = std::move(dims);
  c.is_real = false;
  c.ints = std::move(values);
  return c;
}

Constant Constant::real(std::vector<int64_t> dims, std::vector<float> values) {
  Constant c;
  c.dims = std::move(dims);
  c.reals = std::move(values);
  return c;
}

Constant read_tensor(TensorProto& t, const std::string& model_dir) {
  const std::string what = "tensor '" + t.name() + "': ";
  try {
    const int type = t.data_type();
    if (element_size(type) == 0)
      throw Error("data type " + std::string(TensorProto::DataType_Name(TensorProto::DataType(type))) +
                  " is not supported (float, double and integers are)");
    Constant c;
    c.name = t.name();
    c.dims.assign(t.dims().begin(), t.dims().end());
    c.is_real = type == TensorProto::FLOAT || type == TensorProto::DOUBLE;
    const int64_t bytes = c.size() * element_size(type);
    if (t.data_location() == TensorProto::EXTERNAL) {
      from_raw(external_bytes(t, model_dir, bytes), type, c);
    } else if (t.has_raw_data()) {
      if (static_cast<int64_t>(t.raw_data().size()) != bytes)
        throw Error(std::to_string(t.raw_data().size()) + " bytes of data for " + std::to_string(bytes) +
                    " bytes of shape");
      from_raw(t.raw_data(), type, c);
      std::string().swap(*t.mutable_raw_data());
    } else {
      from_fields(t, c);
    }
    return c;
  } catch (const Error& e) {
    throw Error(what + e.what());
  } catch (const std::exception& e) {  // std::stoll on a malformed offset or length
    throw Error(what + "malformed external data entry (" + e.what() + ")");
  }
}

void load_external_data(TensorProto& t, const std::string& model_dir) {
  if (t.data_location() != TensorProto::EXTERNAL) return;
  try {
    const int type = t.data_type();
    if (element_size(type) == 0)
      throw Error("data type " + std::string(TensorProto::DataType_Name(TensorProto::DataType(type))) +
                  " is not supported (float, double and integers are)");
    const std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    std::string bytes = external_bytes(t, model_dir, element_count(dims) * element_size(type));
    t.set_raw_data(std::move(bytes));
    t.clear_external_data();
    t.set_data_location(TensorProto::DEFAULT);
  } catch (const Error& e) {
    throw Error("tensor '" + t.name() + "': " + e.what());
  } catch (const std::exception& e) {  // std::stoll on a malformed offset or length
    throw Error("tensor '" + t.name() + "': malformed external data entry (" + e.what() + ")");
  }
}

std::vector<int64_t> as_ints(const Constant& c, const std::string& what) {
  if (c.is_real) throw Error(what + " must be integers");
  return c.ints;
}

std::vector<int64_t> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) throw Error("constant shapes do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Constant broadcast_apply(const Constant& a, const Constant& b, double (*f)(double, double)) {
  Constant out;
  out.dims = broadcast_dims(a.dims, b.dims);
  out.is_real = a.is_real || b.is_real;
  const int64_t n = out.size();
  const size_t rank = out.dims.size();
  // Index into a or b: row-major over out, a dimension of size 1 (or missing) repeats.
  auto index_of = [&](const Constant& c, int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (size_t k = rank; k-- > 0;) {
      const int64_t here = flat % out.dims[k];
      flat /= out.dims[k];
      const size_t ck = k + c.dims.size();
      if (ck < rank) continue;
      const int64_t d = c.dims[ck - rank];
      idx += (d == 1 ? 0 : here) * stride;
      stride *= d;
    }
    return idx;
  };
  for (int64_t i = 0; i < n; ++i) {
    const double v = f(a.at(index_of(a, i)), b.at(index_of(b, i)));
    if (out.is_real)
      out.reals.push_back(static_cast<float>(v));
    else
      out.ints.push_back(static_cast<int64_t>(v));
  }
  return out;
}

}  // namespace superopt::onnx_import
