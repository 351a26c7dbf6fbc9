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

// An integer in an operator's encoded parameters (param_ints.h): a literal or
// a variable bound by the axiom ("s.h" for the height of stride variable s),
// times a literal factor (`2*g`: group counts of stacked convolutions double,
// and the language has no other arithmetic).
struct IntAtom {
  std::string var;  // empty: a literal
  int64_t value = 0;
  int64_t factor = 1;  // a variable's multiplier
  bool is_var() const { return !var.empty(); }
  // The text as written in an axiom file: "2*g", "g", "3".
  std::string str() const;
};

// What a parameter variable ranges over. `ksize` variables are dimensions
// that only take kernel sizes; `dim` variables are the other dimensions.
enum class VarKind : uint8_t { dim, ksize, stride, padding, activation, axis, kernel };
std::string_view var_kind_name(VarKind k);

struct TensorVar {
  std::string name;
  std::vector<IntAtom> shape;  // dimension variables or literal sizes
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
  std::vector<IntAtom> params;  // the operator's encoded parameters (param_ints.h)
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

}  // namespace superopt::verify
