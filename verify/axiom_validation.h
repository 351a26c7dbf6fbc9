// Small-tensor validation of an axiom: both sides executed with the z3::expr
// kernels for every assignment of its variables up to a maximum dimension.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <string>
#include <vector>

#include "verify/axiom_set.h"

namespace superopt::verify {

struct AxiomValidationOptions {
  int max_dim = 4;              // dimension variables range over 1..max_dim
  unsigned timeout_ms = 10000;  // per obligation (one symbolic comparison)
  // This process checks the assignments whose index modulo num_slices is slice,
  // so that ranks share one axiom's assignments evenly.
  int slice = 0;
  int num_slices = 1;
};

enum class AxiomResult : uint8_t { passed, failed, unknown };
std::string_view axiom_result_name(AxiomResult r);

struct AxiomValidation {
  std::string name;
  AxiomResult result = AxiomResult::passed;
  int64_t obligations = 0;  // assignments compared
  int64_t skipped = 0;      // assignments where the operators are not defined or parts do not fit
  int64_t unknown = 0;      // comparisons that ran out of time
  // Failed: the index of the first failing assignment in enumeration order.
  int64_t failed_at = -1;
  // Failed: "at VAR=VALUE ... TENSOR=SHAPE ...: what differs"; unknown: the first
  // undecided assignment likewise.
  std::string note;
  double ms = 0;
};

// Every assignment of ax's variables: dim 1..max_dim, ksize {1,3}, stride and
// kernel pairs from {1,2}^2 and {1,3}^2, padding, activation, and axis below the
// largest rank among ax's tensors. An assignment applies when both sides build
// (shapes fit, a convolution's groups match its groups value, a concat's or
// split's part sizes are its actual ones); each that applies is one
// obligation. Stops at the first failure; none applying is a failure too.
AxiomValidation validate_axiom(z3::context& ctx, const Axiom& ax, const AxiomValidationOptions& options);

// How many assignments validate_axiom enumerates (before any is skipped).
int64_t num_assignments(const Axiom& ax, int max_dim);

// One axiom's validation from the parts that checked its slices.
AxiomValidation merge_slices(const std::vector<AxiomValidation>& parts);

}  // namespace superopt::verify
