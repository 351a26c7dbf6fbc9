// The oneDNN CPU executor against the reference kernels: every operator the
// bundled models use on small shapes, the awkward cases included (groups,
// depthwise, asymmetric SAME padding, broadcasting, views, formats chosen by
// oneDNN meeting operators that need row-major data), whole models, the
// operator timer and the cost model's cache.
#include <catch2/catch.hpp>

#include <limits>

#include "runtime/core/graph_analysis.h"
#include "runtime/cost/cost_model.h"
#include "runtime/cost/fusion.h"
#include "runtime/exec/cost_models.h"
#include "runtime/exec/cpu/cpu_check.h"
#include "runtime/exec/cpu/cpu_engine.h"
#include "runtime/exec/cpu/cpu_graph.h"
#include "runtime/exec/cpu/cpu_op_timer.h"
#include "runtime/exec/executor.h"
#include "runtime/models/model_zoo.h"
#include "tests/cpu_test_support.h"
#include "tests/op_params.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::test;

namespace {

TensorRef ref(NodeId id, int port = 0) {
  return {id, port};
}

// x -> conv(x, w) with the given kernel shape and parameters, into relu so the conv's
// (possibly blocked) output meets another operator.
Graph conv_graph(Shape x, Shape w, const OpParams& p) {
  Graph g;
  NodeId in = g.add_input("x", x);
  NodeId k = g.add_weight("w", w);
  NodeId c = g.add(OpType::conv2d, {ref(in), ref(k)}, p);
  g.add_output(ref(g.add(OpType::relu, {ref(c)})));
  return g;
}

}  // namespace

TEST_CASE("convolutions: strides, SAME/VALID, asymmetric padding, groups, depthwise, relu", "[cpu]") {
  struct Case {
    Shape x, w;
    OpParams p;
  };
  const Case cases[] = {
      {{1, 3, 9, 9}, {8, 3, 3, 3}, conv(1, Padding::same, Activation::relu)},
      {{2, 8, 8, 8}, {16, 8, 3, 3}, conv(2, Padding::same)},     // SAME with the odd pixel after
      {{1, 16, 7, 10}, {16, 16, 1, 7}, conv(1, Padding::same)},  // rectangular kernel
      {{1, 16, 9, 9}, {8, 16, 3, 3}, conv(2, Padding::valid)},   // VALID leaving a row unused
      {{1, 16, 8, 8}, {32, 4, 3, 3}, conv(1, Padding::same)},    // 4 groups
      {{1, 24, 11, 11}, {24, 1, 5, 5}, conv(2, Padding::same)},  // depthwise, asymmetric
      {{1, 32, 6, 6}, {64, 32, 1, 1}, conv(1, Padding::valid, Activation::relu)},
  };
  for (const Case& c : cases) {
    Graph g = conv_graph(c.x, c.w, c.p);
    INFO(c.x.str() << " * " << c.w.str());
    require_agrees(g);
    require_primitives(g);
  }
}

TEST_CASE("a folded weight subgraph (enlarge) feeds a convolution prepared once", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {1, 8, 6, 6});
  NodeId small = g.add_weight("w", {8, 8, 1, 1});
  OpParams big;
  big.kernel_h = big.kernel_w = 3;
  NodeId w = g.add(OpType::enlarge, {ref(small)}, big);
  g.add_output(ref(g.add(OpType::conv2d, {ref(x), ref(w)}, conv(1, Padding::same))));
  require_agrees(g);
}

TEST_CASE("matmul: plain, batched, a shared rank-2 operand, an activation on the right", "[cpu]") {
  Graph g;
  NodeId a = g.add_input("a", {5, 7});
  NodeId w = g.add_weight("w", {7, 6});
  NodeId b3 = g.add_input("b3", {3, 4, 5});
  NodeId c3 = g.add_input("c3", {3, 5, 2});
  NodeId plain = g.add(OpType::matmul, {ref(a), ref(w)});
  NodeId batched = g.add(OpType::matmul, {ref(b3), ref(c3)});
  NodeId shared = g.add(OpType::matmul, {ref(b3), ref(g.add_weight("w2", {5, 3}))});
  NodeId right = g.add(OpType::matmul, {ref(g.add_input("l", {4, 5})), ref(plain)});
  for (NodeId out : {batched, shared, right}) g.add_output(ref(out));
  require_agrees(g);
  require_primitives(g);
}

TEST_CASE("a weight broadcast over a batch of few rows is one GEMM over all the rows", "[cpu]") {
  // An attention's input projection after a transpose: [seq, 1, d] x [d, 3d]
  // ran as one 1-row GEMM per sequence position (15 ms against 0.9 at BERT's sizes).
  Graph g;
  NodeId x = g.add_input("x", {1, 6, 16});
  OpParams perm;
  perm.perm = {1, 0, 2, -1, -1, -1};
  NodeId t = g.add(OpType::transpose, {ref(x)}, perm);
  NodeId proj = g.add(OpType::matmul, {ref(t), ref(g.add_weight("w", {16, 24}))});
  NodeId biased = g.add(OpType::ewadd, {ref(g.add_weight("b", {24})), ref(proj)});
  NodeId batch3 =
      g.add(OpType::matmul, {ref(g.add_input("y", {2, 3, 5, 16})), ref(g.add_weight("w3", {16, 8}))});
  NodeId batched =
      g.add(OpType::matmul, {ref(g.add_input("z", {3, 2, 16})), ref(g.add_input("v", {3, 16, 4}))});
  // A batch of one too: as rank 2 the weight is packed (BERT's feed-forward, 15 % faster).
  NodeId single = g.add(OpType::matmul, {ref(x), ref(g.add_weight("w1", {16, 24}))});
  for (NodeId out : {biased, batch3, batched, single}) g.add_output(ref(out));
  require_agrees(g);
  CHECK_THAT(kernel_of(g, single).algorithm, Catch::Matchers::Contains("+rows_merged"));
  CHECK_THAT(kernel_of(g, proj).algorithm, Catch::Matchers::Contains("+rows_merged"));
  CHECK_THAT(kernel_of(g, batch3).algorithm, Catch::Matchers::Contains("+rows_merged"));
  CHECK_THAT(kernel_of(g, batched).algorithm,
             !Catch::Matchers::Contains("+rows_merged"));  // its own B per batch
}

TEST_CASE("a weight holding -inf (an attention mask) checks as exact where it is the same -inf", "[cpu]") {
  const float inf = std::numeric_limits<float>::infinity();
  Graph g;
  NodeId scores = g.add_input("scores", {2, 3, 3});
  NodeId mask = g.add_weight("mask", {3, 3}, {0, -inf, -inf, 0, 0, -inf, 0, 0, 0});
  NodeId masked = g.add(OpType::ewadd, {ref(scores), ref(mask)});
  g.add_output(ref(g.add(OpType::softmax, {ref(masked)}, axis(2))));
  const cpu::CpuCheck c = run_and_check(g);
  CHECK(c.weight_error == 0);
  CHECK(c.output_error < 1e-5);
}

TEST_CASE("element-wise: same shapes in oneDNN's formats, broadcasting on either side, smul", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 16, 5, 5});
  NodeId c1 =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w1", {16, 16, 3, 3}))}, conv(1, Padding::same));
  NodeId c2 =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w2", {16, 16, 1, 1}))}, conv(1, Padding::same));
  NodeId sum = g.add(OpType::ewadd, {ref(c1), ref(c2)});    // both blocked
  NodeId mixed = g.add(OpType::ewmul, {ref(sum), ref(x)});  // blocked * row-major
  NodeId bias = g.add(OpType::ewadd, {ref(g.add_weight("b", {16, 1, 1})), ref(mixed)});  // broadcast first
  NodeId scaled = g.add(OpType::ewmul, {ref(bias), ref(g.add_weight("s", {1, 16, 1, 1}))});
  NodeId smul = g.add(OpType::smul, {ref(scaled), ref(g.add_weight("k", {1}))});
  NodeId sig = g.add(OpType::sigmoid, {ref(smul)});
  NodeId tanh = g.add(OpType::tanh, {ref(sig)});
  NodeId rows = g.add_input("rows", {4, 6});
  NodeId row_bias = g.add(OpType::ewadd, {ref(rows), ref(g.add_weight("rb", {6}))});
  g.add_output(ref(tanh));
  g.add_output(ref(row_bias));
  require_agrees(g);
  require_primitives(g);
}

TEST_CASE("a per-channel bias over a blocked convolution output runs on the JIT binary, not oneDNN's ref",
          "[cpu]") {
  // oneDNN 2.6 broadcasts a plain [1,C,1,1] operand over an nChw8c one only in
  // its reference implementation (10-20 ms for a 64x32x32 tensor): the kernel
  // asks for the small operand in nChw8c too (or, where that is refused, for
  // the full operand in row-major order).
  Graph g;
  NodeId x = g.add_input("x", {1, 64, 32, 32});
  NodeId bias = g.add(OpType::ewadd, {ref(x), ref(g.add_weight("b", {64, 1, 1}))});
  g.add_output(ref(bias));
  const cpu::memory::dims dims{1, 64, 32, 32};
  const std::array<cpu::memory::desc, 2> given{
      cpu::memory::desc(dims, cpu::memory::data_type::f32, cpu::memory::format_tag::nChw8c),
      cpu::plain_desc(Shape{64, 1, 1})};
  const std::array<bool, 2> weight{false, true};
  const cpu::NodeKernel k = cpu::build_kernel(g, bias, given, weight);
  INFO(k.algorithm);
  CHECK_FALSE(k.reference);
  CHECK(k.algorithm.find(":ref") == std::string::npos);
  // The small operand in the big one's blocking; where this CPU's oneDNN has no
  // JIT kernel for that either (AVX-512: nChw8c binaries run ref:any), the big
  // operand is reordered to row-major and the small one stays plain.
  const cpu::memory::desc small8({1, 64, 1, 1}, cpu::memory::data_type::f32, cpu::memory::format_tag::nChw8c);
  const bool blocked_small = k.inputs[0] == given[0] && k.inputs[1] == small8;
  const bool row_major = k.inputs[0] == cpu::plain_desc(Shape{1, 64, 32, 32}) && k.inputs[1] == given[1];
  CHECK((blocked_small || row_major));
  // nChw16c: whichever way this CPU's oneDNN takes it, not the reference implementation.
  const std::array<cpu::memory::desc, 2> given16{
      cpu::memory::desc(dims, cpu::memory::data_type::f32, cpu::memory::format_tag::nChw16c), given[1]};
  const cpu::NodeKernel k16 = cpu::build_kernel(g, bias, given16, weight);
  INFO(k16.algorithm);
  CHECK(k16.algorithm.find(":ref") == std::string::npos);
  // A same-shape operand keeps the blocked format (no reorder asked for).
  Graph same;
  NodeId a = same.add_input("a", {1, 64, 32, 32}), b = same.add_input("b", {1, 64, 32, 32});
  NodeId sum = same.add(OpType::ewadd, {ref(a), ref(b)});
  same.add_output(ref(sum));
  const std::array<cpu::memory::desc, 2> blocked{given[0], given[0]};
  CHECK(cpu::build_kernel(same, sum, blocked, std::array<bool, 2>{}).inputs[0] == given[0]);
  require_agrees(g);
}

namespace {

// x -> conv -> + bias [1,C,1,1] -> + residual -> activation: the form imported
// ResNets take after their batch norms are folded.
Graph conv_block(OpType activation, bool conv_output_too) {
  Graph g;
  NodeId x = g.add_input("x", {1, 16, 9, 9});
  NodeId c = g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w", {16, 16, 3, 3}))}, conv(1, Padding::same));
  NodeId biased = g.add(OpType::ewadd, {ref(c), ref(g.add_weight("b", {1, 16, 1, 1}))});
  NodeId sum = g.add(OpType::ewadd, {ref(x), ref(biased)});  // the residual first
  OpParams limits;
  limits.lo = 0, limits.hi = 6;
  g.add_output(ref(g.add(activation, {ref(sum)}, activation == OpType::clip ? limits : OpParams{})));
  if (conv_output_too) g.add_output(ref(c));
  return g;
}

int fused_nodes(const Graph& g) {
  cpu::KernelCache cache;
  return cpu::CpuGraph(cache, g, 3).num_fused();
}

}  // namespace

TEST_CASE("a convolution runs with its bias add, residual add and activation as one primitive", "[cpu]") {
  for (OpType activation : {OpType::relu, OpType::clip, OpType::silu, OpType::hardswish}) {
    INFO(op_name(activation));
    Graph g = conv_block(activation, false);
    CHECK(fused_nodes(g) == 3);
    require_agrees(g);
  }
  // A convolution output that is also a graph output stays a tensor of its own.
  Graph shared = conv_block(OpType::relu, true);
  CHECK(fused_nodes(shared) == 0);
  require_agrees(shared);
  // The planner's activations (fusion.h) are exactly those with one eltwise algorithm.
  for (int op = 0; op < kNumOpTypes; ++op) {
    Node n;
    n.op = OpType(op);
    INFO(op_name(n.op));
    CHECK(fusable_activation(n.op) == cpu::eltwise_step(n).has_value());
  }
  // hardsigmoid is two eltwise steps: the bias and the sum fuse, it does not.
  CHECK(fused_nodes(conv_block(OpType::hardsigmoid, false)) == 2);
  require_agrees(conv_block(OpType::hardsigmoid, false));
}

TEST_CASE("two fused convolutions meet at a residual add computed after the first", "[cpu]") {
  // A ResNet downsampling block: the shortcut's conv + bias is the residual of
  // the main path's conv + bias + add + relu, and comes later in node order.
  Graph g;
  NodeId x = g.add_input("x", {2, 8, 10, 10});
  NodeId main =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w1", {16, 8, 3, 3}))}, conv(2, Padding::same));
  NodeId main_bias = g.add(OpType::ewadd, {ref(main), ref(g.add_weight("b1", {16, 1, 1}))});
  NodeId shortcut =
      g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w2", {16, 8, 1, 1}))}, conv(2, Padding::same));
  NodeId shortcut_bias = g.add(OpType::ewadd, {ref(g.add_weight("b2", {1, 16, 1, 1})), ref(shortcut)});
  NodeId sum = g.add(OpType::ewadd, {ref(main_bias), ref(shortcut_bias)});
  g.add_output(ref(g.add(OpType::relu, {ref(sum)})));
  // main: bias, the sum and the relu; the shortcut: its bias.
  CHECK(fused_nodes(g) == 4);
  require_agrees(g);
}

TEST_CASE("a linear layer runs matmul, bias, residual add and activation as one primitive", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 5, 32});
  NodeId mm = g.add(OpType::matmul, {ref(x), ref(g.add_weight("w", {32, 32}))});
  NodeId biased = g.add(OpType::ewadd, {ref(g.add_weight("b", {32})), ref(mm)});
  NodeId sum = g.add(OpType::ewadd, {ref(biased), ref(x)});
  g.add_output(ref(g.add(OpType::gelu, {ref(sum)})));
  // A rank-2 layer whose bias is [1, N], into a relu.
  NodeId rows = g.add_input("rows", {4, 32});
  NodeId mm2 = g.add(OpType::matmul, {ref(rows), ref(g.add_weight("w2", {32, 16}))});
  NodeId biased2 = g.add(OpType::ewadd, {ref(mm2), ref(g.add_weight("b2", {1, 16}))});
  g.add_output(ref(g.add(OpType::relu, {ref(biased2)})));
  // Not a bias: [5, 1] varies along the rows.
  NodeId mm3 = g.add(OpType::matmul, {ref(x), ref(g.add_weight("w3", {32, 8}))});
  g.add_output(ref(g.add(OpType::ewadd, {ref(mm3), ref(g.add_weight("not_bias", {5, 1}))})));
  CHECK(fused_nodes(g) == 3 + 2);
  require_agrees(g);
}

TEST_CASE("both operands broadcast: the documented reference fallback", "[cpu]") {
  Graph g;
  NodeId sum = g.add(OpType::ewadd, {ref(g.add_input("a", {4, 1})), ref(g.add_input("b", {1, 5}))});
  g.add_output(ref(sum));
  require_agrees(g);
  CHECK(kernel_of(g, sum).reference);
}

TEST_CASE("pooling: average counts padding, max ignores it, asymmetric SAME, VALID", "[cpu]") {
  for (OpType op : {OpType::pool_avg, OpType::pool_max})
    for (const OpParams& p :
         {pool(3, 1, Padding::same), pool(3, 2, Padding::same), pool(2, 2, Padding::valid),
          pool_window(1, 3, 2, Padding::same), pool(3, 2, Padding::valid)}) {
      Graph g;
      NodeId x = g.add_input("x", {1, 16, 8, 8});
      NodeId c =
          g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w", {16, 16, 1, 1}))}, conv(1, Padding::same));
      g.add_output(ref(g.add(op, {ref(c)}, p)));  // on the conv's format
      g.add_output(ref(g.add(op, {ref(x)}, p)));  // on row-major input
      INFO(op_name(op) << " k " << p.kernel_h << "x" << p.kernel_w << " stride " << p.stride_h);
      require_agrees(g);
      require_primitives(g);
    }
}

TEST_CASE("concat and split: channel blocks, odd channel counts, views and copies", "[cpu]") {
  for (int batch : {1, 2})
    for (int channels : {16, 5}) {
      Graph g;
      NodeId x = g.add_input("x", {batch, 8, 6, 6});
      NodeId a = g.add(OpType::conv2d, {ref(x), ref(g.add_weight("wa", {channels, 8, 1, 1}))},
                       conv(1, Padding::same));
      NodeId b =
          g.add(OpType::conv2d, {ref(x), ref(g.add_weight("wb", {8, 8, 3, 3}))}, conv(1, Padding::same));
      NodeId cat = g.add(OpType::concat, {ref(a), ref(b), ref(x)}, axis(1));
      NodeId cat2 = g.add(OpType::concat, {ref(cat), ref(x)}, axis(1));
      NodeId parts = g.add(OpType::split, {ref(cat2)}, axis(1));  // a view at batch 1, copies at 2
      g.add_output(ref(g.add(OpType::relu, {ref(parts, 0)})));
      g.add_output(ref(parts, 1));
      g.add_output(ref(g.add(OpType::concat, {ref(x), ref(x)}, axis(3))));
      INFO("batch " << batch << ", channels " << channels);
      require_agrees(g);
      require_primitives(g);
    }
}

// Two splits of one [4, 12] shape at different points (8 | 4 and 4 | 8): the
// kernel cache once gave the second the first's parts, and the executor
// recursed without end converting a [4, 8] buffer to the graph's [4, 4].
TEST_CASE("splits of one shape at different points get their own kernels", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {4, 6});
  NodeId wide = g.add_weight("wide", {6, 8}), narrow = g.add_weight("narrow", {6, 4});
  NodeId a = g.add(OpType::matmul, {ref(x), ref(g.add(OpType::concat, {ref(wide), ref(narrow)}, axis(1)))});
  NodeId b = g.add(OpType::matmul, {ref(x), ref(g.add(OpType::concat, {ref(narrow), ref(wide)}, axis(1)))});
  NodeId parts_a = g.add(OpType::split, {ref(g.add(OpType::relu, {ref(a)}))}, axis(1));
  NodeId parts_b = g.add(OpType::split, {ref(g.add(OpType::relu, {ref(b)}))}, axis(1));
  for (NodeId parts : {parts_a, parts_b})
    for (int port : {0, 1}) g.add_output(ref(g.add(OpType::sigmoid, {ref(parts, port)})));
  CHECK(op_signature(g, parts_a) != op_signature(g, parts_b));
  require_agrees(g);
}

namespace {

// x -> a convolution -> a 1x1 and a 3x3 convolution (relu fused) and a max
// pool, concatenated on the channels; `shared` also reads the 3x3 output
// elsewhere (a graph output).
Graph inception_block(int64_t batch, int64_t a_channels, bool shared) {
  Graph g;
  NodeId in = g.add_input("x", {batch, 8, 7, 7});
  NodeId x = g.add(OpType::conv2d, {ref(in), ref(g.add_weight("w", {16, 8, 1, 1}))}, conv(1, Padding::same));
  NodeId a = g.add(OpType::conv2d, {ref(x), ref(g.add_weight("wa", {a_channels, 16, 1, 1}))},
                   conv(1, Padding::same, Activation::relu));
  NodeId b = g.add(OpType::conv2d, {ref(x), ref(g.add_weight("wb", {32, 16, 3, 3}))},
                   conv(1, Padding::same, Activation::relu));
  NodeId p = g.add(OpType::pool_max, {ref(x)}, pool(3, 1, Padding::same));
  g.add_output(ref(g.add(OpType::relu, {ref(g.add(OpType::concat, {ref(a), ref(b), ref(p)}, axis(1)))})));
  if (shared) g.add_output(ref(b));
  return g;
}

// Whether this CPU's convolutions write a blocked layout (nChw8c, nChw16c) that
// channel slices of a concat can take. With AVX-512, oneDNN 2.6's brgconv asks
// for nhwc and runs only its reference kernel into a slice: every concat then
// keeps its copies (concat_in_place refuses a writer whose kernel changes).
bool convs_write_into_slices() {
  const Graph g = inception_block(1, 16, false);
  cpu::KernelCache cache;
  return cpu::CpuGraph(cache, g, 3).num_concats_in_place() > 0;
}

struct ConcatCounts {
  int in_place, copies, launches;
};
ConcatCounts concat_counts(const Graph& g) {
  cpu::KernelCache cache;
  cpu::CpuGraph planned(cache, g, 3);
  return {planned.num_concats_in_place(), planned.num_concat_copies(), planned.num_launches()};
}

}  // namespace

TEST_CASE("the cpu cost model costs a concat written in place as the copies it makes", "[cpu]") {
  std::unique_ptr<Executor> executor = make_executor(DeviceKind::cpu, ExecOptions{1, 3, 1, false, 1});
  auto concat_entries = [](const MeasuredCostModel& m) {
    int n = 0;
    for (const auto& [signature, entry] : m.measured().entries()) n += signature.starts_with("concat|");
    return n;
  };
  // Every part written by its producer: no concat primitive runs, none is measured.
  std::unique_ptr<MeasuredCostModel> in_place = executor->cost_model();
  CHECK(graph_cost_ms(inception_block(1, 16, false), *in_place) > 0);
  CHECK(concat_entries(*in_place) == (convs_write_into_slices() ? 0 : 1));
  // Batch 2 keeps the concat primitive: it is measured and costed.
  std::unique_ptr<MeasuredCostModel> primitive = executor->cost_model();
  CHECK(graph_cost_ms(inception_block(2, 16, false), *primitive) > 0);
  CHECK(concat_entries(*primitive) == 1);
}

TEST_CASE("a concat is written in place by its producers, copied where one is read elsewhere", "[cpu]") {
  // Batch 1, every part a whole number of channel blocks: the three producers write it, no step of its own.
  const ConcatCounts all = concat_counts(inception_block(1, 16, false));
  const ConcatCounts shared = concat_counts(inception_block(1, 16, true));
  if (convs_write_into_slices()) {
    CHECK(all.in_place == 1);
    CHECK(all.copies == 0);
    // The 3x3 output is also a graph output: it keeps its buffer and is copied in.
    CHECK(shared.in_place == 1);
    CHECK(shared.copies == 1);
    CHECK(shared.launches == all.launches + 2);  // the copy, and the graph output's reorder to row-major
  } else {
    WARN("this CPU's convolutions cannot write into a concat's slices (AVX-512 brgconv): copies only");
    CHECK(all.in_place + shared.in_place == 0);
    CHECK(shared.launches == all.launches + 1);  // the graph output's reorder to row-major
  }
  require_agrees(inception_block(1, 16, false));
  require_agrees(inception_block(1, 16, true));
  // Batch 2: a channel slice is strided, oneDNN 2.6 has only reference kernels for it; 5 channels
  // first cuts a block. Both keep the concat primitive.
  CHECK(concat_counts(inception_block(2, 16, false)).in_place == 0);
  require_agrees(inception_block(2, 16, false));
  CHECK(concat_counts(inception_block(1, 5, false)).in_place == 0);
  require_agrees(inception_block(1, 5, false));
  // A tensor read twice by the concat (x, x) and a graph input are never written in place.
  Graph twice;
  NodeId x = twice.add_input("x", {1, 16, 5, 5});
  NodeId c =
      twice.add(OpType::conv2d, {ref(x), ref(twice.add_weight("w", {16, 16, 1, 1}))}, conv(1, Padding::same));
  twice.add_output(ref(twice.add(OpType::concat, {ref(c), ref(c), ref(x)}, axis(1))));
  CHECK(concat_counts(twice).in_place == 0);
  require_agrees(twice);
  // On a row-major axis with ones before it, the parts are contiguous: binary producers write them.
  Graph rows;
  NodeId u = rows.add_input("u", {1, 1, 6, 10});
  NodeId v = rows.add_input("v", {1, 1, 4, 10});
  NodeId su = rows.add(OpType::ewadd, {ref(u), ref(u)});
  NodeId sv = rows.add(OpType::ewmul, {ref(v), ref(v)});
  rows.add_output(ref(rows.add(OpType::concat, {ref(su), ref(sv)}, axis(2))));
  CHECK(concat_counts(rows).in_place == 1);
  CHECK(concat_counts(rows).copies == 0);
  require_agrees(rows);
}

TEST_CASE("transpose, reshape of a blocked tensor, softmax, batchnorm at rank 4 and 2", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {1, 16, 4, 6});
  NodeId c = g.add(OpType::conv2d, {ref(x), ref(g.add_weight("w", {16, 16, 3, 3}))}, conv(1, Padding::same));
  auto stats = [&](const std::string& prefix, int64_t channels) {
    std::vector<TensorRef> refs;
    for (const char* part : {"scale", "bias", "mean"})
      refs.push_back(ref(g.add_weight(prefix + part, {channels})));
    std::vector<float> variances;  // positive, as a variance is
    for (int64_t i = 0; i < channels; ++i) variances.push_back(0.5f + 0.1f * float(i));
    refs.push_back(ref(g.add_weight(prefix + "var", {channels}, variances)));
    return refs;
  };
  std::vector<TensorRef> bn_inputs = {ref(c)};
  for (TensorRef t : stats("bn4.", 16)) bn_inputs.push_back(t);
  NodeId bn = g.add(OpType::batchnorm, bn_inputs);
  NodeId flat = g.add(OpType::reshape, {ref(bn)}, with_shape({16, 24}));
  OpParams perm;
  perm.perm = {1, 0, -1, -1, -1, -1};
  NodeId t = g.add(OpType::transpose, {ref(flat)}, perm);
  std::vector<TensorRef> bn2_inputs = {ref(t)};
  for (TensorRef s : stats("bn2.", 16)) bn2_inputs.push_back(s);
  NodeId bn2 = g.add(OpType::batchnorm, bn2_inputs);
  NodeId three = g.add(OpType::reshape, {ref(bn2)}, with_shape({4, 6, 16}));
  OpParams perm3;
  perm3.perm = {2, 0, 1, -1, -1, -1};
  NodeId t3 = g.add(OpType::transpose, {ref(three)}, perm3);
  g.add_output(ref(g.add(OpType::softmax, {ref(t3)}, axis(2))));
  g.add_output(ref(g.add(OpType::softmax, {ref(c)}, axis(1))));
  require_agrees(g);
  require_primitives(g);
}

TEST_CASE("an operator without a primitive (opaque) runs the reference kernel", "[cpu]") {
  Graph g;
  NodeId x = g.add_input("x", {2, 3});
  NodeId o = g.add(OpType::opaque, {ref(g.add(OpType::relu, {ref(x)}))}, with_shape({3, 2}));
  g.add_output(ref(g.add(OpType::tanh, {ref(o)})));
  require_agrees(g);
  CHECK(kernel_of(g, o).reference);
}

TEST_CASE("whole models agree with the CPU reference on the backend's own inputs", "[cpu]") {
  for (const char* name : {"squeezenet", "resnet_blocks:1", "inceptione_blocks:1", "nasrnn", "sru"}) {
    INFO(name);
    Graph g = build_builtin_model(name);
    require_agrees(g, 1e-4);
    require_primitives(g);
  }
  // bert: random weights without normalization overflow float by layer 7; those
  // operators are counted apart, the others must agree.
  cpu::CpuCheck c = run_and_check(build_builtin_model("bert"));
  CHECK(c.node_error < 1e-4);
  CHECK(c.nodes_beyond_float < 10);  // 6 with seed 3
}

TEST_CASE("the operator timer and the cpu cost model measure once per signature", "[cpu]") {
  std::unique_ptr<Executor> executor = make_executor(DeviceKind::cpu, ExecOptions{1, 3, 1, false, 1});
  Graph g = build_builtin_model("squeezenet");
  CostTable table;
  table.info = executor->table_info();
  CHECK(table.info.device_kind == "cpu");
  CHECK(table.info.threads == 1);
  CHECK_FALSE(table.info.onednn.empty());
  const int measured = executor->measure(std::span<const Graph>(&g, 1), table, nullptr);
  CHECK(measured > 0);
  CHECK(executor->measure(std::span<const Graph>(&g, 1), table, nullptr) == 0);
  for (const auto& [signature, entry] : table.entries()) {
    INFO(signature);
    CHECK(entry.cost_ms > 0);
    CHECK(entry.algorithm.starts_with("onednn:"));
  }
  std::unique_ptr<MeasuredCostModel> model = executor->cost_model();
  const double first = graph_cost_ms(g, *model);
  const size_t entries = model->measured().size();
  CHECK(first > 0);
  CHECK(entries > 0);
  CHECK(graph_cost_ms(g, *model) == first);  // cached, not measured again
  CHECK(model->measured().size() == entries);
}

TEST_CASE("costs of what runs: a fused group is measured and costed once", "[cpu]") {
  std::unique_ptr<Executor> executor = make_executor(DeviceKind::cpu, ExecOptions{1, 3, 1, false, 1});
  const Graph g = conv_block(OpType::relu, false);
  const std::vector<bool> weight_only = weight_only_nodes(g);
  const FusionPlan plan = plan_fusions(g, weight_only);
  REQUIRE(plan.groups.size() == 1);
  const std::string fused = fused_signature(g, plan.groups[0]);
  CHECK(fused == op_signature(g, plan.groups[0].producer) + "+bias+sum+relu");
  // measure: every node alone and the group as one primitive.
  CostTable table;
  table.info = executor->table_info();
  executor->measure(std::span<const Graph>(&g, 1), table, nullptr);
  REQUIRE(table.lookup(fused));
  CHECK(table.lookup(fused)->algorithm.find("+bias+sum+eltwise") != std::string::npos);
  // The live model's graph cost is the group's entry and the reorders' entries.
  std::unique_ptr<MeasuredCostModel> live = executor->cost_model();
  const double live_ms = graph_cost_ms(g, *live);
  REQUIRE(live->measured().lookup(fused));
  double reorders_ms = 0;
  cpu::KernelCache cache;
  for (const cpu::Conversion& c : cpu::planned_conversions(cache, g, weight_only))
    reorders_ms += live->measured().lookup(cpu::conversion_signature(g, c))->cost_ms;
  CHECK(live_ms == Approx(live->measured().lookup(fused)->cost_ms + reorders_ms));
  // A CPU table with the group's entry costs it once; without it, node by node.
  TempDir dir;
  table.write(dir.file("fused.h5"));
  CHECK(graph_cost_ms(g, *make_cost_model("table:" + dir.file("fused.h5"))) == table.lookup(fused)->cost_ms);
  CostTable unfused;
  unfused.info = table.info;
  double node_sum_ms = 0;
  for (const auto& [signature, entry] : table.entries())
    if (signature != fused && !signature.starts_with("reorder||")) {  // a table's sum has no reorders
      unfused.insert(signature, entry);
      node_sum_ms += entry.cost_ms;
    }
  unfused.write(dir.file("unfused.h5"));
  CHECK(graph_cost_ms(g, *make_cost_model("table:" + dir.file("unfused.h5"))) == Approx(node_sum_ms));
}

TEST_CASE("the reorders a graph's cost counts are the ones its run makes", "[cpu]") {
  // planned_conversions works CpuGraph's plan out without buffers; the two must agree.
  std::vector<Graph> graphs = {conv_block(OpType::relu, false), conv_block(OpType::relu, true)};
  for (const char* name : {"squeezenet", "resnet_blocks:1", "inceptione_blocks:1", "nasrnn", "sru", "bert"})
    graphs.push_back(build_builtin_model(name));
  for (const Graph& g : graphs) {
    cpu::KernelCache cache;
    const cpu::CpuGraph planned(cache, g, 3);
    const std::vector<cpu::Conversion> conversions = cpu::planned_conversions(cache, g, weight_only_nodes(g));
    CHECK(int(conversions.size()) == planned.num_reorders());
    for (const cpu::Conversion& c : conversions)
      CHECK(cpu::conversion_signature(g, c).starts_with("reorder||"));
  }
}

TEST_CASE("thread counts outside 1..cores and unknown devices are refused", "[cpu]") {
  CHECK_THROWS_WITH(make_executor(DeviceKind::cpu, ExecOptions{1, 1, 1, false, cpu::available_cores() + 1}),
                    Catch::Contains("cores of this machine"));
  CHECK_THROWS_WITH(checked_threads(0, "run"), Catch::Contains("--threads 0 is not between 1"));
  CHECK_THROWS_WITH(parse_device("tpu"), Catch::Contains("unknown device 'tpu'"));
}

TEST_CASE("a CPU table from another machine is reported, one from here is not", "[cpu]") {
  CostTableInfo here = make_executor(DeviceKind::cpu, ExecOptions{})->table_info();
  CHECK(table_provenance_mismatch(here) == "");
  CostTableInfo other = here;
  other.device = "Some Other CPU";
  other.onednn = "3.0.0";
  const std::string why = table_provenance_mismatch(other);
  CHECK_THAT(why, Catch::Contains("Some Other CPU") && Catch::Contains("oneDNN '3.0.0'"));
  CostTableInfo gpu;  // GPU tables are judged on their GPU
  CHECK(table_provenance_mismatch(gpu) == "");
}

TEST_CASE("interleaved timing starts each round one graph later, every graph once a round", "[cpu]") {
  for (size_t n : {1, 2, 5}) {
    for (int round = 0; round < 7; ++round) {
      std::vector<int> seen(n, 0);
      for (size_t i = 0; i < n; ++i) ++seen[interleaved_turn(round, i, n)];
      CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
      CHECK(interleaved_turn(round, 0, n) == size_t(round) % n);
    }
  }
}
