// A matmul's folded weight in either layout: the transposed descriptor holds the
// same matrix, the timed choice picks the faster candidate, and a graph whose
// weights are large enough to be timed agrees with the reference either way;
// equal folded weights are held once.
#include <catch2/catch.hpp>

#include <random>

#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/cpu/cpu_matmul_layout.h"
#include "tests/cpu_test_support.h"

namespace superopt {
namespace {

using cpu::memory;

TensorRef ref(NodeId id) {
  return TensorRef{id, 0};
}

struct Case {
  memory::dims a, b, c;
};

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

// [..., m, k] x [..., k, n] with the weight given row-major and reordered into `weights`.
std::vector<float> multiply(const memory::dims& ad, const memory::dims& bd, const memory::dims& cd,
                            const memory::desc& weights, std::vector<float> a, std::vector<float> b) {
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(cpu::plain_desc(ad), weights, cpu::plain_desc(cd)),
                                  cpu::engine());
  memory ma(cpu::plain_desc(ad), cpu::engine(), a.data());
  memory plain_b(cpu::plain_desc(bd), cpu::engine(), b.data());
  memory mb(pd.weights_desc(), cpu::engine());
  dnnl::reorder(plain_b, mb).execute(cpu::stream(), plain_b, mb);
  std::vector<float> c(size_t(cpu::plain_desc(cd).get_size() / sizeof(float)));
  memory mc(cpu::plain_desc(cd), cpu::engine(), c.data());
  dnnl::matmul(pd).execute(cpu::stream(), {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
  cpu::stream().wait();
  return c;
}

TEST_CASE("a transposed weight descriptor holds the same matrix, batched too", "[cpu]") {
  for (const auto& [ad, bd, cd] : std::vector<Case>{{{5, 7}, {7, 6}, {5, 6}},
                                                    {{3, 4, 5}, {3, 5, 2}, {3, 4, 2}},
                                                    {{2, 3, 4, 5}, {2, 3, 5, 6}, {2, 3, 4, 6}}}) {
    size_t na = 1, nb = 1;
    for (auto d : ad) na *= size_t(d);
    for (auto d : bd) nb *= size_t(d);
    const std::vector<float> a = random_values(na, 1), b = random_values(nb, 2);
    const memory::desc t = cpu::transposed_desc(bd);
    CHECK(t != cpu::plain_desc(bd));
    CHECK(t.get_size() == cpu::plain_desc(bd).get_size());
    const std::vector<float> plain = multiply(ad, bd, cd, cpu::plain_desc(bd), a, b);
    const std::vector<float> transposed = multiply(ad, bd, cd, t, a, b);
    REQUIRE(plain.size() == transposed.size());
    for (size_t i = 0; i < plain.size(); ++i) CHECK(transposed[i] == Approx(plain[i]).margin(1e-5));
  }
}

TEST_CASE("the timed layout choice returns the faster candidate", "[cpu]") {
  auto pd = [](memory::dim m, memory::dim k, memory::dim n) {
    return dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(cpu::plain_desc(memory::dims{m, k}), cpu::plain_desc(memory::dims{k, n}),
                           cpu::plain_desc(memory::dims{m, n})),
        cpu::engine());
  };
  // About 4,000 times the work apart: no scheduler hiccup reverses that.
  const std::vector<dnnl::matmul::primitive_desc> slow_first{pd(256, 256, 256), pd(16, 16, 16)};
  CHECK(cpu::fastest_matmul(slow_first) == 1);
  const std::vector<dnnl::matmul::primitive_desc> fast_first{pd(16, 16, 16), pd(256, 256, 256)};
  CHECK(cpu::fastest_matmul(fast_first) == 0);
  CHECK_FALSE(cpu::worth_timing_layouts({64, 64}, 64));
  CHECK(cpu::worth_timing_layouts({256, 256}, 16));
  CHECK_FALSE(cpu::worth_timing_layouts({256, 256}, 1));  // one row: oneDNN's choice
}

TEST_CASE("matmuls by large folded weights agree with the reference in the layout timing chose", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {16, 256});
  NodeId flat = g.add(OpType::matmul, {ref(x), ref(g.add_weight("w", {256, 512}))});
  NodeId batched =
      g.add(OpType::matmul, {ref(g.add_input("b", {2, 8, 256})), ref(g.add_weight("wb", {2, 256, 256}))});
  g.add_output(ref(flat));
  g.add_output(ref(batched));
  for (NodeId id : {flat, batched}) {
    const std::string algorithm = test::kernel_of(g, id).algorithm;
    INFO(algorithm);
    CHECK((algorithm.find("+transposed_weights") != std::string::npos ||
           algorithm.find("+packed_weights") != std::string::npos));
  }
  test::require_agrees(g);
}

TEST_CASE("equal folded weights share one buffer: an RNN's merged weight per step is held once", "[cpu]") {
  // Two steps, each multiplying by its own concat of the same two weights (what
  // merging matmuls leaves in every step of an RNN), and a third weight of its own.
  Graph g;
  NodeId w1 = g.add_weight("w1", {256, 256}), w2 = g.add_weight("w2", {256, 256});
  NodeId h = g.add_input("h", {1, 256});
  for (int step = 0; step < 2; ++step) {
    OpParams axis1;
    axis1.axis = 1;
    NodeId merged = g.add(OpType::concat, {ref(w1), ref(w2)}, axis1);
    h = g.add(OpType::matmul, {ref(h), ref(merged)});
    h = g.add(OpType::matmul, {ref(h), ref(g.add_weight("back" + std::to_string(step), {512, 256}))});
  }
  g.add_output(ref(h));
  cpu::KernelCache cache;
  cpu::CpuGraph run(cache, g, 3);
  CHECK(run.num_shared_weights() == 1);  // the second concat; back0 and back1 differ
  test::require_agrees(g);
}

}  // namespace
}  // namespace superopt
