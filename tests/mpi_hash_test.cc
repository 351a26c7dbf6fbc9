// MPI test (run under mpirun -np 3): canonical hashes agree across processes
// even when each rank builds the same graph in a different node order, which
// sharding rules by hash over ranks relies on.
#include <catch2/catch.hpp>

#include "tests/mpi_catch_session.h"

#include <algorithm>
#include <random>

#include "runtime/core/graph.h"
#include "runtime/core/graph_hash.h"
#include "runtime/mpi/mpi_world.h"

using namespace superopt;

namespace {

MpiWorld* world = nullptr;

struct Recipe {
  OpType op;
  std::vector<int> inputs;  // indices into the recipe list
};

// A random DAG over 2-D tensors of one shape, the same on every rank.
std::vector<Recipe> random_recipe(int operators) {
  std::mt19937_64 rng(42);
  std::vector<Recipe> r = {{OpType::input, {}}, {OpType::input, {}}, {OpType::weight, {}}};
  const OpType ops[] = {OpType::ewadd, OpType::ewmul, OpType::matmul, OpType::relu, OpType::tanh};
  for (int i = 0; i < operators; ++i) {
    OpType op = ops[rng() % std::size(ops)];
    int arity = op == OpType::relu || op == OpType::tanh ? 1 : 2;
    Recipe next{op, {}};
    for (int k = 0; k < arity; ++k) next.inputs.push_back(static_cast<int>(rng() % r.size()));
    r.push_back(next);
  }
  return r;
}

// Builds the recipe, adding nodes in a random topological order chosen by `order_seed`.
Graph build(const std::vector<Recipe>& recipe, uint64_t order_seed) {
  std::mt19937_64 rng(order_seed);
  Graph g;
  std::vector<NodeId> id(recipe.size(), -1);
  std::vector<size_t> pending;
  for (size_t i = 0; i < recipe.size(); ++i) pending.push_back(i);
  while (!pending.empty()) {
    std::vector<size_t> ready;
    for (size_t i : pending)
      if (std::all_of(recipe[i].inputs.begin(), recipe[i].inputs.end(), [&](int k) { return id[k] >= 0; }))
        ready.push_back(i);
    size_t pick = ready[rng() % ready.size()];
    const Recipe& r = recipe[pick];
    if (r.op == OpType::input)
      id[pick] = g.add_input(std::string("x").append(std::to_string(pick)),
                             {4, 4});  // not operator+: GCC 12 -Wrestrict
    else if (r.op == OpType::weight)
      id[pick] = g.add_weight(std::string("w").append(std::to_string(pick)), {4, 4});
    else {
      std::vector<TensorRef> in;
      for (int k : r.inputs) in.push_back({id[k], 0});
      id[pick] = g.add(r.op, in);
    }
    pending.erase(std::find(pending.begin(), pending.end(), pick));
  }
  g.add_output({id.back(), 0});
  return g;
}

}  // namespace

TEST_CASE("every rank computes the same canonical hash", "[mpi]") {
  auto recipe = random_recipe(12);
  Graph g = build(recipe, 1000 + world->rank());
  uint64_t h = canonical_hash(g);
  std::vector<uint64_t> all = world->all_gather(h);
  REQUIRE(all.size() == static_cast<size_t>(world->size()));
  for (uint64_t other : all) REQUIRE(other == h);
}

TEST_CASE("different graphs on different ranks hash differently", "[mpi]") {
  auto recipe = random_recipe(8 + world->rank());
  uint64_t h = canonical_hash(build(recipe, 7));
  std::vector<uint64_t> all = world->all_gather(h);
  std::sort(all.begin(), all.end());
  REQUIRE(std::adjacent_find(all.begin(), all.end()) == all.end());
}

TEST_CASE("broadcast delivers rank 0's text", "[mpi]") {
  std::string text = world->rank() == 0 ? std::string("superopt graph from rank 0") : std::string();
  REQUIRE(world->broadcast(text) == "superopt graph from rank 0");
}

int main(int argc, char** argv) {
  MpiWorld mpi;
  world = &mpi;
  return superopt::test::run_catch_session_on_all_ranks(mpi, argc, argv);
}
