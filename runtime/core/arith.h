// The arithmetics the reference kernels are instantiated with: exact integers modulo a prime
// (fingerprints) and real numbers in double or float (checks, CPU runtime). Z3 is in arith_z3.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/core/error.h"

namespace superopt {

// Every arithmetic provides, as const members: zero one from_int constant add sub mul
// div_int div max min relu relu6 hardsigmoid sigmoid tanh exp rsqrt sqrt erf opaque random, a type
// Value, and
// is_real (its non-linear functions are the real ones, so kernels may use real-number
// identities such as softmax's invariance to shifts).

// Exact arithmetic modulo the Mersenne prime 2^61 - 1. Values are canonical
// representatives in [0, p). Non-linear functions are fixed rational functions
// whose denominators have the form y^2 + c^2, which is never 0 because p = 3 mod 4
// (so -1 is not a square); they are chosen without symmetries so that they do not
// make unequal real graphs fingerprint equally.
class ModArith {
 public:
  using Value = uint64_t;
  static constexpr bool is_real = false;
  static constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;

  Value zero() const { return 0; }
  Value one() const { return 1; }
  Value from_int(int64_t n) const {
    int64_t r = n % static_cast<int64_t>(kPrime);
    return static_cast<Value>(r < 0 ? r + static_cast<int64_t>(kPrime) : r);
  }
  // The fraction round(x * 10^6) / 10^6: real constants (batchnorm's epsilon) have no
  // exact image, so they are read as decimals with six places.
  Value constant(double x) const {
    if (!(std::abs(x) < 1e12)) throw Error("no modular image of the constant " + std::to_string(x));
    return div_int(from_int(std::llround(x * 1e6)), 1000000);
  }
  // The signed integer whose residue is v: representatives above p/2 are negative.
  int64_t to_signed(Value v) const {
    return v > kPrime / 2 ? static_cast<int64_t>(v) - static_cast<int64_t>(kPrime) : static_cast<int64_t>(v);
  }

  Value add(Value a, Value b) const {
    Value s = a + b;
    return s >= kPrime ? s - kPrime : s;
  }
  Value sub(Value a, Value b) const { return a >= b ? a - b : a + kPrime - b; }
  Value mul(Value a, Value b) const {
    // a * b < p^2 < 2^122; 2^61 = 1 (mod p) folds the high bits onto the low ones.
    unsigned __int128 prod = static_cast<unsigned __int128>(a) * b;
    Value s = static_cast<Value>(prod & kPrime) + static_cast<Value>(prod >> 61);
    return s >= kPrime ? s - kPrime : s;
  }
  Value pow(Value a, uint64_t e) const {
    Value r = 1;
    for (; e; e >>= 1, a = mul(a, a))
      if (e & 1) r = mul(r, a);
    return r;
  }
  // Fermat's inverse; inverse(0) is defined as 0 so that division never fails.
  Value inverse(Value a) const { return pow(a, kPrime - 2); }
  Value div_int(Value a, int64_t n) const { return mul(a, inverse_of_int(n)); }
  Value div(Value a, Value b) const { return mul(a, inverse(b)); }

  // By representative: deterministic, and the real max only for small non-negative values.
  Value max(Value a, Value b) const { return a >= b ? a : b; }
  Value min(Value a, Value b) const { return a >= b ? b : a; }
  // TASO's fingerprint polynomial, so that relu does not create spurious rules.
  Value relu(Value x) const { return add(mul(x, add(x, 1)), 1); }
  // Piecewise-linear clamps are rational functions of their own too: max and min
  // by representative would make relu6 the constant 6 and hardsigmoid 1, so that
  // relu6(y), hardswish(y) and y would share fingerprints.
  // (x^2 + 19) / ((x + 4)^2 + 9^2)
  Value relu6(Value x) const { return ratio(add(mul(x, x), 19), x, 4, 9); }
  // (x + 23) / ((x + 6)^2 + 11^2)
  Value hardsigmoid(Value x) const { return ratio(add(x, 23), x, 6, 11); }
  // (x + 2) / (x^2 + 1)
  Value sigmoid(Value x) const { return ratio(add(x, 2), x, 0, 1); }
  // (x^3 + 3) / (x^2 + 4)
  Value tanh(Value x) const { return ratio(add(mul(x, mul(x, x)), 3), x, 0, 2); }
  // (x^2 + 5) / ((x + 1)^2 + 9)
  Value exp(Value x) const { return ratio(add(mul(x, x), 5), x, 1, 3); }
  // (x + 7) / ((x + 3)^2 + 1)
  Value rsqrt(Value x) const { return ratio(add(x, 7), x, 3, 1); }
  // (x^2 + 3x + 13) / ((x + 2)^2 + 36)
  Value sqrt(Value x) const { return ratio(add(mul(x, add(x, 3)), 13), x, 2, 6); }
  // (x^3 + 2x + 17) / ((x + 5)^2 + 49)
  Value erf(Value x) const { return ratio(add(add(mul(x, mul(x, x)), mul(x, 2)), 17), x, 5, 7); }
  // (x^3 + x + 11) / (x^2 + 25)
  Value opaque(Value x) const { return ratio(add(add(mul(x, mul(x, x)), x), 11), x, 0, 5); }

  Value random(std::mt19937_64& rng) const {
    for (;;) {
      Value v = rng() >> 3;  // uniform in [0, 2^61); reject the one value >= p
      if (v < kPrime) return v;
    }
  }

 private:
  // numerator / ((x + shift)^2 + c^2); the denominator is never 0.
  Value ratio(Value numerator, Value x, Value shift, Value c) const {
    Value y = add(x, shift);
    return div(numerator, add(mul(y, y), mul(c, c)));
  }
  Value inverse_of_int(int64_t n) const {
    static const std::vector<Value> table = small_inverses();
    return n > 0 && n < static_cast<int64_t>(table.size()) ? table[n] : inverse(from_int(n));
  }
  // inv(i) = -(p / i) * inv(p mod i): O(1) per entry, for the window sizes of pooling.
  std::vector<Value> small_inverses() const {
    std::vector<Value> inv(4096, 0);
    inv[1] = 1;
    for (uint64_t i = 2; i < inv.size(); ++i) inv[i] = sub(0, mul(kPrime / i, inv[kPrime % i]));
    return inv;
  }
};

// Real numbers in F = double or float with the real non-linear functions.
template <class F>
class RealArith {
 public:
  using Value = F;
  static constexpr bool is_real = true;

  // relu_as_polynomial: relu is x(x+1)+1, and relu6 and hardsigmoid the rational
  // functions, as in ModArith, for the rule generator's floating-point
  // confirmation of fingerprint matches.
  explicit RealArith(bool relu_as_polynomial = false) : relu_as_polynomial_(relu_as_polynomial) {}

  Value zero() const { return 0; }
  Value one() const { return 1; }
  Value from_int(int64_t n) const { return static_cast<F>(n); }
  Value constant(double x) const { return static_cast<F>(x); }
  Value add(Value a, Value b) const { return a + b; }
  Value sub(Value a, Value b) const { return a - b; }
  Value mul(Value a, Value b) const { return a * b; }
  Value div_int(Value a, int64_t n) const { return a / static_cast<F>(n); }
  Value div(Value a, Value b) const { return a / b; }
  Value max(Value a, Value b) const { return a >= b ? a : b; }
  Value min(Value a, Value b) const { return a <= b ? a : b; }
  Value relu(Value x) const {
    if (relu_as_polynomial_) return x * (x + 1) + 1;
    return x > 0 ? x : F(0);
  }
  Value relu6(Value x) const {
    if (relu_as_polynomial_) return (x * x + 19) / ((x + 4) * (x + 4) + 81);
    return min(max(x, F(0)), F(6));
  }
  // PyTorch's hardsigmoid: clip(x / 6 + 1/2, 0, 1).
  Value hardsigmoid(Value x) const {
    if (relu_as_polynomial_) return (x + 23) / ((x + 6) * (x + 6) + 121);
    return min(max(x / F(6) + F(1) / F(2), F(0)), F(1));
  }
  Value sigmoid(Value x) const { return F(1) / (F(1) + std::exp(-x)); }
  Value tanh(Value x) const { return std::tanh(x); }
  Value exp(Value x) const { return std::exp(x); }
  Value rsqrt(Value x) const { return F(1) / std::sqrt(x); }
  Value sqrt(Value x) const { return std::sqrt(x); }
  Value erf(Value x) const { return std::erf(x); }
  Value opaque(Value x) const { return std::tanh(x); }

  // Uniform in [-1, 1), from the top 53 bits so that it is the same on every platform.
  Value random(std::mt19937_64& rng) const {
    return static_cast<F>(std::ldexp(static_cast<double>(rng() >> 11), -52) - 1.0);
  }

  bool relu_as_polynomial() const { return relu_as_polynomial_; }

 private:
  bool relu_as_polynomial_;
};

}  // namespace superopt
