// Reading and writing operator parameters, with errors naming the parameter at fault.
#include "runtime/formats/op_params_json.h"

#include <cmath>
#include <limits>
#include <string>
#include <tuple>

namespace superopt {
namespace {

using namespace json;

void read_perm(const Json& v, const std::string& field, const Where& w, OpParams& out) {
  if (!v.is_array() || v.size() > kMaxRank)
    w.fail(field, "expected an array of at most 6 dimensions" + got(v));
  for (size_t i = 0; i < v.size(); ++i) {
    std::optional<int64_t> d = as_int(v[i]);
    if (!d || *d < 0 || *d >= kMaxRank) w.fail(field, "expected dimensions from 0 to 5" + got(v));
    out.perm[i] = static_cast<int8_t>(*d);
  }
}

Padding read_padding(const Json& v, const std::string& field, const Where& w) {
  const std::string& s = need_string(v, field, w);
  if (s != "same" && s != "valid") w.fail(field, "expected \"same\" or \"valid\"" + got(v));
  return s == "same" ? Padding::same : Padding::valid;
}

Activation read_activation(const Json& v, const std::string& field, const Where& w) {
  const std::string& s = need_string(v, field, w);
  std::optional<Activation> a = activation_from_name(s);
  if (!a)
    w.fail(field, "expected \"none\", \"relu\", \"sigmoid\", \"silu\", \"hardswish\", \"gelu\" or \"relu6\"" +
                      got(v));
  return *a;
}

// A float, or "inf" / "-inf" (JSON has no infinities).
float read_bound(const Json& v, const std::string& field, const Where& w) {
  if (v.is_string() && (v == "inf" || v == "-inf"))
    return v == "inf" ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  std::optional<float> f = as_float(v);
  if (!f) w.fail(field, "expected a number, \"inf\" or \"-inf\"" + got(v));
  return *f;
}

Json bound_json(float f) {
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  return float_json(f);
}

void read_pads(const Json& v, const std::string& field, const Where& w, OpParams& out) {
  if (!v.is_array() || v.size() != 4) w.fail(field, "expected [top, bottom, left, right]" + got(v));
  for (size_t i = 0; i < 4; ++i) {
    std::optional<int64_t> d = as_int(v[i]);
    if (!d || *d < 0 || *d > (1 << 20)) w.fail(field, "expected 4 non-negative integers" + got(v));
    out.pads[i] = static_cast<int32_t>(*d);
  }
}

void read_range(const Json& v, const std::string& field, const Where& w, OpParams& out) {
  std::optional<int64_t> b = v.is_array() && v.size() == 2 ? as_int(v[0]) : std::nullopt;
  std::optional<int64_t> e = v.is_array() && v.size() == 2 ? as_int(v[1]) : std::nullopt;
  if (!b || !e || *b < 0 || *e <= *b || *e > std::numeric_limits<int32_t>::max())
    w.fail(field, "expected [begin, end] with 0 <= begin < end" + got(v));
  out.begin = static_cast<int32_t>(*b);
  out.end = static_cast<int32_t>(*e);
}

void read_axes(const Json& v, const std::string& field, const Where& w, OpParams& out) {
  if (!v.is_array() || v.empty()) w.fail(field, "expected a non-empty array of dimensions" + got(v));
  for (const Json& a : v) {
    std::optional<int64_t> d = as_int(a);
    if (!d || *d < 0 || *d >= kMaxRank) w.fail(field, "expected dimensions from 0 to 5" + got(v));
    out.axes |= static_cast<uint8_t>(1u << *d);
  }
}

void read_param(Param p, const Json& v, const std::string& field, const Where& w, ParsedParams& out) {
  OpParams& params = out.params;
  switch (p) {
    case Param::shape:
      params.shape = read_shape(v, field, w);
      return;
    case Param::perm:
      return read_perm(v, field, w, params);
    case Param::kernel:
      std::tie(params.kernel_h, params.kernel_w) = read_pair(v, field, w);
      return;
    case Param::stride:
      std::tie(params.stride_h, params.stride_w) = read_pair(v, field, w);
      return;
    case Param::padding:
      params.padding = read_padding(v, field, w);
      return;
    case Param::activation:
      params.activation = read_activation(v, field, w);
      return;
    case Param::axis:
      out.axis = as_int(v);
      if (!out.axis || *out.axis < -kMaxRank || *out.axis >= kMaxRank)
        w.fail(field, "expected an integer from -6 to 5" + got(v));
      return;
    case Param::groups:
    case Param::into: {
      std::optional<int64_t> n = as_int(v);
      if (!n || *n < 1 || *n > (1 << 20)) w.fail(field, "expected a positive integer" + got(v));
      (p == Param::groups ? params.groups : params.into) = static_cast<int32_t>(*n);
      return;
    }
    case Param::epsilon: {
      std::optional<float> f = as_float(v);
      if (!f || !(*f > 0)) w.fail(field, "expected a positive number" + got(v));
      params.epsilon = *f;
      return;
    }
    case Param::pads:
      return read_pads(v, field, w, params);
    case Param::value:
      params.value = read_bound(v, field, w);
      return;
    case Param::limits:
      if (!v.is_array() || v.size() != 2) w.fail(field, "expected [lo, hi]" + got(v));
      params.lo = read_bound(v[0], field, w);
      params.hi = read_bound(v[1], field, w);
      if (!(params.lo <= params.hi)) w.fail(field, "lo must not exceed hi" + got(v));
      return;
    case Param::range:
      return read_range(v, field, w, params);
    case Param::axes:
      return read_axes(v, field, w, params);
  }
}

std::string takes_list(const OpInfo& info) {
  std::string list;
  for (int i = 0; i < kNumParams; ++i)
    if (info.takes(Param(i))) list += (list.empty() ? "" : ", ") + std::string(param_name(Param(i)));
  return list.empty() ? "it takes none" : "it takes " + list;
}

std::optional<Param> param_from_name(const OpInfo& info, std::string_view key) {
  for (int i = 0; i < kNumParams; ++i)
    if (param_name(Param(i)) == key && info.takes(Param(i))) return Param(i);
  return std::nullopt;
}

}  // namespace

ParsedParams read_op_params(OpType op, const Json* v, const Where& w, std::string_view field) {
  const OpInfo& info = op_info(op);
  const std::string prefix(field);
  if (v && !v->is_object()) w.fail(prefix, "expected an object" + got(*v));
  ParsedParams out;
  if (v) {
    for (const auto& [key, value] : v->items()) {
      std::optional<Param> p = param_from_name(info, key);
      if (!p)
        w.fail(prefix + "." + key,
               std::string(info.name) + " takes no parameter '" + key + "' (" + takes_list(info) + ")");
      read_param(*p, value, prefix + "." + key, w, out);
    }
  }
  auto require = [&](Param p, bool required) {
    if (required && !(v && find_field(*v, param_name(p))))
      w.fail(prefix, std::string(info.name) + " requires parameter '" + std::string(param_name(p)) + "'");
  };
  require(Param::shape, info.takes(Param::shape));
  require(Param::kernel, info.takes(Param::kernel));
  require(Param::axis, op == OpType::concat || op == OpType::split || op == OpType::slice);
  require(Param::range, info.takes(Param::range));
  require(Param::axes, info.takes(Param::axes));
  require(Param::groups, info.takes(Param::groups));
  require(Param::into, info.takes(Param::into));
  return out;
}

Json shape_json(const Shape& s) {
  Json dims = Json::array();
  for (int i = 0; i < s.rank(); ++i) dims.push_back(s[i]);
  return dims;
}

Json op_params_json(OpType op, const OpParams& p) {
  const OpInfo& info = op_info(op);
  Json j = Json::object();
  if (info.takes(Param::shape)) j["shape"] = shape_json(p.shape);
  if (info.takes(Param::perm) && p.perm[0] >= 0) {
    j["perm"] = Json::array();
    for (int i = 0; i < kMaxRank && p.perm[i] >= 0; ++i) j["perm"].push_back(p.perm[i]);
  }
  if (info.takes(Param::kernel)) j["kernel"] = {p.kernel_h, p.kernel_w};
  if (info.takes(Param::stride)) j["stride"] = {p.stride_h, p.stride_w};
  if (info.takes(Param::padding)) j["padding"] = padding_name(p.padding);
  if (info.takes(Param::activation)) j["activation"] = activation_name(p.activation);
  if (info.takes(Param::axis)) j["axis"] = p.axis;
  if (info.takes(Param::epsilon)) j["epsilon"] = float_json(p.epsilon);
  if (info.takes(Param::groups)) j["groups"] = p.groups;
  if (info.takes(Param::into)) j["into"] = p.into;
  if (info.takes(Param::pads)) j["pads"] = {p.pads[0], p.pads[1], p.pads[2], p.pads[3]};
  if (info.takes(Param::value)) j["value"] = bound_json(p.value);
  if (info.takes(Param::limits)) j["limits"] = {bound_json(p.lo), bound_json(p.hi)};
  if (info.takes(Param::range)) j["range"] = {p.begin, p.end};
  if (info.takes(Param::axes)) {
    j["axes"] = Json::array();
    for (int i = 0; i < kMaxRank; ++i)
      if (p.axes & (1u << i)) j["axes"].push_back(i);
  }
  return j;
}

}  // namespace superopt
