// Split trees kept out of line (split_tree_table.h, over intern_table.h): interned
// ids compare as the trees do, split/concat round trip through them, and a node
// stays small.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "runtime/core/graph.h"
#include "runtime/core/intern_table.h"
#include "runtime/core/operator_registry.h"

using namespace superopt;

namespace {

TensorDesc concat0(const TensorDesc& a, const TensorDesc& b) {
  OpParams p;
  p.axis = 0;
  std::vector<const TensorDesc*> in{&a, &b};
  std::vector<TensorDesc> out(1);
  infer_outputs(OpType::concat, p, in, out);
  return out[0];
}

std::vector<TensorDesc> split0(const TensorDesc& a) {
  OpParams p;
  p.axis = 0;
  std::vector<const TensorDesc*> in{&a};
  std::vector<TensorDesc> out(2);
  infer_outputs(OpType::split, p, in, out);
  return out;
}

}  // namespace

// The 4-operator rule database holds about 6 million nodes (415,786 rules of
// 12 to 16 nodes, loaded by every rank of `derive`); at 628 bytes a node (split
// trees inline) it took 5 GB to load. 256 bytes keeps it near 1.5 GB.
TEST_CASE("a graph node stays small enough for the 4-operator rule database", "[core]") {
  STATIC_REQUIRE(sizeof(TensorDesc) <= 32);
  STATIC_REQUIRE(sizeof(Node) <= 256);
  STATIC_REQUIRE(std::is_trivially_copyable_v<Node>);
}

TEST_CASE("descriptors without split trees carry id 0", "[core]") {
  TensorDesc a{Shape{2, 4}, {}};
  REQUIRE(a.splits_id == 0);
  REQUIRE_FALSE(a.has_splits());
  REQUIRE(a.split(0).empty());
  const size_t interned = num_interned_split_trees();
  a.set_split(1, SplitTree{});  // an empty tree on an empty descriptor interns nothing
  REQUIRE(a.splits_id == 0);
  REQUIRE(num_interned_split_trees() == interned);
}

TEST_CASE("equal split trees give equal descriptors, different ones differ", "[core]") {
  TensorDesc a{Shape{2, 4}, {}}, b{Shape{3, 4}, {}}, c{Shape{1, 4}, {}};
  TensorDesc ab1 = concat0(a, b), ab2 = concat0(a, b);
  REQUIRE(ab1.has_splits());
  REQUIRE(ab1 == ab2);
  REQUIRE(ab1.splits_id == ab2.splits_id);
  // Same shape 5x4, other history: concat(c, 4x4) splits at 1, not 2.
  TensorDesc other = concat0(c, TensorDesc{Shape{4, 4}, {}});
  REQUIRE(other.shape == ab1.shape);
  REQUIRE_FALSE(other == ab1);
  REQUIRE(other.split(0).split_point() == 1);
  // Copies share the id; editing one does not touch the other.
  TensorDesc copy = ab1;
  copy.set_split(0, SplitTree{});
  REQUIRE_FALSE(copy.has_splits());
  REQUIRE(ab1.split(0).split_point() == 2);
}

TEST_CASE("split undoes concat through the interned trees, as inline trees did", "[core]") {
  TensorDesc a{Shape{2, 4}, {}}, b{Shape{3, 4}, {}}, c{Shape{5, 4}, {}};
  TensorDesc abc = concat0(concat0(a, b), c);
  std::vector<TensorDesc> halves = split0(abc);
  REQUIRE(halves[0] == concat0(a, b));
  REQUIRE(halves[1] == c);
  std::vector<TensorDesc> inner = split0(halves[0]);
  REQUIRE(inner[0] == a);
  REQUIRE(inner[1] == b);
  REQUIRE(inner[0].splits_id == 0);
}

TEST_CASE("split trees interned from several threads get one id per array", "[core]") {
  std::vector<uint32_t> ids(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&ids, t] {
      TensorDesc x{Shape{7, 3}, {}};
      for (int k = 1; k <= 200; ++k) x = concat0(x, TensorDesc{Shape{k % 5 + 1, 3}, {}});
      ids[t] = x.splits_id;
    });
  for (std::thread& th : threads) th.join();
  for (int t = 1; t < 4; ++t) REQUIRE(ids[t] == ids[0]);
  REQUIRE(ids[0] != 0);
}

TEST_CASE("the intern table gives one id per value and keeps values across its chunks", "[core]") {
  InternTable<int64_t, std::hash<int64_t>, std::equal_to<int64_t>> table(-1);
  std::vector<uint32_t> ids;
  for (int64_t v = 0; v < 5000; ++v) ids.push_back(table.intern(v * 7));
  REQUIRE(table.size() == 5001);
  for (int64_t v = 0; v < 5000; ++v) {
    REQUIRE(ids[v] == uint32_t(v + 1));
    REQUIRE(table.at(ids[v]) == v * 7);
    REQUIRE(table.intern(v * 7) == ids[v]);
  }
  REQUIRE(table.at(0) == -1);
}
