// A pad in front of a convolution or pooling runs as the primitive's own
// padding (PyTorch's exports write a stride-2 window's symmetric padding so):
// planned only where the pad's value is what the window pads with and nothing
// else reads it, and equal to the reference either way.
#include <catch2/catch.hpp>

#include <limits>

#include "runtime/cost/cost_table.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/executor.h"
#include "tests/cpu_test_support.h"
#include "tests/op_params.h"

namespace superopt {
namespace {

TensorRef ref(NodeId id) {
  return TensorRef{id, 0};
}

OpParams pad_params(std::array<int32_t, 4> pads, float value) {
  OpParams p;
  p.pads = pads;
  p.value = value;
  return p;
}

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// x -> [conv] -> pad(pads, value) -> consumer (conv2d with a 3x3 kernel, or a 3x3 pool).
struct PadGraph {
  Graph g;
  NodeId pad = -1, consumer = -1;
};

PadGraph pad_then(OpType consumer, std::array<int32_t, 4> pads, float value, int stride, bool pad_is_output) {
  PadGraph r;
  Graph& g = r.g;
  NodeId x = g.add_input("x", {1, 8, 10, 10});
  // A convolution in front, so that the pad's input arrives in oneDNN's blocked format.
  NodeId c =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w0", {16, 8, 1, 1}))}, test::conv(1, Padding::same));
  r.pad = g.add(OpType::pad, {ref(c)}, pad_params(pads, value));
  if (consumer == OpType::conv2d)
    r.consumer = g.add(OpType::conv2d, {ref(r.pad), ref(g.add_weight("w1", {8, 16, 3, 3}))},
                       test::conv(stride, Padding::valid));
  else
    r.consumer = g.add(consumer, {ref(r.pad)}, test::pool(3, stride, Padding::valid));
  g.add_output(ref(r.consumer));
  if (pad_is_output) g.add_output(ref(r.pad));
  return r;
}

NodeId planned_pad(const Graph& g, NodeId consumer) {
  const FusionPlan plan = plan_fusions(g, weight_only_nodes(g));
  const int group = plan.group_of[size_t(consumer)];
  return group < 0 ? NodeId(-1) : plan.groups[size_t(group)].pad;
}

TEST_CASE("a leading pad folds into a convolution's or pool's padding", "[cpu]") {
  struct Case {
    OpType consumer;
    float value;
  };
  for (const Case c :
       {Case{OpType::conv2d, 0.f}, Case{OpType::pool_avg, 0.f}, Case{OpType::pool_max, kMinusInf}}) {
    for (const std::array<int32_t, 4> pads :
         {std::array<int32_t, 4>{1, 0, 1, 0}, std::array<int32_t, 4>{1, 1, 1, 1},
          std::array<int32_t, 4>{0, 2, 1, 0}}) {
      for (int stride : {1, 2}) {
        INFO(op_name(c.consumer) << " pads " << pads[0] << pads[1] << pads[2] << pads[3] << " stride "
                                 << stride);
        PadGraph p = pad_then(c.consumer, pads, c.value, stride, false);
        CHECK(planned_pad(p.g, p.consumer) == p.pad);
        cpu::KernelCache cache;
        cpu::CpuGraph run(cache, p.g, 3);
        CHECK_FALSE(run.held(ref(p.pad)));  // no buffer, no host copy
        test::require_agrees(p.g);
      }
    }
  }
}

TEST_CASE("a pad stays a step of its own where the window cannot take it", "[cpu]") {
  // Zeros before a max pool, -inf before an average pool or a convolution: another value.
  PadGraph zeros_max = pad_then(OpType::pool_max, {1, 0, 1, 0}, 0.f, 2, false);
  PadGraph inf_avg = pad_then(OpType::pool_avg, {1, 0, 1, 0}, kMinusInf, 2, false);
  PadGraph ones_conv = pad_then(OpType::conv2d, {1, 1, 1, 1}, 1.f, 1, false);
  // The padded tensor is also a graph output.
  PadGraph shared = pad_then(OpType::conv2d, {1, 1, 1, 1}, 0.f, 2, true);
  for (PadGraph* p : {&zeros_max, &ones_conv, &shared}) {
    CHECK(planned_pad(p->g, p->consumer) < 0);
    test::require_agrees(p->g);
  }
  CHECK(planned_pad(inf_avg.g, inf_avg.consumer) < 0);
  // Read by two convolutions: neither takes it.
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 9, 9});
  NodeId pad = g.add(OpType::pad, {ref(x)}, pad_params({1, 1, 1, 1}, 0.f));
  NodeId a =
      g.add(OpType::conv2d, {ref(pad), ref(g.add_weight("wa", {8, 8, 3, 3}))}, test::conv(2, Padding::valid));
  NodeId b =
      g.add(OpType::conv2d, {ref(pad), ref(g.add_weight("wb", {8, 8, 3, 3}))}, test::conv(1, Padding::valid));
  g.add_output(ref(a));
  g.add_output(ref(b));
  CHECK(planned_pad(g, a) < 0);
  CHECK(planned_pad(g, b) < 0);
  test::require_agrees(g);
}

TEST_CASE("a folded pad joins a convolution's bias and activation in one primitive", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 12, 12});
  NodeId pad = g.add(OpType::pad, {ref(x)}, pad_params({1, 1, 1, 1}, 0.f));
  NodeId c =
      g.add(OpType::conv2d, {ref(pad), ref(g.add_weight("w", {16, 8, 3, 3}))}, test::conv(2, Padding::valid));
  NodeId biased = g.add(OpType::ewadd, {ref(c), ref(g.add_weight("b", {16, 1, 1}))});
  g.add_output(ref(g.add(OpType::relu, {ref(biased)})));
  cpu::KernelCache cache;
  cpu::CpuGraph run(cache, g, 3);
  CHECK(run.num_fused() == 3);  // the pad, the bias add, the relu
  CHECK_FALSE(run.held(ref(pad)));
  CHECK_FALSE(run.held(ref(c)));
  const FusionPlan plan = plan_fusions(g, weight_only_nodes(g));
  REQUIRE(plan.groups.size() == 1);
  CHECK(fused_signature(g, plan.groups[0]).find("+pad pads=1,1,1,1") != std::string::npos);
  test::require_agrees(g);
}

TEST_CASE("measure times a pool whose pad it folds, alone and as the group", "[cpu]") {
  // imported ResNets: relu -> pad(-inf) -> max pool. Timed alone, the pool reads
  // the pad's plain output (not the group's blocked one, which once made oneDNN
  // refuse the pool: 'could not create a descriptor').
  PadGraph p = pad_then(OpType::pool_max, {1, 0, 1, 0}, kMinusInf, 2, false);
  REQUIRE(planned_pad(p.g, p.consumer) == p.pad);
  std::unique_ptr<Executor> executor = make_executor(DeviceKind::cpu, ExecOptions{1, 1, 1, false, 1});
  CostTable table;
  table.info = executor->table_info();
  const Graph graphs[] = {p.g};
  CHECK(executor->measure(graphs, table, nullptr) >= 3);  // conv, pad, pool, the group (and reorders)
  int pools = 0;
  for (const auto& [signature, entry] : table.entries())
    if (signature.starts_with("pool_max|")) {
      ++pools;
      CHECK(entry.cost_ms > 0);
    }
  CHECK(pools == 2);  // alone and with its pad
}

}  // namespace
}  // namespace superopt
