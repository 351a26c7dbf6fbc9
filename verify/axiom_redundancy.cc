// Redundancy checks of axioms (see axiom_redundancy.h).
#include "verify/axiom_redundancy.h"

#include <chrono>

#include "verify/prover.h"
#include "verify/tensor_theory.h"

namespace superopt::verify {

std::string_view redundancy_name(Redundancy r) {
  switch (r) {
    case Redundancy::redundant:
      return "redundant";
    case Redundancy::independent:
      return "independent";
    case Redundancy::undecided:
      return "undecided";
  }
  return "?";
}

RedundancyCheck check_redundancy(z3::context& ctx, const AxiomSet& axioms, size_t index, unsigned timeout_ms,
                                 unsigned rlimit) {
  auto start = std::chrono::steady_clock::now();
  TensorTheory theory(ctx);
  z3::solver solver(ctx);
  solver.set(entailment_params(ctx, timeout_ms, rlimit));
  // Tracked by name, so that a redundant axiom names the axioms it follows from.
  // The others are those a rule over its operators could be proved from.
  const Axiom& checked = axioms.axioms[index];
  for (const Axiom* other : axioms.theory_for(checked.operators()))
    if (other != &checked) solver.add(theory.axiom(*other), other->name.c_str());
  solver.add(!theory.axiom_instance(axioms.axioms[index], "!0"));
  RedundancyCheck check;
  check.name = axioms.axioms[index].name;
  z3::check_result r = z3::unknown;
  try {
    r = solver.check();
  } catch (const z3::exception& e) {
    check.reason = e.msg();  // Z3's memory cap, set by the command
  }
  if (r == z3::unsat) {
    check.result = Redundancy::redundant;
    for (const z3::expr& name : solver.unsat_core()) check.from.push_back(name.to_string());
  } else if (!check.reason.empty()) {
    check.result = Redundancy::undecided;
  } else {
    check.reason = r == z3::sat ? "a model satisfies the others" : solver.reason_unknown();
    check.result = ran_out_of_limits(check.reason) ? Redundancy::undecided : Redundancy::independent;
  }
  check.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return check;
}

}  // namespace superopt::verify
