// The limits that stop the optimizer short of its end (issue 17): the
// numerical check against the deadline, and a check that cannot tell (the
// input overflows) blaming nothing.
#include <catch2/catch.hpp>
#include <chrono>
#include <vector>

#include "search/numerical_check.h"

using namespace superopt;

namespace {

// x -> matmul(w0) -> ... -> matmul(w_{n-1}), 16x16.
Graph matmul_chain(int n) {
  Graph g;
  NodeId prev = g.add_input("x", {16, 16});
  for (int i = 0; i < n; ++i)
    prev = g.add(OpType::matmul, {{prev}, {g.add_weight("w" + std::to_string(i), {16, 16})}});
  g.add_output({prev});
  return g;
}

}  // namespace

TEST_CASE("the numerical check stops at its deadline, neither run nor passed") {
  Graph g = matmul_chain(4);
  NumericalCheck past = search::numerical_check(g, g, 1, int64_t(1) << 40, std::chrono::steady_clock::now());
  CHECK(past.cut_short);
  CHECK_FALSE(past.ran);
  CHECK_FALSE(past.passed);
  CHECK_THAT(past.note,
             Catch::StartsWith("cut short by the time limit after 0 of 4 operators of the input graph"));
  NumericalCheck in_time = search::numerical_check(g, g, 1, int64_t(1) << 40,
                                                   std::chrono::steady_clock::now() + std::chrono::hours(1));
  CHECK(in_time.ran);
  CHECK(in_time.passed);
  CHECK_FALSE(in_time.cut_short);
}

TEST_CASE("a check whose input overflows is inconclusive and blames nothing") {
  // Random 16x16 matmuls grow values about 2x each: 1,500 of them overflow double.
  Graph g = matmul_chain(1500);
  NumericalCheck check = search::numerical_check(g, g, 1, int64_t(1) << 40);
  CHECK(check.inconclusive);
  CHECK_FALSE(check.ran);
  CHECK_FALSE(check.passed);
  CHECK_THAT(check.note, Catch::StartsWith("inconclusive: the input graph's outputs overflow"));
  CHECK_FALSE(search::numerical_check(matmul_chain(20), matmul_chain(20), 1, int64_t(1) << 40).inconclusive);
}
