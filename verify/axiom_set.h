// Operator axioms as data: the parsed form of an axiom file (verify/axioms/*.ax),
// universally quantified equalities over tensor, parameter and dimension variables.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/operator_registry.h"

namespace superopt::verify {

// An integer in an operator's encoded parameters (param_ints.h) or a shape
// template: a small linear form, a sum of literal multiples of variables bound
// by the axiom ("s.h" for the height of stride variable s) plus a literal.
// Group counts of stacked convolutions double (`2*g`), and the part sizes of
// reassociated concats add up (`q+r`) or take away (`p-q`).
struct IntAtom {
  struct Summand {
    int64_t factor = 1;
    std::string var;
    bool operator==(const Summand&) const = default;
  };
  std::vector<Summand> vars;  // distinct variables, none with factor 0
  int64_t value = 0;          // the literal added

  static IntAtom literal(int64_t v) { return {{}, v}; }
  static IntAtom variable(std::string var, int64_t factor = 1) { return {{{factor, std::move(var)}}, 0}; }
  bool is_literal() const { return vars.empty(); }
  // A variable alone (`g`), as an E-matching pattern may contain it.
  bool is_plain_var() const { return vars.size() == 1 && vars[0].factor == 1 && value == 0; }
  // Anything else than a literal or a variable alone: Z3 arithmetic.
  bool is_arithmetic() const { return !is_literal() && !is_plain_var(); }
  // The variable of a plain one.
  const std::string& var() const { return vars.at(0).var; }
  // this + sign * other, with like variables combined.
  IntAtom plus(const IntAtom& other, int64_t sign = 1) const;
  // The text as written in an axiom file: "2*g", "g", "3", "p-q", "q+r+1".
  std::string str() const;
  bool operator==(const IntAtom&) const = default;
};

// What a parameter variable ranges over. `ksize` variables are dimensions
// that only take kernel sizes; `dim` variables are the other dimensions.
enum class VarKind : uint8_t { dim, ksize, stride, padding, activation, axis, kernel };
std::string_view var_kind_name(VarKind k);

struct TensorVar {
  std::string name;
  std::vector<IntAtom> shape;  // dimension variables, literal sizes, or linear forms of them
};

struct ParamVar {
  std::string name;
  VarKind kind = VarKind::dim;
};

// A term: a tensor variable, or an operator applied to parameters and terms.
// Constants are operators without arguments; `port` picks split's output.
struct Term {
  std::string var;  // non-empty: a tensor variable
  OpType op = OpType::opaque;
  int port = 0;
  // The operator's encoded integers (node_ints in param_ints.h): its registry
  // parameters, then a convolution's groups or a concat's or split's part sizes.
  std::vector<IntAtom> params;
  std::vector<Term> args;
  int rank = 0;  // of its value (rank_specific operators' symbols carry it)
  bool is_var() const { return !var.empty(); }
};

struct Axiom {
  std::string name;
  std::string comment;  // what it states
  int line = 0;         // where it starts in its file
  std::vector<TensorVar> tensors;
  std::vector<ParamVar> vars;  // every integer-valued variable, dimensions included
  Term lhs, rhs;
  // `axiom NAME unless OP:` — true of the values, but contradicted by how OP is
  // encoded (split, cut by the concat tree it meets): used only to prove rules
  // without OP, and then with no axiom that mentions OP (theory_for).
  std::optional<OpType> unless;
  bool mentions(OpType op) const;
  std::set<OpType> operators() const;  // every operator its terms apply
};

struct AxiomSet {
  std::string source;  // the file it came from
  std::vector<Axiom> axioms;
  // Operators that some axiom mentions.
  bool mentions(OpType op) const;
  // The axioms a proof about a rule over these operators may use: an `unless
  // OP` axiom when the rule has no OP, and then no axiom that mentions OP.
  std::vector<const Axiom*> theory_for(const std::set<OpType>& rule_ops) const;
};

// Parses an axiom file. Throws Error "FILE:LINE: message" on anything malformed.
AxiomSet parse_axioms(std::string_view text, std::string_view source_name);
AxiomSet read_axiom_file(const std::string& path);

// The text of a term, as it would be written in an axiom file.
std::string term_str(const Term& t);

// Every variable a term reads: its tensors and its integers' variables.
void collect_vars(const Term& t, std::set<std::string>& names);
// Whether a term has an integer that is neither a literal nor a variable alone.
bool has_arithmetic(const Term& t);

// What must match for Z3 to instantiate an axiom with arithmetic (`2*g`,
// `p-q`), which an E-matching pattern cannot contain: the side without it,
// whole, plus, where that side does not read every variable, the largest
// arithmetic-free subterms of the other side that do (one multi-pattern).
// Empty for an axiom without arithmetic (Z3 picks its own patterns). Left to
// itself Z3 picked merge_groups[g, f](x) alone in merge_groups_double_concat,
// whose instance merge_groups[2g, 2f](concat(x, x)) matches it again, without
// end. Throws Error when both sides have arithmetic or nothing covers every
// variable (the parser refuses such an axiom).
std::vector<const Term*> axiom_trigger(const Axiom& ax);

}  // namespace superopt::verify
