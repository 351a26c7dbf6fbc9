// Operator parameters as a flat list of integers: how the Z3 encoding names an
// operator instance, and how axiom terms written with variables become graphs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/core/operator_registry.h"

namespace superopt::verify {

// In registry order of the parameters the operator takes: shape (one integer per
// dimension), perm (one code, which carries the rank: the permutation must be
// explicit, see with_explicit_perm), kernel (h, w), stride (h, w), padding (0 same, 1 valid),
// activation (0 none, 1 relu), axis, epsilon (its float bits).
std::vector<int64_t> param_ints(OpType op, const OpParams& p);

// The inverse; throws Error when the integers do not describe parameters of op.
OpParams params_from_ints(OpType op, std::span<const int64_t> ints);

// How many integers op's parameters take, given the rank of a shape parameter.
int num_param_ints(OpType op, int shape_rank);

// What the encoding knows of a node beyond its registry parameters, appended
// after them, each derived from the node's shapes:
// - a convolution's number of groups (one integer), since several convolution
//   properties hold only for some groups;
// - a concat's part sizes: the size along its axis of every input but the
//   last (one integer for two inputs); a split's the size of its output 0
//   along its axis. Without them a concat is a function of its parts alone,
//   and an axiom about two concats whose parts line up (conv_concat_channels)
//   would apply to any two, lined up or not.
// `rank` is the node's input rank, which an implicit (reversing) perm needs.
std::vector<int64_t> node_ints(OpType op, const OpParams& p, int rank, int64_t conv_groups,
                               std::span<const int64_t> part_sizes = {});
bool has_groups(OpType op);
bool has_part_size(OpType op);
// How many part sizes a node of op with this many inputs carries (0 unless has_part_size).
int num_part_sizes(OpType op, int num_inputs);

// p with an unset transpose permutation written out: reversal at this rank.
OpParams with_explicit_perm(OpParams p, int rank);

// Operators whose meaning depends on their rank beyond what their parameters
// say (matmul: which dimensions are batch dimensions): their symbols carry it.
bool rank_specific(OpType op);

// The name of the uninterpreted function for an operator, output port, number of
// parameter integers and output rank: "conv2d", "split.1", "I_ewmul/2"
// (shape-taking: with the rank of the shape), "matmul@3" (rank_specific).
std::string function_name(OpType op, int port, int num_ints, int rank);

}  // namespace superopt::verify
