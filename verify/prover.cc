// Rule proofs by entailment from the axioms (see prover.h).
#include "verify/prover.h"

#include <algorithm>
#include <chrono>

#include "runtime/core/error.h"

namespace superopt::verify {

z3::params entailment_params(z3::context& ctx, unsigned timeout_ms, unsigned rlimit) {
  z3::params p(ctx);
  p.set("timeout", timeout_ms);
  if (rlimit) p.set("rlimit", rlimit);
  // E-matching only: model-based instantiation cannot prove more here, and it
  // turns quick "not entailed" answers into long searches.
  p.set("mbqi", false);
  // Z3 catches SIGINT during a check by default and answers "canceled", so a
  // user's Ctrl-C would leave one rule unknown and the run going on.
  p.set("ctrl_c", false);
  return p;
}

bool ran_out_of_limits(const std::string& reason_unknown) {
  for (const char* limit : {"timeout", "canceled", "resource", "memory"})
    if (reason_unknown.find(limit) != std::string::npos) return true;
  return false;
}

RuleProver::RuleProver(z3::context& ctx, const AxiomSet& axioms, unsigned timeout_ms, unsigned rlimit)
    : theory_(ctx), axioms_(axioms), params_(entailment_params(ctx, timeout_ms, rlimit)) {}

std::vector<const Axiom*> own_operator_axioms(const std::vector<const Axiom*>& theory,
                                              const std::set<OpType>& rule_ops) {
  std::vector<const Axiom*> own;
  for (const Axiom* ax : theory) {
    const std::set<OpType> ops = ax->operators();
    if (std::includes(rule_ops.begin(), rule_ops.end(), ops.begin(), ops.end())) own.push_back(ax);
  }
  return own;
}

const z3::expr_vector& RuleProver::encoded(const std::vector<const Axiom*>& axioms) {
  std::vector<size_t> key;
  for (const Axiom* ax : axioms) key.push_back(static_cast<size_t>(ax - axioms_.axioms.data()));
  auto it = encoded_.find(key);
  if (it != encoded_.end()) return it->second;
  z3::expr_vector encoded(theory_.context());
  for (const Axiom* ax : axioms) encoded.push_back(theory_.axiom(*ax));
  return encoded_.emplace(std::move(key), encoded).first->second;
}

z3::check_result RuleProver::check(Attempt attempt, const z3::expr& negated_rule, std::string& reason) {
  z3::context& ctx = theory_.context();
  // Z3's simple solver is its SMT core alone; the default one adds a
  // preprocessing tactic, about 8 ms of CPU per solver before any E-matching.
  z3::solver solver = attempt.simple_solver ? z3::solver(ctx, z3::solver::simple()) : z3::solver(ctx);
  solver.set(params_);
  solver.add(encoded(*attempt.axioms));
  solver.add(negated_rule);
  z3::check_result r = solver.check();
  if (r == z3::unknown) reason = solver.reason_unknown();
  return r;
}

namespace {

std::set<OpType> operators_of(const Rule& rule) {
  std::set<OpType> ops;
  for (const Graph* g : {&rule.source, &rule.target})
    for (NodeId id = 0; id < g->num_nodes(); ++id) ops.insert(g->node(id).op);
  return ops;
}

}  // namespace

Proof RuleProver::prove(const Rule& rule) {
  auto start = std::chrono::steady_clock::now();
  std::vector<z3::expr> src = theory_.graph_outputs(rule.source);
  std::vector<z3::expr> tgt = theory_.graph_outputs(rule.target);
  if (src.size() != tgt.size())
    throw Error("rule has " + std::to_string(src.size()) + " source and " + std::to_string(tgt.size()) +
                " target outputs");
  z3::context& ctx = theory_.context();
  z3::expr_vector differs(ctx);
  for (size_t k = 0; k < src.size(); ++k) differs.push_back(src[k] != tgt[k]);
  const z3::expr negated_rule = z3::mk_or(differs);
  const std::set<OpType> ops = operators_of(rule);
  const std::vector<const Axiom*> theory = axioms_.theory_for(ops);
  const std::vector<const Axiom*> own = own_operator_axioms(theory, ops);
  // Cheapest first; the last attempt is the whole theory in the default
  // solver, so that a rule is proved whenever that alone would prove it.
  const std::vector<Attempt> attempts = {{&own, true, true}, {&theory, true, false}, {&theory, false, false}};
  Proof proof;
  std::string reason;
  z3::check_result r = z3::unknown;
  for (const Attempt& attempt : attempts) {
    if (attempt.own_operators_only && (own.empty() || own.size() == theory.size())) continue;
    reason.clear();
    r = check(attempt, negated_rule, reason);
    ++proof.attempts;
    if (r == z3::unsat) {
      proof.own_operators_only = attempt.own_operators_only;
      break;
    }
  }
  // Without model-based instantiation Z3 answers "unknown (incomplete
  // quantifiers)" when its instances run out: not entailed, as far as it can tell.
  const bool out_of_time = r == z3::unknown && ran_out_of_limits(reason);
  proof.outcome = r == z3::unsat ? ProofOutcome::proved
                  : out_of_time  ? ProofOutcome::timeout
                                 : ProofOutcome::not_entailed;
  proof.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return proof;
}

}  // namespace superopt::verify
