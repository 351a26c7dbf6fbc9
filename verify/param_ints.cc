// Operator parameters as integers (see param_ints.h).
#include "verify/param_ints.h"

#include <bit>
#include <cstring>

#include "runtime/core/error.h"

namespace superopt::verify {
namespace {

bool takes(OpType op, Param p) {
  return op_info(op).takes(p);
}

// The entries plus one as base-8 digits, lowest first: nonzero digits keep the
// length, so the code carries the rank (reversal at rank 2 and at rank 3 are
// different permutations, with different properties).
int64_t perm_code(const std::array<int8_t, kMaxRank>& perm) {
  if (perm[0] < 0) throw Error("a transpose's permutation must be explicit: its rank is part of it");
  int n = 0;
  while (n < kMaxRank && perm[n] >= 0) ++n;
  int64_t code = 0;
  for (int i = n - 1; i >= 0; --i) code = code * 8 + perm[i] + 1;
  return code;
}

std::array<int8_t, kMaxRank> perm_from_code(int64_t code) {
  std::array<int8_t, kMaxRank> perm = {-1, -1, -1, -1, -1, -1};
  if (code <= 0) throw Error("bad transpose code");
  for (int i = 0; code > 0; ++i, code /= 8) {
    if (i == kMaxRank || code % 8 == 0 || code % 8 > kMaxRank) throw Error("bad transpose code");
    perm[i] = static_cast<int8_t>(code % 8 - 1);
  }
  return perm;
}

}  // namespace

std::vector<int64_t> param_ints(OpType op, const OpParams& p) {
  std::vector<int64_t> v;
  if (takes(op, Param::shape))
    for (int i = 0; i < p.shape.rank(); ++i) v.push_back(p.shape[i]);
  if (takes(op, Param::perm)) v.push_back(perm_code(p.perm));
  if (takes(op, Param::kernel)) v.insert(v.end(), {p.kernel_h, p.kernel_w});
  if (takes(op, Param::stride)) v.insert(v.end(), {p.stride_h, p.stride_w});
  if (takes(op, Param::padding)) v.push_back(p.padding == Padding::same ? 0 : 1);
  if (takes(op, Param::activation)) v.push_back(static_cast<int64_t>(p.activation));
  if (takes(op, Param::axis)) v.push_back(p.axis);
  if (takes(op, Param::epsilon)) v.push_back(std::bit_cast<uint32_t>(p.epsilon));
  if (takes(op, Param::groups)) v.push_back(p.groups);
  if (takes(op, Param::into)) v.push_back(p.into);
  return v;
}

int num_param_ints(OpType op, int shape_rank) {
  OpParams p = with_explicit_perm(OpParams{}, 2);
  for (int i = 0; i < shape_rank; ++i) p.shape.push_back(1);
  return static_cast<int>(param_ints(op, p).size());
}

OpParams params_from_ints(OpType op, std::span<const int64_t> ints) {
  const int shape_rank = takes(op, Param::shape) ? static_cast<int>(ints.size()) - num_param_ints(op, 0) : 0;
  if (shape_rank < 0 || shape_rank > kMaxRank ||
      static_cast<int>(ints.size()) != num_param_ints(op, shape_rank))
    throw Error(std::string(op_name(op)) + " takes other parameters than " + std::to_string(ints.size()) +
                " integers");
  OpParams p;
  size_t i = 0;
  auto next = [&] { return ints[i++]; };
  auto in_range = [&](int64_t v, int64_t lo, int64_t hi, const char* what) {
    if (v < lo || v > hi) throw Error(std::string(op_name(op)) + ": " + what + " out of range");
    return v;
  };
  for (int d = 0; d < shape_rank; ++d) p.shape.push_back(in_range(next(), 1, 1 << 30, "dimension"));
  if (takes(op, Param::perm)) p.perm = perm_from_code(next());
  if (takes(op, Param::kernel)) {
    p.kernel_h = static_cast<int32_t>(in_range(next(), 1, 1 << 20, "kernel"));
    p.kernel_w = static_cast<int32_t>(in_range(next(), 1, 1 << 20, "kernel"));
  }
  if (takes(op, Param::stride)) {
    p.stride_h = static_cast<int32_t>(in_range(next(), 1, 1 << 20, "stride"));
    p.stride_w = static_cast<int32_t>(in_range(next(), 1, 1 << 20, "stride"));
  }
  if (takes(op, Param::padding))
    p.padding = in_range(next(), 0, 1, "padding") ? Padding::valid : Padding::same;
  if (takes(op, Param::activation))
    p.activation = static_cast<Activation>(in_range(next(), 0, kNumActivations - 1, "activation"));
  if (takes(op, Param::axis)) p.axis = static_cast<int32_t>(in_range(next(), 0, kMaxRank - 1, "axis"));
  if (takes(op, Param::epsilon)) p.epsilon = std::bit_cast<float>(static_cast<uint32_t>(next()));
  if (takes(op, Param::groups)) p.groups = static_cast<int32_t>(in_range(next(), 1, 1 << 20, "groups"));
  if (takes(op, Param::into)) p.into = static_cast<int32_t>(in_range(next(), 1, 1 << 20, "into"));
  return p;
}

bool has_groups(OpType op) {
  return op == OpType::conv2d;
}

OpParams with_explicit_perm(OpParams p, int rank) {
  if (p.perm[0] < 0)
    for (int i = 0; i < rank; ++i) p.perm[i] = static_cast<int8_t>(rank - 1 - i);
  return p;
}

bool has_part_size(OpType op) {
  return op == OpType::concat || op == OpType::split;
}

int num_part_sizes(OpType op, int num_inputs) {
  if (op == OpType::concat) return num_inputs - 1;
  return op == OpType::split ? 1 : 0;
}

std::vector<int64_t> node_ints(OpType op, const OpParams& p, int rank, int64_t conv_groups,
                               std::span<const int64_t> part_sizes) {
  std::vector<int64_t> v = param_ints(op, op == OpType::transpose ? with_explicit_perm(p, rank) : p);
  if (has_groups(op)) v.push_back(conv_groups);
  v.insert(v.end(), part_sizes.begin(), part_sizes.end());
  return v;
}

bool rank_specific(OpType op) {
  return op == OpType::matmul || op == OpType::linear;
}

std::string function_name(OpType op, int port, int num_ints, int rank) {
  std::string name(op_name(op));
  if (rank_specific(op)) name.append("@").append(std::to_string(rank));
  // append, not operator+: GCC 12 warns falsely (-Wrestrict) on the temporaries.
  if (op_info(op).num_outputs > 1) name.append(".").append(std::to_string(port));
  if (op_info(op).takes(Param::shape))
    name.append("/").append(std::to_string(num_ints - num_param_ints(op, 0)));
  return name;
}

}  // namespace superopt::verify
