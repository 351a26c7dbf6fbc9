// The three arithmetics: modular basics, and the modular and Z3 instantiations of the kernels
// agreeing with double wherever both are exact.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "runtime/core/arith.h"
#include "runtime/core/arith_z3.h"
#include "runtime/core/evaluator.h"
#include "runtime/core/graph.h"
#include "runtime/core/hashing.h"
#include "runtime/core/kernels.h"
#include "tests/op_params.h"

using namespace superopt;
using namespace superopt::test;

namespace {

using Real = RealArith<double>;
constexpr uint64_t kP = ModArith::kPrime;
const ModArith kMod;
const Real kReal;

uint64_t reference_mul(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % kP);
}

// Integers in [lo, hi] that depend only on the seed and the source's name, in any arithmetic.
template <class A>
SourceValues<A> integer_sources(const A& ar, int lo, int hi, uint64_t seed) {
  return [ar, lo, hi, seed](const Graph& g, NodeId id) {
    std::mt19937_64 rng(hash_string(g.node(id).name.str(), seed));
    TensorOf<A> t(g.shape({id, 0}), ar.zero());
    for (auto& v : t.data) v = ar.from_int(lo + static_cast<int>(rng() % uint64_t(hi - lo + 1)));
    return t;
  };
}

template <class A>
std::vector<TensorOf<A>> run(const A& ar, OpType op, const OpParams& p, const std::vector<TensorOf<A>>& in) {
  std::vector<const TensorOf<A>*> ptrs;
  for (const auto& t : in) ptrs.push_back(&t);
  return run_op(ar, op, p, std::span<const TensorOf<A>* const>(ptrs));
}

// The modular result times `scale` is the integer the double result times `scale` is.
void check_agree(const Tensor<uint64_t>& mod, const Tensor<double>& real, int64_t scale = 1) {
  REQUIRE(mod.shape == real.shape);
  for (int64_t i = 0; i < real.size(); ++i) {
    double scaled = real[i] * static_cast<double>(scale);
    REQUIRE(std::abs(scaled - std::round(scaled)) < 1e-9);
    REQUIRE(kMod.to_signed(kMod.mul(mod[i], kMod.from_int(scale))) == std::llround(scaled));
  }
}

// Runs an operator in both arithmetics on the same random small integers.
void check_op_agrees(OpType op, const OpParams& p, std::vector<Shape> shapes, int lo, int hi,
                     int64_t scale = 1) {
  std::mt19937_64 rng(shapes.size() * 1000 + static_cast<int>(op));
  std::vector<Tensor<uint64_t>> mod_in;
  std::vector<Tensor<double>> real_in;
  for (const Shape& s : shapes) {
    mod_in.emplace_back(s, 0);
    real_in.emplace_back(s, 0.0);
    for (int64_t i = 0; i < s.num_elements(); ++i) {
      int v = lo + static_cast<int>(rng() % uint64_t(hi - lo + 1));
      mod_in.back()[i] = kMod.from_int(v);
      real_in.back()[i] = v;
    }
  }
  INFO(op_name(op));
  check_agree(run(kMod, op, p, mod_in)[0], run(kReal, op, p, real_in)[0], scale);
}

// Dyadic values, exact both as doubles and as Z3 decimals.
Tensor<double> quarters(const Shape& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor<double> t(s, 0.0);
  for (double& v : t.data) v = static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4;
  return t;
}

Tensor<z3::expr> symbolic(const SymbolicArith& sym, const Tensor<double>& t) {
  Tensor<z3::expr> s(t.shape, sym.zero());
  for (int64_t i = 0; i < t.size(); ++i) s[i] = sym.constant(t[i]);
  return s;
}

void check_simplifies_to(const Tensor<z3::expr>& sym, const Tensor<double>& real) {
  REQUIRE(sym.shape == real.shape);
  for (int64_t i = 0; i < real.size(); ++i) {
    z3::expr v = sym[i].simplify();
    REQUIRE(v.is_numeral());
    REQUIRE(v.as_double() == Catch::Detail::Approx(real[i]).margin(1e-12));
  }
}

// A graph with most operators, over integer inputs: convolution, bias, relu, pooling,
// transpose, matmul, concat and split.
Graph mixed_graph() {
  Graph g;
  NodeId x = g.add_input("x", {1, 4, 6, 6}), w = g.add_weight("w", {6, 2, 3, 3});
  NodeId bias = g.add_weight("bias", {6, 1, 1}), m = g.add_weight("m", {1, 2});
  NodeId c = g.add(OpType::conv2d, {{x, 0}, {w, 0}}, conv(2, Padding::same));  // 1x6x3x3
  NodeId r = g.add(OpType::relu, {{g.add(OpType::ewadd, {{c, 0}, {bias, 0}}), 0}});
  NodeId p = g.add(OpType::pool_max, {{r, 0}}, pool(2, 1, Padding::same));
  NodeId t = g.add(OpType::matmul, {{g.add(OpType::transpose, {{p, 0}}), 0}, {m, 0}});  // 3x3x6x2
  NodeId cat = g.add(OpType::concat, {{t, 0}, {t, 0}, {g.add_input("y", {3, 3, 6, 1}), 0}}, axis(3));
  NodeId s = g.add(OpType::split, {{cat, 0}}, axis(3));
  g.add_output({s, 0});
  g.add_output({s, 1});
  g.add_output({p, 0});
  return g;
}

}  // namespace

TEST_CASE("ModArith: residues, negatives, inverses", "[arith]") {
  REQUIRE(kMod.from_int(-1) == kP - 1);
  REQUIRE(kMod.from_int(static_cast<int64_t>(kP) + 3) == 3);
  REQUIRE(kMod.to_signed(kMod.from_int(-5)) == -5);
  REQUIRE(kMod.to_signed(kMod.from_int(123456789)) == 123456789);
  REQUIRE(kMod.add(kP - 1, 1) == 0);
  REQUIRE(kMod.sub(0, 1) == kP - 1);
  REQUIRE(kMod.inverse(0) == 0);
  REQUIRE(kMod.div(5, 0) == 0);
  std::mt19937_64 rng(1);
  for (uint64_t a : {uint64_t{1}, uint64_t{2}, kP - 1, kP - 2, kMod.random(rng), kMod.random(rng)})
    REQUIRE(kMod.mul(a, kMod.inverse(a)) == 1);
  REQUIRE(kMod.div_int(kMod.from_int(6), 3) == 2);
  REQUIRE(kMod.mul(kMod.div_int(kMod.one(), 9), 9) == 1);
  uint64_t x = kMod.random(rng);
  REQUIRE(kMod.mul(kMod.div_int(x, 10007), 10007) == x);  // beyond the table of small inverses
  REQUIRE(kMod.mul(kMod.constant(1e-5), 100000) == 1);
  REQUIRE(kMod.mul(kMod.constant(0.5), 2) == 1);
}

TEST_CASE("ModArith: multiplication near p does not overflow", "[arith]") {
  REQUIRE(kMod.mul(kP - 1, kP - 1) == 1);
  REQUIRE(kMod.mul(kP - 2, kP - 3) == 6);
  REQUIRE(kMod.mul(uint64_t{1} << 60, uint64_t{1} << 60) == uint64_t{1} << 59);  // 2^120 = 2^59
  std::mt19937_64 rng(2);
  for (int i = 0; i < 1000; ++i) {
    uint64_t a = kMod.random(rng), b = i % 2 ? kP - 1 - (rng() % 8) : kMod.random(rng);
    REQUIRE(a < kP);
    REQUIRE(kMod.mul(a, b) == reference_mul(a, b));
  }
}

TEST_CASE("ModArith: relu is TASO's polynomial, the other functions differ", "[arith]") {
  REQUIRE(kMod.relu(kMod.from_int(2)) == 7);
  REQUIRE(kMod.relu(kMod.from_int(-1)) == 1);
  REQUIRE(kMod.relu(0) == 1);
  REQUIRE(kMod.max(3, 5) == 5);
  uint64_t x = kMod.from_int(5);
  REQUIRE(kMod.mul(kMod.sigmoid(x), kMod.from_int(26)) == 7);  // (x + 2) / (x^2 + 1)
  std::vector<uint64_t> values = {kMod.relu(x),  kMod.sigmoid(x), kMod.tanh(x),  kMod.exp(x),
                                  kMod.rsqrt(x), kMod.opaque(x),  kMod.relu6(x), kMod.hardsigmoid(x)};
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t j = i + 1; j < values.size(); ++j) REQUIRE(values[i] != values[j]);
  std::mt19937_64 rng(3);
  uint64_t r = kMod.random(rng);
  uint64_t minus_r = kMod.sub(0, r);
  REQUIRE(kMod.sigmoid(r) != kMod.sigmoid(minus_r));
  REQUIRE(kMod.exp(r) != kMod.exp(minus_r));
  REQUIRE(kMod.opaque(r) != kMod.sub(0, kMod.opaque(minus_r)));
  // The clamps are not max and min by representative, which would make relu6 the
  // constant 6 and hardswish the identity on almost every residue: relu6(y),
  // hardswish(y) and y would share fingerprints, and no rule would fuse them.
  for (uint64_t v : {r, minus_r}) {
    REQUIRE(kMod.relu6(v) != kMod.from_int(6));
    REQUIRE(kMod.relu6(v) != v);
    REQUIRE(kMod.mul(v, kMod.hardsigmoid(v)) != v);
  }
  REQUIRE(kMod.relu6(r) != kMod.relu6(minus_r));
}

TEST_CASE("RealArith: real functions, or relu as the polynomial", "[arith]") {
  REQUIRE(kReal.relu(-2) == 0);
  REQUIRE(kReal.relu(3) == 3);
  REQUIRE(Real(true).relu(-2) == 3);
  REQUIRE(kReal.relu6(7.5) == 6);
  REQUIRE(kReal.relu6(-1) == 0);
  REQUIRE(kReal.hardsigmoid(0) == 0.5);
  REQUIRE(kReal.hardsigmoid(4) == 1);
  REQUIRE(Real(true).relu6(1) == Approx(20.0 / 106.0));  // (x^2 + 19) / ((x + 4)^2 + 81), as ModArith
  REQUIRE(kReal.sigmoid(0) == 0.5);
  REQUIRE(kReal.rsqrt(4) == 0.5);
  REQUIRE(kReal.div_int(1, 4) == 0.25);
  REQUIRE(RealArith<float>().exp(0) == 1.0f);
  std::mt19937_64 rng(4);
  double lo = 1, hi = -1;
  for (int i = 0; i < 1000; ++i) {
    double v = kReal.random(rng);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  REQUIRE((lo >= -1 && lo < -0.9 && hi <= 1 && hi > 0.9));
}

TEST_CASE("ModArith agrees with double on small integers", "[arith]") {
  check_op_agrees(OpType::ewadd, {}, {{2, 3, 4}, {3, 1}}, -50, 50);
  check_op_agrees(OpType::ewmul, {}, {{2, 3, 4}, {4}}, -50, 50);
  check_op_agrees(OpType::smul, {}, {{2, 3}, {1}}, -50, 50);
  check_op_agrees(OpType::matmul, {}, {{2, 3, 4}, {2, 4, 5}}, -9, 9);
  check_op_agrees(OpType::matmul, {}, {{3, 4}, {2, 4, 5}}, -9, 9);
  check_op_agrees(OpType::conv2d, conv(2, Padding::same), {{2, 4, 7, 6}, {6, 2, 3, 3}}, -9, 9);
  check_op_agrees(OpType::conv2d, conv(1, Padding::valid), {{1, 3, 5, 5}, {3, 1, 1, 3}}, -9, 9);
  OpParams perm;
  perm.perm = {2, 0, 1, -1, -1, -1};
  check_op_agrees(OpType::transpose, perm, {{2, 3, 4}}, -9, 9);
  check_op_agrees(OpType::concat, axis(1), {{2, 3, 2}, {2, 1, 2}, {2, 2, 2}}, -9, 9);
  check_op_agrees(OpType::pool_max, pool(3, 2, Padding::same), {{1, 2, 5, 5}}, 0, 20);
  check_op_agrees(OpType::pool_avg, pool(3, 2, Padding::same), {{1, 2, 5, 5}}, -20, 20, 9);
  check_op_agrees(OpType::pool_avg, pool(2, 1, Padding::valid), {{1, 2, 3, 4}}, -20, 20, 4);
}

TEST_CASE("relu as the polynomial agrees with ModArith", "[arith]") {
  std::vector<Tensor<uint64_t>> mod_in = {Tensor<uint64_t>({5}, 0)};
  std::vector<Tensor<double>> real_in = {Tensor<double>({5}, 0.0)};
  for (int i = 0; i < 5; ++i) {
    mod_in[0][i] = kMod.from_int(i * 7 - 15);
    real_in[0][i] = i * 7 - 15;
  }
  check_agree(run(kMod, OpType::relu, {}, mod_in)[0], run(Real(true), OpType::relu, {}, real_in)[0]);
}

TEST_CASE("a whole graph evaluates alike in ModArith and double", "[arith]") {
  Graph g = mixed_graph();
  std::vector<Tensor<uint64_t>> mod = evaluate(g, kMod, integer_sources(kMod, -3, 3, 9));
  Real poly(true);
  std::vector<Tensor<double>> real = evaluate(g, poly, integer_sources(poly, -3, 3, 9));
  REQUIRE(mod.size() == 3);
  for (size_t i = 0; i < mod.size(); ++i) check_agree(mod[i], real[i]);
  // The same graph in float approximates double (with the real relu).
  std::vector<Tensor<float>> single = evaluate(g, RealArith<float>(), random_sources(RealArith<float>(), 9));
  std::vector<Tensor<double>> full = evaluate(g, kReal, random_sources(kReal, 9));
  for (int64_t i = 0; i < full[2].size(); ++i)
    REQUIRE(single[2][i] == Catch::Detail::Approx(full[2][i]).epsilon(1e-5));
}

TEST_CASE("SymbolicArith: numerals, fresh variables, uninterpreted functions", "[arith]") {
  z3::context ctx;
  SymbolicArith sym(ctx);
  REQUIRE(sym.from_int(-7).simplify().get_numeral_int64() == -7);
  REQUIRE(sym.constant(-0.25).simplify().as_double() == -0.25);
  REQUIRE(sym.div_int(sym.one(), 3).simplify().get_decimal_string(5) == "0.33333?");
  REQUIRE(sym.max(sym.from_int(2), sym.from_int(5)).simplify().get_numeral_int64() == 5);
  z3::expr r = sym.relu(sym.from_int(-1)).simplify();
  REQUIRE_FALSE(r.is_numeral());
  REQUIRE(r.decl().name().str() == "relu");
  std::mt19937_64 a(1), b(1);
  z3::expr v1 = sym.random(a), v2 = sym.random(a);
  REQUIRE(v1.is_const());
  REQUIRE_FALSE(z3::eq(v1, v2));
  REQUIRE(z3::eq(v1, sym.random(b)));
}

TEST_CASE("SymbolicArith kernels simplify to the double results", "[arith]") {
  z3::context ctx;
  SymbolicArith sym(ctx);
  auto check_op = [&](OpType op, const OpParams& p, std::vector<Shape> shapes) {
    std::vector<Tensor<double>> real_in;
    std::vector<Tensor<z3::expr>> sym_in;
    for (size_t i = 0; i < shapes.size(); ++i) {
      real_in.push_back(quarters(shapes[i], i + 1));
      sym_in.push_back(symbolic(sym, real_in.back()));
    }
    INFO(op_name(op));
    check_simplifies_to(run(sym, op, p, sym_in)[0], run(kReal, op, p, real_in)[0]);
  };
  check_op(OpType::matmul, {}, {{2, 2, 3}, {3, 2}});
  check_op(OpType::conv2d, conv(2, Padding::same), {{1, 4, 5, 5}, {2, 2, 3, 3}});
  check_op(OpType::pool_avg, pool(3, 1, Padding::same), {{1, 2, 3, 3}});
  check_op(OpType::pool_max, pool(2, 2, Padding::same), {{1, 2, 3, 3}});
  check_op(OpType::ewadd, {}, {{2, 3}, {3}});
  check_op(OpType::enlarge, pool(5, 1, Padding::same), {{2, 1, 3, 1}});
}

TEST_CASE("SymbolicArith evaluates a graph to the double results", "[arith]") {
  Graph g;
  NodeId x = g.add_input("x", {1, 2, 4, 4}), w = g.add_weight("w", {4, 1, 3, 3});
  NodeId c = g.add(OpType::conv2d, {{x, 0}, {w, 0}}, conv(1, Padding::same));
  NodeId sum = g.add(OpType::ewadd, {{c, 0}, {g.add_weight("b", {4, 1, 1}), 0}});
  NodeId avg = g.add(OpType::pool_avg, {{sum, 0}}, pool(3, 2, Padding::same));
  NodeId m = g.add(OpType::matmul, {{avg, 0}, {g.add_weight("m", {2, 3}), 0}});
  NodeId s = g.add(OpType::split, {{g.add(OpType::concat, {{m, 0}, {avg, 0}}, axis(3)), 0}}, axis(3));
  g.add_output({s, 0});
  g.add_output({s, 1});
  z3::context ctx;
  SymbolicArith sym(ctx);
  SourceValues<Real> real_sources = integer_sources(kReal, -5, 5, 3);
  SourceValues<SymbolicArith> numerals = [&](const Graph& graph, NodeId id) {
    return symbolic(sym, real_sources(graph, id));
  };
  std::vector<Tensor<z3::expr>> out = evaluate(g, sym, numerals);
  std::vector<Tensor<double>> want = evaluate(g, kReal, real_sources);
  REQUIRE(out.size() == 2);
  for (size_t i = 0; i < out.size(); ++i) check_simplifies_to(out[i], want[i]);
}

TEST_CASE("SymbolicArith keeps relu uninterpreted", "[arith]") {
  z3::context ctx;
  SymbolicArith sym(ctx);
  std::vector<Tensor<double>> real_in = {quarters({1, 2, 3, 3}, 5), quarters({2, 2, 3, 3}, 6)};
  std::vector<Tensor<z3::expr>> sym_in = {symbolic(sym, real_in[0]), symbolic(sym, real_in[1])};
  OpParams p = conv(1, Padding::same);
  Tensor<double> linear = run(kReal, OpType::conv2d, p, real_in)[0];
  p.activation = Activation::relu;
  Tensor<z3::expr> out = run(sym, OpType::conv2d, p, sym_in)[0];
  for (int64_t i = 0; i < out.size(); ++i) {
    z3::expr v = out[i].simplify();
    REQUIRE(v.decl().name().str() == "relu");
    REQUIRE(v.arg(0).as_double() == Catch::Detail::Approx(linear[i]).margin(1e-12));
  }
}

TEST_CASE("SymbolicArith random sources make equal graphs provably equal", "[arith]") {
  z3::context ctx;
  SymbolicArith sym(ctx);
  Graph plain, identity;
  NodeId x1 = plain.add_input("x", {2, 3}), y1 = plain.add_input("y", {2, 3});
  plain.add_output({plain.add(OpType::ewadd, {{x1, 0}, {y1, 0}}), 0});
  NodeId y2 = identity.add_input("y", {2, 3}), x2 = identity.add_input("x", {2, 3});
  NodeId eye = identity.add(OpType::i_matmul, {}, [] {
    OpParams p;
    p.shape = Shape{3, 3};
    return p;
  }());
  NodeId xi = identity.add(OpType::matmul, {{x2, 0}, {eye, 0}});
  identity.add_output({identity.add(OpType::ewadd, {{y2, 0}, {xi, 0}}), 0});
  auto sources = random_sources(sym, 17);
  Tensor<z3::expr> a = evaluate(plain, sym, sources)[0], b = evaluate(identity, sym, sources)[0];
  z3::solver differ(ctx);
  z3::expr any = ctx.bool_val(false);
  for (int64_t i = 0; i < a.size(); ++i) any = any || a[i] != b[i];
  differ.add(any);
  REQUIRE(differ.check() == z3::unsat);
  z3::solver relu_differs(ctx);
  relu_differs.add(sym.relu(a[0]) != a[0]);
  REQUIRE(relu_differs.check() == z3::sat);
}
