// Reading and writing operator parameters, with errors naming the parameter at fault.
#include "runtime/formats/op_params_json.h"

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
  if (s != "none" && s != "relu") w.fail(field, "expected \"none\" or \"relu\"" + got(v));
  return s == "none" ? Activation::none : Activation::relu;
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
  require(Param::axis, op == OpType::concat || op == OpType::split);
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
  return j;
}

}  // namespace superopt
