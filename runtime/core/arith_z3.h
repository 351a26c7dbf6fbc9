// The symbolic arithmetic: kernels instantiated over z3::expr build Z3 real terms, for
// symbolic small-tensor validation. Separate from arith.h so that only its users see z3++.h.
#pragma once

#include <z3++.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "runtime/core/error.h"

namespace superopt {

// Linear operations are Z3's real arithmetic; the non-linear functions are
// uninterpreted Real -> Real functions, so an identity about them holds only if
// it holds for every function (the axioms, added by the prover, can say more).
class SymbolicArith {
 public:
  using Value = z3::expr;
  static constexpr bool is_real = false;

  explicit SymbolicArith(z3::context& ctx)
      : ctx_(&ctx),
        relu_(function("relu")),
        sigmoid_(function("sigmoid")),
        tanh_(function("tanh")),
        exp_(function("exp")),
        rsqrt_(function("rsqrt")),
        sqrt_(function("sqrt")),
        erf_(function("erf")),
        opaque_(function("opaque")) {}

  z3::context& context() const { return *ctx_; }

  Value zero() const { return ctx_->real_val(0); }
  Value one() const { return ctx_->real_val(1); }
  Value from_int(int64_t n) const { return ctx_->real_val(n); }
  // The decimal that reads back as x, as an exact rational.
  Value constant(double x) const;
  Value add(const Value& a, const Value& b) const { return a + b; }
  Value sub(const Value& a, const Value& b) const { return a - b; }
  Value mul(const Value& a, const Value& b) const { return a * b; }
  Value div_int(const Value& a, int64_t n) const { return a / ctx_->real_val(n); }
  Value div(const Value& a, const Value& b) const { return a / b; }
  Value max(const Value& a, const Value& b) const { return z3::ite(a >= b, a, b); }
  Value min(const Value& a, const Value& b) const { return z3::ite(a <= b, a, b); }
  Value relu(const Value& x) const { return relu_(x); }
  // The clamps exactly (real max and min): their axioms are checked by value.
  Value relu6(const Value& x) const { return min(max(x, zero()), from_int(6)); }
  Value hardsigmoid(const Value& x) const {
    return min(max(add(div_int(x, 6), div_int(one(), 2)), zero()), one());
  }
  Value sigmoid(const Value& x) const { return sigmoid_(x); }
  Value tanh(const Value& x) const { return tanh_(x); }
  Value exp(const Value& x) const { return exp_(x); }
  Value rsqrt(const Value& x) const { return rsqrt_(x); }
  Value sqrt(const Value& x) const { return sqrt_(x); }
  Value erf(const Value& x) const { return erf_(x); }
  Value opaque(const Value& x) const { return opaque_(x); }

  // A real variable named after the next number drawn from rng ("v" and 16 hex
  // digits): fresh in practice, yet the same rng state gives the same variable, so
  // two graphs evaluated on equally seeded sources share their input variables.
  Value random(std::mt19937_64& rng) const {
    static const char kHex[] = "0123456789abcdef";
    uint64_t r = rng();
    std::string name = "v";
    for (int shift = 60; shift >= 0; shift -= 4) name += kHex[(r >> shift) & 15];
    return ctx_->real_const(name.c_str());
  }

  // The uninterpreted functions, for provers that state axioms about them.
  const z3::func_decl& relu_decl() const { return relu_; }
  const z3::func_decl& sigmoid_decl() const { return sigmoid_; }
  const z3::func_decl& tanh_decl() const { return tanh_; }
  const z3::func_decl& exp_decl() const { return exp_; }
  const z3::func_decl& rsqrt_decl() const { return rsqrt_; }
  const z3::func_decl& opaque_decl() const { return opaque_; }

 private:
  z3::func_decl function(const char* name) const {
    return ctx_->function(name, ctx_->real_sort(), ctx_->real_sort());
  }

  z3::context* ctx_;
  z3::func_decl relu_, sigmoid_, tanh_, exp_, rsqrt_, sqrt_, erf_, opaque_;
};

inline SymbolicArith::Value SymbolicArith::constant(double x) const {
  // Shortest round-trip text in fixed notation, which Z3 parses as an exact decimal.
  std::vector<char> text(400);
  auto [end, ec] = std::to_chars(text.data(), text.data() + text.size() - 1, x, std::chars_format::fixed);
  if (ec != std::errc() || !std::isfinite(x)) throw Error("no real constant for " + std::to_string(x));
  *end = '\0';
  return ctx_->real_val(text.data());
}

}  // namespace superopt
