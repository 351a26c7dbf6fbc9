// Typed HDF5 reading and atomic writing (see hdf5_io.h).
#include "runtime/db/hdf5_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/core/atomic_file.h"
#include "runtime/core/memory_budget.h"
#include "runtime/formats/json_text.h"

namespace superopt::hdf5 {

void Writer::fail(const std::string& what) const {
  json::throw_error("cannot write " + path_ + ": " + what + ": " + error_reason());
}

void Writer::format_header(std::string_view format, int64_t version, const std::string& description) const {
  attribute(file_, "format", std::string(format));
  attribute(file_, "format_version", version);
  attribute(file_, "description", description);
}

Handle Writer::group(const char* name) const {
  return check(H5Gcreate2(file_, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
}

void Writer::attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type,
                       const void* value) const {
  Handle space = check(H5Screate(H5S_SCALAR), name);
  Handle attr = check(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), name);
  check(H5Awrite(attr, mem_type, value), name);
}

void Writer::attribute(hid_t obj, const char* name, const std::string& value) const {
  const char* p = value.c_str();
  Handle t = string_type();
  attribute(obj, name, t, t, &p);
}

void Writer::attribute(hid_t obj, const char* name, int64_t value) const {
  attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void Writer::column(hid_t group, const char* name, hid_t file_type, hid_t mem_type, size_t n,
                    const void* data, const std::string& description) const {
  hsize_t dims[1] = {n};
  Handle space = check(H5Screate_simple(1, dims, nullptr), name);
  Handle set = check(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
  if (n > 0) check(H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  attribute(set, "description", description);
}

void Writer::column(hid_t group, const char* name, const std::vector<std::string>& values,
                    const std::string& description) const {
  std::vector<const char*> pointers;
  for (const std::string& s : values) pointers.push_back(s.c_str());
  Handle t = string_type();
  column(group, name, t, t, values.size(), pointers.data(), description);
}

namespace {

// Rows per chunk: about 1 MiB of padded text, so a chunk compresses well and
// a reader needs only that much at a time.
size_t chunk_rows(size_t n, size_t width) {
  return std::clamp<size_t>((size_t{1} << 20) / width, 1, n);
}

bool worth_padding(const std::vector<std::string>& values, size_t width) {
  size_t text_bytes = 0;
  for (const std::string& v : values) {
    if (v.find('\0') != std::string::npos) return false;
    text_bytes += v.size();
  }
  // Deflate makes padding nearly free; what it costs is compressing it (and
  // a chunk of it in memory): beyond 64x the text, as for a column of notes
  // mostly empty but for a few long counterexamples, variable-length is cheaper.
  return values.size() * width <= std::max<size_t>(64 * text_bytes, size_t{1} << 20) &&
         H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0;
}

}  // namespace

void Writer::compressed_column(hid_t group, const char* name, const std::vector<std::string>& values,
                               const std::string& description) const {
  size_t width = 1;
  for (const std::string& v : values) width = std::max(width, v.size());
  size_t n = values.size();
  if (n == 0 || !worth_padding(values, width)) return column(group, name, values, description);
  Handle type = check(H5Tcopy(H5T_C_S1), name);
  check(H5Tset_size(type, width), name);
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), name);
  check(H5Tset_cset(type, H5T_CSET_UTF8), name);
  hsize_t dims[1] = {n}, chunk[1] = {chunk_rows(n, width)};
  Handle space = check(H5Screate_simple(1, dims, nullptr), name);
  Handle props = check(H5Pcreate(H5P_DATASET_CREATE), name);
  check(H5Pset_chunk(props, 1, chunk), name);
  // Level 4: the 4-operator graphs' text 20x smaller in 2.7 s; 6 is 28x in 5.4 s.
  check(H5Pset_deflate(props, 4), name);
  Handle set = check(H5Dcreate2(group, name, type, space, H5P_DEFAULT, props, H5P_DEFAULT), name);
  // Chunk by chunk, so the padded text is never all in memory at once.
  std::vector<char> buffer;
  for (hsize_t first = 0; first < n; first += chunk[0]) {
    hsize_t rows[1] = {std::min<hsize_t>(chunk[0], n - first)}, start[1] = {first};
    buffer.assign(rows[0] * width, '\0');
    for (hsize_t i = 0; i < rows[0]; ++i) values[first + i].copy(&buffer[i * width], width);
    Handle memory = check(H5Screate_simple(1, rows, nullptr), name);
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, rows, nullptr), name);
    check(H5Dwrite(set, type, memory, space, H5P_DEFAULT, buffer.data()), name);
  }
  attribute(set, "description", description);
}

// The file is built in memory (HDF5's core driver without a backing store), so
// HDF5 itself never writes to disk: a full disk or a size limit is met by
// write_file_atomically, which keeps the old file and says why with errno, and
// no HDF5 file is ever left half-closed (which crashed HDF5 at exit).
void write_atomically(const std::string& path, const std::function<void(const Writer&)>& fill) {
  silence_errors();
  std::string image;
  {
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
    constexpr size_t kGrowthBytes = size_t{1} << 20;
    if (!fapl.valid() || H5Pset_fapl_core(fapl, kGrowthBytes, false) < 0)
      json::throw_error("cannot write " + path + ": " + error_reason());
    // A name of its own: the file at PATH may be open for reading in this process.
    const std::string memory_name = path + ".in-memory-" + std::to_string(::getpid());
    Handle file(H5Fcreate(memory_name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    Writer w(path, file);
    if (!file.valid()) w.fail("cannot create it in memory");
    fill(w);
    w.check(H5Fflush(file, H5F_SCOPE_LOCAL), "flushing");
    ssize_t size = H5Fget_file_image(file, nullptr, 0);
    if (size < 0) w.fail("taking the file image");
    image.resize(static_cast<size_t>(size));
    if (H5Fget_file_image(file, image.data(), image.size()) != size) w.fail("taking the file image");
    w.check(file.close(), "closing");
  }
  write_file_atomically(path, image);
}

void Reader::fail(const std::string& why) const {
  json::throw_error(path_ + ": " + why);
}

void Reader::open() {
  silence_errors();
  std::FILE* f = std::fopen(path_.c_str(), "rb");
  if (!f || (std::fgetc(f) == EOF && std::ferror(f))) {
    std::string why = std::strerror(errno);
    if (f) std::fclose(f);
    json::throw_error("cannot open " + path_ + ": " + why);
  }
  std::fclose(f);
  Handle fapl = file_access();
  htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
  if (is_hdf5 == 0) fail("not an HDF5 file (no HDF5 signature)");
  if (is_hdf5 < 0) fail("not a readable HDF5 file: " + error_reason());
  file_ = Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl));
  if (!file_.valid()) fail("damaged HDF5 file: " + error_reason());
}

int64_t Reader::check_format(std::string_view format, std::string_view kind, int64_t max_version) const {
  std::string what = "not a superopt " + std::string(kind);
  if (!has_attribute("format")) fail(what + " (no 'format' attribute)");
  std::string found = string("format");
  if (found != format) fail(what + " (format is '" + found + "', expected '" + std::string(format) + "')");
  int64_t version = integer("format_version");
  if (version > max_version)
    fail("format_version " + std::to_string(version) + " is newer than this superopt reads (" +
         std::to_string(max_version) + "); update superopt");
  if (version < 1) fail("bad format_version " + std::to_string(version));
  return version;
}

Handle Reader::group(const char* name) const {
  if (H5Lexists(file_, name, H5P_DEFAULT) <= 0) fail("missing group /" + std::string(name));
  if (std::string why = link_problem(file_, name); !why.empty())
    fail("group /" + std::string(name) + " " + why);
  Handle g(H5Gopen2(file_, name, H5P_DEFAULT));
  if (!g.valid()) fail("cannot open group /" + std::string(name) + ": " + error_reason());
  return g;
}

Item Reader::dataset(hid_t group, const char* group_name, const char* name) const {
  std::string full = *group_name ? std::string(group_name) + "/" + name : std::string(name);
  if (H5Lexists(group, name, H5P_DEFAULT) <= 0) fail("missing dataset /" + full);
  if (std::string why = link_problem(group, name); !why.empty()) fail("dataset /" + full + " " + why);
  Item item{Handle(H5Dopen2(group, name, H5P_DEFAULT)), full, false};
  if (!item.id.valid()) fail("cannot open dataset /" + full + ": " + error_reason());
  if (std::string why = storage_problem(item.id); !why.empty()) fail("dataset /" + full + " " + why);
  return item;
}

Item Reader::attribute(const char* name) const {
  if (!has_attribute(name)) fail("missing attribute '" + std::string(name) + "'");
  Item item{Handle(H5Aopen(file_, name, H5P_DEFAULT)), "attribute '" + std::string(name) + "'", true};
  if (!item.id.valid()) fail("cannot open " + item.name + ": " + error_reason());
  return item;
}

size_t Reader::count(const Item& item) const {
  Handle space = item.space();
  int rank = H5Sget_simple_extent_ndims(space);
  hsize_t dims[H5S_MAX_RANK] = {};
  if (rank < 0 || H5Sget_simple_extent_dims(space, dims, nullptr) < 0)
    fail(item.name + ": " + error_reason());
  if (item.attribute && rank != 0) fail(item.name + ": expected a single value");
  if (!item.attribute && rank != 1)
    fail(item.name + ": expected a 1-D dataset, got rank " + std::to_string(rank));
  return item.attribute ? 1 : dims[0];
}

std::vector<std::string> Reader::strings(const Item& item) const {
  Handle type = item.type();
  if (H5Tget_class(type) != H5T_STRING) fail(item.name + ": expected strings");
  // A string in memory: its object, and its text (the element size is the
  // fixed width, or a pointer for variable-length strings).
  size_t n = rows_in_memory(item, sizeof(std::string) + H5Tget_size(type));
  std::vector<std::string> out(n);
  if (n == 0) return out;
  if (H5Tis_variable_str(type) > 0) {
    Handle mem = string_type(H5Tget_cset(type));
    std::vector<char*> pointers(n, nullptr);
    herr_t status = item.read(mem, pointers.data());
    for (size_t i = 0; i < n; ++i)
      if (pointers[i]) out[i] = pointers[i], H5free_memory(pointers[i]);
    if (status < 0) fail("cannot read " + item.name + ": " + error_reason());
  } else {  // fixed-length strings: compressed_column's, or numpy's bytes arrays
    fixed_strings(item, type, out);
  }
  return out;
}

// A block at a time (about 16 MiB of padded text), not n x width at once.
void Reader::fixed_strings(const Item& item, hid_t type, std::vector<std::string>& out) const {
  size_t size = H5Tget_size(type), n = out.size();
  Handle mem(H5Tcopy(type));
  if (item.attribute) {
    std::vector<char> buf(size);
    if (item.read(mem, buf.data()) < 0) fail("cannot read " + item.name + ": " + error_reason());
    out[0].assign(buf.data(), strnlen(buf.data(), size));
    return;
  }
  Handle space = item.space();
  hsize_t block = std::max<size_t>(1, (size_t{16} << 20) / std::max<size_t>(size, 1));
  std::vector<char> buf;
  for (hsize_t first = 0; first < n; first += block) {
    hsize_t rows[1] = {std::min<hsize_t>(block, n - first)}, start[1] = {first};
    buf.resize(rows[0] * size);
    Handle memory(H5Screate_simple(1, rows, nullptr));
    if (!memory.valid() || H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, rows, nullptr) < 0 ||
        H5Dread(item.id, mem, memory, space, H5P_DEFAULT, buf.data()) < 0)
      fail("cannot read " + item.name + ": " + error_reason());
    for (hsize_t i = 0; i < rows[0]; ++i)
      out[first + i].assign(&buf[i * size], strnlen(&buf[i * size], size));
  }
}

size_t Reader::rows_in_memory(const Item& item, size_t bytes_each) const {
  size_t n = count(item);
  // Not the tensor budget alone: `optimize --max-memory 2M` bounds the search's
  // graph copies, and the rule database it reads is still read.
  const int64_t budget = std::max(memory_budget_bytes(), default_memory_budget_bytes());
  if (n > 0 && bytes_each > size_t(budget) / n)
    fail("/" + item.name + " has " + std::to_string(n) + " entries, " +
         (n > size_t(INT64_MAX) / bytes_each ? std::string("more than 9.2 EB")
                                             : bytes_text(int64_t(n * bytes_each))) +
         " in memory, over the " + bytes_text(budget) +
         " a file's data may take (3/4 of this machine's memory, or --max-memory if larger)");
  return n;
}

void Reader::expect_length(const Item& item, size_t got, const std::string& other, size_t expected) const {
  if (got != expected)
    fail("/" + item.name + " has " + std::to_string(got) + " entries, /" + other + " has " +
         std::to_string(expected));
}

}  // namespace superopt::hdf5
