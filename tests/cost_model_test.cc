// Cost models: the roofline figures by hand, stable operator signatures,
// weight-only subgraphs for free, the memory limit, and the HDF5 cost table
// (round trip, lookups and fallbacks, damaged and foreign files), and the
// noise of a difference of measured costs.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/cost/analytic_cost.h"
#include "runtime/cost/cost_model.h"
#include "runtime/cost/cost_spread.h"
#include "runtime/cost/cost_table.h"
#include "runtime/db/rule_database.h"
#include "runtime/exec/cost_models.h"
#include "runtime/models/model_zoo.h"
#include "tests/hdf5_file_editor.h"
#include "tests/op_params.h"
#include "tests/temp_dir.h"

using namespace superopt;
using namespace superopt::test;
using Catch::Contains;

namespace {

// H100 profile figures (data/devices/h100.json), repeated here so that a
// changed profile shows up as a failing hand computation.
constexpr double kH100Flops = 67e12, kH100Bandwidth = 3.35e12, kLaunchMs = 5e-3;

// x 1x64x56x56 -> conv 3x3 (relu) -> relu; also returns the node ids.
struct ConvGraph {
  Graph g;
  NodeId conv = -1, relu = -1;
};
ConvGraph conv_relu(const std::string& weight_name = "w") {
  ConvGraph c;
  NodeId x = c.g.add_input("x", {1, 64, 56, 56});
  NodeId w = c.g.add_weight(weight_name, {64, 64, 3, 3});
  c.conv = c.g.add(OpType::conv2d, {{x, 0}, {w, 0}}, conv(1, Padding::same, Activation::relu));
  c.relu = c.g.add(OpType::relu, {{c.conv, 0}});
  c.g.add_output({c.relu, 0});
  return c;
}

std::multiset<std::string> signatures(const Graph& g) {
  std::multiset<std::string> s;
  for (NodeId id = 0; id < g.num_nodes(); ++id) s.insert(op_signature(g, id));
  return s;
}

// A profile like h100's with another memory size.
std::string profile_with_memory(const TempDir& dir, int64_t memory_bytes) {
  std::string path = dir.file("small.json");
  std::ofstream(path) << R"({"format": "superopt-device", "version": 1, "name": "small",
    "peak_flops": 67e12, "memory_bandwidth_bytes_per_s": 3.35e12, "launch_overhead_us": 5,
    "memory_bytes": )" << memory_bytes
                      << "}";
  return path;
}

CostTable sample_table(const std::string& conv_signature) {
  CostTable t;
  t.info.device = "NVIDIA H100 80GB HBM3";
  t.info.driver = "580.65";
  t.info.cudnn = "9.10.2";
  t.info.cublas = "12.9.1";
  t.info.analytic_profile = "v100";
  t.insert(conv_signature, {0.042, "IMPLICIT_PRECOMP_GEMM", 200});
  t.insert("matmul||64x1024,1024x1024|row", {0.011, "cublas default", 100});
  return t;
}

}  // namespace

TEST_CASE("analytic:h100 costs a convolution and a relu by the roofline, by hand", "[cost]") {
  ConvGraph c = conv_relu();
  std::unique_ptr<CostModel> model = make_cost_model("analytic:h100");
  REQUIRE(model->name() == "analytic:h100");
  // conv: 2 * (56*56 pixels) * (64 output channels, computed in a tile of 128) *
  // (64*3*3 MACs each) + one relu per output; reads x (64*56*56) and w (64*64*9),
  // writes 64*56*56, 4 bytes each.
  double conv_flops = 2.0 * 3136 * 128 * 576 + 200704;
  double conv_bytes = 4.0 * (200704 + 36864 + 200704);
  REQUIRE(conv_flops / kH100Flops > conv_bytes / kH100Bandwidth);  // compute-bound
  double conv_ms = conv_flops / kH100Flops * 1e3 + kLaunchMs;
  REQUIRE(model->node_cost_ms(c.g, c.conv) == Approx(conv_ms).epsilon(1e-12));
  REQUIRE(conv_ms == Approx(0.0119048).epsilon(1e-4));
  // relu: memory-bound, reads and writes 64*56*56 floats.
  double relu_ms = 4.0 * 2 * 200704 / kH100Bandwidth * 1e3 + kLaunchMs;
  REQUIRE(model->node_cost_ms(c.g, c.relu) == Approx(relu_ms).epsilon(1e-12));
  REQUIRE(graph_cost_ms(c.g, *model) == Approx(conv_ms + relu_ms).epsilon(1e-12));
  // The V100 computes at 15.7 TFLOP/s: the convolution's compute part scales by 67 / 15.7.
  double v100_ms = make_cost_model("analytic:v100")->node_cost_ms(c.g, c.conv);
  REQUIRE(v100_ms - kLaunchMs == Approx((conv_ms - kLaunchMs) * 67 / 15.7).epsilon(1e-9));
}

TEST_CASE("analytic convolutions compute whole tiles: tiny groups cost like wide ones", "[cost]") {
  DeviceProfile h100 = find_device_profile("h100");
  REQUIRE(h100.conv_tile_out_channels == 128);  // CUTLASS's default FP32 threadblock tile
  REQUIRE(h100.conv_tile_reduction == 8);
  // ResNeXt-50 stage 1: 128 channels at 56x56 in 32 groups of 4, merged into 16 and 1.
  const Shape x{1, 128, 56, 56}, out{1, 128, 56, 56};
  auto flops = [&](int64_t groups) {
    return conv_compute_flops(x, Shape{128, 128 / groups, 3, 3}, out, Activation::none, h100);
  };
  CHECK(flops(32) == 32 * 2 * 3136 * 128 * 40);  // 4 of 128 channels, 36 of 40 MACs
  CHECK(flops(16) == 16 * 2 * 3136 * 128 * 72);
  CHECK(flops(16) < flops(32));
  CHECK(flops(1) == flops(16));  // once the reduction fills whole tiles, merging further is free
  // Depthwise convolutions run as direct kernels, without tiles.
  CHECK(conv_compute_flops(x, Shape{128, 1, 3, 3}, out, Activation::none, h100) == 2 * 3136 * 128 * 9);
  // Without tiles in the profile, the plain FLOP count.
  DeviceProfile plain = h100;
  plain.conv_tile_out_channels = plain.conv_tile_reduction = 1;
  CHECK(conv_compute_flops(x, Shape{128, 4, 3, 3}, out, Activation::relu, plain) ==
        2 * 3136 * 128 * 36 + 128 * 3136);
}

TEST_CASE("signatures are stable text that ignores names and build order, and tells work apart", "[cost]") {
  ConvGraph a = conv_relu("w");
  REQUIRE(op_signature(a.g, a.conv) ==
          "conv2d|stride=1x1 padding=same activation=relu|1x64x56x56,64x64x3x3|row");
  REQUIRE(op_signature(a.g, a.relu) == "relu||1x64x56x56|row");
  // The same computation built in another order, with other names.
  Graph b;
  NodeId w = b.add_weight("kernel", {64, 64, 3, 3});
  NodeId x = b.add_input("image", {1, 64, 56, 56});
  NodeId cv = b.add(OpType::conv2d, {{x, 0}, {w, 0}}, conv(1, Padding::same, Activation::relu), "c1");
  b.add_output({b.add(OpType::relu, {{cv, 0}}, {}, "r1"), 0});
  REQUIRE(signatures(b) == signatures(a.g));
  // Other parameters or shapes: other signatures.
  Graph c;
  NodeId x2 = c.add_input("x", {1, 64, 56, 56});
  NodeId w2 = c.add_weight("w", {64, 64, 3, 3});
  NodeId w3 = c.add_weight("w3", {64, 32, 3, 3});
  std::set<std::string> distinct = {
      op_signature(a.g, a.conv),
      op_signature(c, c.add(OpType::conv2d, {{x2, 0}, {w2, 0}}, conv(1, Padding::same))),
      op_signature(c, c.add(OpType::conv2d, {{x2, 0}, {w2, 0}}, conv(2, Padding::same, Activation::relu))),
      op_signature(c, c.add(OpType::conv2d, {{x2, 0}, {w2, 0}}, conv(1, Padding::valid, Activation::relu))),
      op_signature(c, c.add(OpType::conv2d, {{x2, 0}, {w3, 0}}, conv(1, Padding::same, Activation::relu))),
  };
  REQUIRE(distinct.size() == 5);
}

TEST_CASE("nodes computed only from weights cost nothing; views cost nothing", "[cost]") {
  // conv(x, concat(w1, w2)) with the weights concatenated: the concat is
  // inference preprocessing, computed once at load time.
  Graph g;
  NodeId x = g.add_input("x", {1, 16, 8, 8});
  NodeId w1 = g.add_weight("w1", {16, 16, 3, 3});
  NodeId w2 = g.add_weight("w2", {16, 16, 3, 3});
  NodeId cat = g.add(OpType::concat, {{w1, 0}, {w2, 0}}, axis(0));
  NodeId cv = g.add(OpType::conv2d, {{x, 0}, {cat, 0}}, conv(1, Padding::same));
  NodeId sp = g.add(OpType::split, {{cv, 0}}, axis(1));  // batch 1: channel halves are contiguous
  NodeId flat = g.add(OpType::reshape, {{sp, 1}}, with_shape({16, 64}));
  g.add_output({sp, 0});
  g.add_output({flat, 0});
  std::vector<bool> weight_only = weight_only_nodes(g);
  REQUIRE(weight_only == std::vector<bool>{false, true, true, true, false, false, false});
  auto model = make_cost_model("analytic:h100");
  REQUIRE(model->node_cost_ms(g, cat) > 0);  // on its own it is a kernel...
  REQUIRE(model->node_cost_ms(g, sp) == 0);
  REQUIRE(model->node_cost_ms(g, flat) == 0);
  REQUIRE(graph_cost_ms(g, *model) == model->node_cost_ms(g, cv));  // ...but not in the graph
  // At batch 2 a channel split copies.
  Graph h;
  NodeId a = h.add_input("a", {2, 4, 3, 3});
  NodeId cat2 = h.add(OpType::concat, {{a, 0}, {a, 0}}, axis(1));
  NodeId sp2 = h.add(OpType::split, {{cat2, 0}}, axis(1));
  REQUIRE(model->node_cost_ms(h, sp2) > 0);
}

TEST_CASE("peak activation memory and the memory limit", "[cost]") {
  ConvGraph c = conv_relu();
  // x, then conv (x still live: 2 tensors), then relu after x is freed (2 tensors).
  REQUIRE(peak_activation_bytes(c.g) == 2 * 200704 * 4);
  TempDir dir;
  auto roomy = make_cost_model("analytic:" + profile_with_memory(dir, 2 * 200704 * 4));
  REQUIRE(std::isfinite(graph_cost_ms(c.g, *roomy)));
  auto tiny = make_cost_model("analytic:" + profile_with_memory(dir, 2 * 200704 * 4 - 1));
  REQUIRE(tiny->memory_limit_bytes() == 2 * 200704 * 4 - 1);
  REQUIRE(std::isinf(graph_cost_ms(c.g, *tiny)));
  // A real model fits the H100 easily.
  auto h100 = make_cost_model("analytic:h100");
  double resnet_ms = graph_cost_ms(build_builtin_model("resnet50"), *h100);
  REQUIRE(resnet_ms > 0.1);
  REQUIRE(resnet_ms < 10);
}

TEST_CASE("cost model specs and device profiles: one-line errors", "[cost]") {
  REQUIRE_THROWS_WITH(
      make_cost_model("roofline"),
      "unknown cost model 'roofline' (expected analytic:DEVICE, table:FILE, cpu[:THREADS][@TABLE] or gpu)");
  REQUIRE_THROWS_WITH(make_cost_model("analytic:a100"),
                      Contains("cost model analytic:a100: unknown device 'a100' (known: cpu, h100, v100"));
  REQUIRE_THROWS_WITH(make_cost_model("analytic:../h100"), Contains("unknown device '../h100'"));
  REQUIRE_THROWS_WITH(make_cost_model("table:/nonexistent/costs.h5"),
                      Contains("cannot open /nonexistent/costs.h5: No such file or directory"));
  REQUIRE_THROWS_WITH(make_cost_model("gpu"), Contains("cost model gpu: "));
  TempDir dir;
  std::string bad = dir.file("bad.json");
  std::ofstream(bad) << R"({"format": "superopt-device", "version": 1, "name": "x", "peak_flops": -1,
    "memory_bandwidth_bytes_per_s": 1e12, "launch_overhead_us": 5, "memory_bytes": 1000})";
  REQUIRE_THROWS_WITH(make_cost_model("analytic:" + bad), Contains("peak_flops: expected a positive number"));
  std::ofstream(bad) << R"({"format": "superopt-device", "version": 1, "name": "x", "peak_flops": 1e12,
    "memory_bandwidth_bytes_per_s": 1e12, "launch_overhead_us": 5, "memory_bytes": 1000, "conv_tile_reduction": 0})";
  REQUIRE_THROWS_WITH(make_cost_model("analytic:" + bad),
                      Contains("conv_tile_reduction: expected a tile size"));
}

TEST_CASE("a cost table round-trips and answers lookups, falling back to its analytic profile", "[cost]") {
  TempDir dir;
  ConvGraph c = conv_relu();
  std::string path = dir.file("costs.h5");
  CostTable written = sample_table(op_signature(c.g, c.conv));
  written.write(path);
  REQUIRE(dir.entries() == std::vector<std::string>{"costs.h5"});  // no temporary left behind
  CostTable read = CostTable::read(path);
  REQUIRE(read.info.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(read.info.cublas == "12.9.1");
  REQUIRE(read.info.analytic_profile == "v100");
  REQUIRE(read.info.device_kind == "cuda");
  REQUIRE(read.size() == 2);
  const CostEntry* conv_entry = read.lookup(op_signature(c.g, c.conv));
  REQUIRE(conv_entry);
  REQUIRE(conv_entry->cost_ms == 0.042);
  REQUIRE(conv_entry->algorithm == "IMPLICIT_PRECOMP_GEMM");
  REQUIRE(conv_entry->repeats == 200);
  REQUIRE(read.lookup("relu||1x64x56x56|row") == nullptr);

  auto model = make_cost_model("table:" + path);
  REQUIRE(model->node_cost_ms(c.g, c.conv) == 0.042);
  REQUIRE(model->fallbacks() == 0);
  double relu_v100 = make_cost_model("analytic:v100")->node_cost_ms(c.g, c.relu);
  REQUIRE(model->node_cost_ms(c.g, c.relu) == relu_v100);
  REQUIRE(model->fallbacks() == 1);
  REQUIRE(graph_cost_ms(c.g, *model) == Approx(0.042 + relu_v100));
  REQUIRE(model->fallbacks() == 2);
  REQUIRE(model->memory_limit_bytes() == 17179869184);  // the V100's 16 GiB
  // Inserting replaces; appended entries survive another round trip.
  read.insert(op_signature(c.g, c.relu), {0.003, "", 50});
  read.insert(op_signature(c.g, c.conv), {0.040, "WINOGRAD", 300});
  read.write(path);
  CostTable again = CostTable::read(path);
  REQUIRE(again.size() == 3);
  REQUIRE(again.lookup(op_signature(c.g, c.conv))->algorithm == "WINOGRAD");
}

TEST_CASE("damaged, truncated and foreign cost tables are one-line errors", "[cost]") {
  TempDir dir;
  std::string path = dir.file("costs.h5");
  sample_table("conv2d||1x1|row").write(path);
  SECTION("truncated") {
    std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
    REQUIRE_THROWS_WITH(CostTable::read(path), Contains(path + ": damaged HDF5 file"));
  }
  SECTION("a thread count with trailing text") {
    // std::stoi read "12abc" as 12.
    for (const char* threads : {"12abc", "", "-1", "99999999999"}) {
      test::FileEditor(path).set_attribute("threads", std::string(threads));
      REQUIRE_THROWS_WITH(CostTable::read(path),
                          Contains("attribute threads '" + std::string(threads) + "' is not a thread count"));
    }
  }
  SECTION("not HDF5") {
    std::ofstream(path, std::ios::trunc) << "signature,cost_ms\n";
    REQUIRE_THROWS_WITH(CostTable::read(path), path + ": not an HDF5 file (no HDF5 signature)");
  }
  SECTION("a rule database") {
    RuleDatabase db;
    db.write(path);
    REQUIRE_THROWS_WITH(
        CostTable::read(path),
        path + ": not a superopt cost table (format is 'superopt-rules', expected 'superopt-costs')");
    REQUIRE_THROWS_WITH(make_cost_model("table:" + path), Contains("cost model table:" + path + ": "));
  }
  SECTION("an unknown fallback profile") {
    CostTable t = sample_table("conv2d||1x1|row");
    t.info.analytic_profile = "tpu";
    t.write(path);
    REQUIRE_THROWS_WITH(make_cost_model("table:" + path), Contains("analytic_profile: unknown device 'tpu'"));
  }
  SECTION("costs no graph sum can hold") {
    // 1e308 per operator summed to inf and printed "speedup: -nanx" with exit 0.
    for (double cost : {1e308, 86400e3 * 2}) {
      CostTable t;
      t.insert("conv2d||1x1|row", {cost, "", 1});
      t.write(path);
      REQUIRE_THROWS_WITH(CostTable::read(path), Contains("is not a time (0 to 8.64e+07 ms, a day)"));
    }
  }
  SECTION("an unwritable path") {
    REQUIRE_THROWS_WITH(sample_table("x").write("/nonexistent/costs.h5"),
                        Contains("cannot write /nonexistent/costs.h5"));
  }
}

TEST_CASE("a CPU cost table keeps its device kind, thread count and oneDNN version", "[cost]") {
  TempDir dir;
  CostTable written;
  written.info.device_kind = "cpu";
  written.info.device = "AMD EPYC";
  written.info.threads = 2;
  written.info.onednn = "2.6.3";
  written.info.analytic_profile = "cpu";
  written.insert("relu||1x8|row", {0.001, "onednn:eltwise:jit:avx512_core", 30});
  written.write(dir.file("cpu.h5"));
  CostTable read = CostTable::read(dir.file("cpu.h5"));
  CHECK(read.info.device_kind == "cpu");
  CHECK(read.info.device == "AMD EPYC");
  CHECK(read.info.threads == 2);
  CHECK(read.info.onednn == "2.6.3");
  CHECK(make_cost_model("table:" + dir.file("cpu.h5"))->node_cost_ms(conv_relu().g, conv_relu().conv) > 0);
}

TEST_CASE("measured costs carry their spread: a difference is cheaper only beyond the noise of what differs",
          "[cost]") {
  TempDir dir;
  ConvGraph a = conv_relu();
  ConvGraph b = conv_relu();  // the same with one more relu
  NodeId extra = b.g.add(OpType::relu, {{b.relu, 0}});
  b.g.set_outputs({{extra, 0}});
  auto table_with_relu_spread = [&](double relu_spread_ms) {
    CostTable t;
    t.info.device_kind = "cpu";
    t.info.analytic_profile = "cpu";
    t.insert(op_signature(a.g, a.conv), {1.0, "", 20, 0.5});  // large, but both graphs run it
    t.insert(op_signature(a.g, a.relu), {0.1, "", 20, relu_spread_ms});
    const std::string path = dir.file("spread" + std::to_string(relu_spread_ms) + ".h5");
    t.write(path);
    return path;
  };
  const std::string narrow = table_with_relu_spread(0.02);
  REQUIRE(CostTable::read(narrow).lookup(op_signature(a.g, a.relu))->spread_ms == 0.02);  // round trip
  auto model = make_cost_model("table:" + narrow);
  REQUIRE(model->measures());
  // The convolution cancels: only the extra relu's spread is noise.
  REQUIRE(difference_spread_ms(a.g, b.g, *model) == Approx(0.02));
  REQUIRE(difference_spread_ms(a.g, a.g, *model) == 0);
  const double cost_a = graph_cost_ms(a.g, *model), cost_b = graph_cost_ms(b.g, *model);
  REQUIRE(cost_b - cost_a == Approx(0.1));
  REQUIRE(cheaper_beyond_noise(cost_a, a.g, cost_b, b.g, *model));
  REQUIRE_FALSE(cheaper_beyond_noise(cost_b, b.g, cost_a, a.g, *model));

  auto noisy = make_cost_model("table:" + table_with_relu_spread(0.2));
  REQUIRE_FALSE(cheaper_beyond_noise(cost_a, a.g, cost_b, b.g, *noisy));  // 0.1 ms within a 0.2 ms spread

  // An entry without a recorded spread (older tables) is assumed kAssumedRelativeSpread of its cost.
  auto unrecorded = make_cost_model("table:" + table_with_relu_spread(CostEntry::kSpreadNotRecorded));
  REQUIRE(difference_spread_ms(a.g, b.g, *unrecorded) == Approx(kAssumedRelativeSpread * 0.1));

  // A computed model has no noise.
  auto analytic = make_cost_model("analytic:h100");
  REQUIRE_FALSE(analytic->measures());
  REQUIRE(difference_spread_ms(a.g, b.g, *analytic) == 0);
  REQUIRE(cheaper_beyond_noise(1.0, a.g, 1.0 + 1e-12, b.g, *analytic));
}
