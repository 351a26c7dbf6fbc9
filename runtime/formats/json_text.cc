// Strict JSON parsing with positions, and the field readers shared by superopt's file formats.
#include "runtime/formats/json_text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/nesting_limit.h"
#include "runtime/core/regular_file.h"

namespace superopt::json {
namespace {

// Builds the document from parser events. nlohmann's own builder keeps the last
// of two equal keys without a word, its callback variant is quadratic in the
// number of array elements. Depth is checked before (first_line_too_deep).
class StrictBuilder {
 public:
  explicit StrictBuilder(std::string_view file) : file_(file) {}
  Json take() { return std::move(root_); }

  bool null() { return place(nullptr); }
  bool boolean(bool b) { return place(b); }
  bool number_integer(Json::number_integer_t n) { return place(n); }
  bool number_unsigned(Json::number_unsigned_t n) { return place(n); }
  bool number_float(Json::number_float_t x, const Json::string_t&) { return place(x); }
  bool string(Json::string_t& s) { return place(std::move(s)); }
  bool binary(Json::binary_t&) { return false; }  // JSON text has none
  bool start_object(size_t) { return open(Json::object()); }
  bool start_array(size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& key) {
    Frame& f = frames_.back();
    if (!f.keys.insert(key).second) throw_error(file_ + ": " + path() + "duplicate key '" + key + "'");
    f.key = key;
    return true;
  }

  // Syntax errors and numbers out of range; position counts bytes read.
  template <class Exception>
  bool parse_error(size_t position, const std::string&, const Exception& e) {
    error_position = position;
    throw e;
  }

  size_t error_position = 0;

 private:
  struct Frame {
    Json* container;
    std::string key;
    std::set<std::string> keys;
  };

  // The new value's address stays valid while it is open: its parent only
  // grows again after it closes.
  Json* add(Json&& v) {
    if (frames_.empty()) return &(root_ = std::move(v));
    Frame& f = frames_.back();
    if (!f.container->is_array()) return &((*f.container)[f.key] = std::move(v));
    f.container->push_back(std::move(v));
    return &f.container->back();
  }
  bool place(Json&& v) {
    add(std::move(v));
    return true;
  }
  bool open(Json&& v) {
    frames_.push_back({add(std::move(v)), {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  // "nodes[2].params: " inside that object; "" at the top level.
  std::string path() const {
    std::string p;
    for (size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      // Appending, not operator+: GCC 12 warns falsely (-Wrestrict) on "[" + string.
      if (f.container->is_array())
        p.append("[").append(std::to_string(f.container->size() - 1)).append("]");
      else
        p.append(p.empty() ? "" : ".").append(f.key);
    }
    return p.empty() ? p : p + ": ";
  }

  std::string file_;
  Json root_;
  std::vector<Frame> frames_;
};

// The line where the text first nests deeper than kMaxNestingDepth, or 0: checked
// before parsing, so that no reader (nor the destructor of what it built) ever
// recurses as deep as a hostile file does.
int first_line_too_deep(std::string_view text) {
  int depth = 0, line = 1;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\')
        ++i;  // an escaped character, never the closing quote
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth) return line;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return 0;
}

std::string line_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

}  // namespace

// Names and keys may hold escaped control characters; messages stay on one line.
void throw_error(std::string msg) {
  throw Error(msg);  // Error makes it printable
}

Json parse_json(std::string_view text, std::string_view file) {
  if (int line = first_line_too_deep(text)) throw_error(std::string(file) + ": " + nesting_error(line));
  StrictBuilder builder(file);
  try {
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    // what() is "[json.exception.KIND.N] parse error at line L, column C: why" or
    // "[json.exception.KIND.N] why"; keep "why" and compute the position ourselves.
    std::string why = e.what();
    size_t start = why.find("] ");
    if (size_t colon = why.find(": "); why.find("] parse error") == start && colon != std::string::npos)
      why.erase(0, colon + 2);
    else if (start != std::string::npos)
      why.erase(0, start + 2);
    why = why.starts_with("syntax error ") ? "JSON " + why : "JSON error: " + why;
    size_t offset = builder.error_position ? builder.error_position - 1 : 0;
    throw_error(std::string(file) + ":" + line_column(text, offset) + ": " + why);
  }
  return builder.take();
}

void Where::fail(std::string_view field, std::string_view why) const {
  std::string msg = file;
  if (!entry.empty()) msg += ": " + entry;
  if (!field.empty()) msg += ": " + std::string(field);
  throw_error(msg + ": " + std::string(why));
}

// A short rendering of a bad value for messages.
std::string got(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 40) {
    size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80)
      --cut;  // not inside a UTF-8 character
    s = s.substr(0, cut) + "...";
  }
  return ", got " + s;
}

const Json* find_field(const Json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const Json& need_field(const Json& obj, std::string_view key, const Where& w) {
  if (const Json* v = find_field(obj, key)) return *v;
  w.fail("", "missing field '" + std::string(key) + "'");
}

void check_fields(const Json& obj, std::initializer_list<std::string_view> allowed, const Where& w) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    w.fail("", "unknown field '" + key + "' (expected " + list + ")");
  }
}

std::optional<int64_t> as_int(const Json& v) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return int64_t(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

// A number that rounds to a finite float (FLT_MAX is written as 3.4028235e+38,
// slightly above it as a double).
std::optional<float> as_float(const Json& v) {
  if (!v.is_number()) return std::nullopt;
  float f = static_cast<float>(v.get<double>());
  return std::isfinite(f) ? std::optional<float>(f) : std::nullopt;
}

const std::string& need_string(const Json& v, std::string_view field, const Where& w) {
  if (!v.is_string()) w.fail(field, "expected a string" + got(v));
  return v.get_ref<const std::string&>();
}

Shape read_shape(const Json& v, std::string_view field, const Where& w) {
  const std::string expected = "expected an array of at most 6 positive integers";
  if (!v.is_array() || v.size() > kMaxRank) w.fail(field, expected + got(v));
  Shape s;
  int64_t elements = 1;
  for (const Json& d : v) {
    std::optional<int64_t> x = as_int(d);
    if (!x || *x <= 0) w.fail(field, expected + got(v));
    if (*x > kMaxDimension)
      w.fail(field, "dimension " + std::to_string(*x) + " is over the limit of " +
                        std::to_string(kMaxDimension) + " (a 32-bit integer)");
    s.push_back(*x);
    if (elements > kMaxElements / *x) w.fail(field, "shape " + s.str() + "... has more than 2^40 elements");
    elements *= *x;
  }
  return s;
}

std::pair<int32_t, int32_t> read_pair(const Json& v, std::string_view field, const Where& w) {
  std::optional<int64_t> a, b;
  if (v.is_array() && v.size() == 2) a = as_int(v[0]), b = as_int(v[1]);
  auto ok = [](std::optional<int64_t> x) { return x && *x > 0 && *x <= std::numeric_limits<int32_t>::max(); };
  if (!ok(a) || !ok(b)) w.fail(field, "expected an array of 2 positive integers" + got(v));
  return {int32_t(*a), int32_t(*b)};
}

std::string read_tensor_name(const Json& obj, const Where& w) {
  const std::string& name = need_string(need_field(obj, "name", w), "name", w);
  if (name.empty()) w.fail("name", "must not be empty");
  if (name.find(':') != std::string::npos)
    w.fail("name", "'" + name + "' contains ':', which separates a name from an output port");
  if (has_control_character(name)) w.fail("name", "'" + name + "' contains a control character");
  return name;
}

bool has_control_character(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// One line per entry: JSON with a space after ':' and ',', no line breaks.
void render(std::string& out, const Json& v) {
  if (v.is_object() || v.is_array()) {
    out += v.is_object() ? '{' : '[';
    bool first = true;
    for (const auto& [key, value] : v.items()) {
      if (!first) out += ", ";
      first = false;
      if (v.is_object()) out += Json(key).dump() + ": ";
      render(out, value);
    }
    out += v.is_object() ? '}' : ']';
  } else {
    out += v.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

// The shortest decimal that reads back as the same float (0.1, not
// 0.10000000149011612), falling back to the exact double where it would not.
Json float_json(float f) {
  char buf[32];
  char* end = std::to_chars(buf, buf + sizeof buf, f).ptr;
  if (f == 0 && std::signbit(f)) return Json(-0.0);  // "-0" would read back as the integer 0
  double d = f;
  double shortest = 0;
  if (std::from_chars(buf, end, shortest).ec == std::errc() && static_cast<float>(shortest) == f)
    d = shortest;
  return Json(d);
}

std::string read_text_file(const std::string& path) {
  return read_regular_file(path, kMaxTextFileBytes, "a text file");
}

}  // namespace superopt::json
