// Comparing, hashing and printing operator parameters: only the parameters an
// operator takes count (OpInfo::params), so defaults elsewhere never matter.
#include <bit>
#include <sstream>

#include "runtime/core/hashing.h"
#include "runtime/core/operator_registry.h"

namespace superopt {

bool params_equal(OpType op, const OpParams& a, const OpParams& b) {
  const OpInfo& info = op_info(op);
  return (!info.takes(Param::shape) || a.shape == b.shape) &&
         (!info.takes(Param::perm) || a.perm == b.perm) &&
         (!info.takes(Param::kernel) || (a.kernel_h == b.kernel_h && a.kernel_w == b.kernel_w)) &&
         (!info.takes(Param::stride) || (a.stride_h == b.stride_h && a.stride_w == b.stride_w)) &&
         (!info.takes(Param::padding) || a.padding == b.padding) &&
         (!info.takes(Param::activation) || a.activation == b.activation) &&
         (!info.takes(Param::axis) || a.axis == b.axis) &&
         (!info.takes(Param::groups) || a.groups == b.groups) &&
         (!info.takes(Param::into) || a.into == b.into) &&
         (!info.takes(Param::epsilon) ||
          std::bit_cast<uint32_t>(a.epsilon) == std::bit_cast<uint32_t>(b.epsilon)) &&
         (!info.takes(Param::pads) || a.pads == b.pads) &&
         (!info.takes(Param::value) ||
          std::bit_cast<uint32_t>(a.value) == std::bit_cast<uint32_t>(b.value)) &&
         (!info.takes(Param::limits) || (std::bit_cast<uint32_t>(a.lo) == std::bit_cast<uint32_t>(b.lo) &&
                                         std::bit_cast<uint32_t>(a.hi) == std::bit_cast<uint32_t>(b.hi))) &&
         (!info.takes(Param::range) || (a.begin == b.begin && a.end == b.end)) &&
         (!info.takes(Param::axes) || a.axes == b.axes);
}

uint64_t params_hash(OpType op, const OpParams& p, uint64_t seed) {
  const OpInfo& info = op_info(op);
  uint64_t h = hash_combine(seed, static_cast<uint64_t>(op));
  if (info.takes(Param::shape)) {
    h = hash_combine(h, p.shape.rank());
    for (int i = 0; i < p.shape.rank(); ++i) h = hash_combine(h, p.shape[i]);
  }
  if (info.takes(Param::perm))
    for (int8_t d : p.perm) h = hash_combine(h, static_cast<uint64_t>(d + 1));
  if (info.takes(Param::kernel)) h = hash_combine(hash_combine(h, p.kernel_h), p.kernel_w);
  if (info.takes(Param::stride)) h = hash_combine(hash_combine(h, p.stride_h), p.stride_w);
  if (info.takes(Param::padding)) h = hash_combine(h, static_cast<uint64_t>(p.padding));
  if (info.takes(Param::activation)) h = hash_combine(h, static_cast<uint64_t>(p.activation));
  if (info.takes(Param::axis)) h = hash_combine(h, static_cast<uint64_t>(p.axis));
  if (info.takes(Param::epsilon)) h = hash_combine(h, std::bit_cast<uint32_t>(p.epsilon));
  if (info.takes(Param::groups)) h = hash_combine(h, static_cast<uint64_t>(p.groups));
  if (info.takes(Param::into)) h = hash_combine(h, static_cast<uint64_t>(p.into));
  if (info.takes(Param::pads))
    for (int32_t d : p.pads) h = hash_combine(h, static_cast<uint64_t>(d));
  if (info.takes(Param::value)) h = hash_combine(h, std::bit_cast<uint32_t>(p.value));
  if (info.takes(Param::limits))
    h = hash_combine(hash_combine(h, std::bit_cast<uint32_t>(p.lo)), std::bit_cast<uint32_t>(p.hi));
  if (info.takes(Param::range)) h = hash_combine(hash_combine(h, p.begin), p.end);
  if (info.takes(Param::axes)) h = hash_combine(h, p.axes);
  return h;
}

std::string params_str(OpType op, const OpParams& p) {
  const OpInfo& info = op_info(op);
  std::ostringstream s;
  auto sep = [&] { return s.tellp() > 0 ? " " : ""; };
  if (info.takes(Param::shape)) s << sep() << "shape=" << p.shape.str();
  if (info.takes(Param::perm) && p.perm[0] >= 0) {
    s << sep() << "perm=";
    for (int i = 0; i < kMaxRank && p.perm[i] >= 0; ++i) s << (i ? "," : "") << int(p.perm[i]);
  }
  if (info.takes(Param::kernel)) s << sep() << "kernel=" << p.kernel_h << "x" << p.kernel_w;
  if (info.takes(Param::stride)) s << sep() << "stride=" << p.stride_h << "x" << p.stride_w;
  if (info.takes(Param::padding)) s << sep() << "padding=" << padding_name(p.padding);
  if (info.takes(Param::activation)) s << sep() << "activation=" << activation_name(p.activation);
  if (info.takes(Param::axis)) s << sep() << "axis=" << p.axis;
  if (info.takes(Param::epsilon)) s << sep() << "epsilon=" << p.epsilon;
  if (info.takes(Param::groups)) s << sep() << "groups=" << p.groups;
  if (info.takes(Param::into)) s << sep() << "into=" << p.into;
  if (info.takes(Param::pads))
    s << sep() << "pads=" << p.pads[0] << "," << p.pads[1] << "," << p.pads[2] << "," << p.pads[3];
  if (info.takes(Param::value)) s << sep() << "value=" << p.value;
  if (info.takes(Param::limits)) s << sep() << "limits=" << p.lo << "," << p.hi;
  if (info.takes(Param::range)) s << sep() << "range=" << p.begin << "," << p.end;
  if (info.takes(Param::axes)) {
    s << sep() << "axes=";
    for (int i = 0, n = 0; i < kMaxRank; ++i)
      if (p.axes & (1u << i)) s << (n++ ? "," : "") << i;
  }
  return s.str();
}

}  // namespace superopt
