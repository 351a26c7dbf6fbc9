// Strict JSON for superopt's files: errors at line:column, duplicate keys and
// nesting bounded (runtime/core/nesting_limit.h), and field readers whose errors name the file and field.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/core/shape.h"

namespace superopt::json {

using Json = nlohmann::ordered_json;

// Far beyond any real tensor, and small enough that element and FLOP counts
// computed from it cannot overflow int64.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;
// Dimensions are 32-bit integers throughout (shapes, kernels, the ONNX reader).
inline constexpr int64_t kMaxDimension = std::numeric_limits<int32_t>::max();

// Throws Error with control characters escaped, so messages stay on one line.
[[noreturn]] void throw_error(std::string msg);

// Parses a whole document; syntax errors read "file:line:column: JSON syntax error ...".
Json parse_json(std::string_view text, std::string_view file);
// The contents of a file; "cannot open PATH: reason" when it cannot be read.
std::string read_text_file(const std::string& path);

// Where an error is: the file and the entry, e.g. nodes[3] ("conv2").
struct Where {
  std::string file;
  std::string entry;

  // Throws "file: entry: field: why" (empty parts left out) on one line.
  [[noreturn]] void fail(std::string_view field, std::string_view why) const;
};

// ", got VALUE" with the value shortened, for messages.
std::string got(const Json& v);
const Json* find_field(const Json& obj, std::string_view key);
const Json& need_field(const Json& obj, std::string_view key, const Where& w);
// Fails on any key not in `allowed`.
void check_fields(const Json& obj, std::initializer_list<std::string_view> allowed, const Where& w);
std::optional<int64_t> as_int(const Json& v);
// A number that rounds to a finite float.
std::optional<float> as_float(const Json& v);
const std::string& need_string(const Json& v, std::string_view field, const Where& w);
// At most kMaxRank positive dimensions and kMaxElements elements.
Shape read_shape(const Json& v, std::string_view field, const Where& w);
// [a, b] with two positive 32-bit integers.
std::pair<int32_t, int32_t> read_pair(const Json& v, std::string_view field, const Where& w);
bool has_control_character(std::string_view s);
// The "name" field of something tensors refer to: non-empty, no ':' (it
// separates a name from an output port), no control characters.
std::string read_tensor_name(const Json& obj, const Where& w);

// Appends v on one line, with a space after ':' and ','.
void render(std::string& out, const Json& v);
// The shortest decimal that reads back as the same float.
Json float_json(float f);

}  // namespace superopt::json
