// The model zoo: every builtin builds into a sound graph, the shipped files in
// data/models match the builders, and figures the papers publish (operator
// counts, parameters, FLOPs) come out right.
#include <algorithm>
#include <catch2/catch.hpp>
#include <span>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/graph_hash.h"
#include "runtime/formats/graph_json.h"
#include "runtime/models/model_zoo.h"
#include "tests/graph_count.h"

using namespace superopt;
using Catch::Contains;

namespace {

const std::string kSourceDir = SUPEROPT_SOURCE_DIR;

// The builtin names with ":K" given a block count.
std::vector<std::string> buildable_names(int blocks) {
  std::vector<std::string> names;
  for (std::string name : builtin_model_names()) {
    if (name.ends_with(":K")) name.replace(name.size() - 1, 1, std::to_string(blocks));
    names.push_back(name);
  }
  return names;
}

int64_t parameters(const Graph& g) {
  int64_t n = 0;
  for (const Node& node : g.nodes())
    if (node.op == OpType::weight) n += node.params.shape.num_elements();
  return n;
}

int64_t flops(const Graph& g) {
  int64_t total = 0;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    std::vector<const TensorDesc*> in;
    for (TensorRef t : n.inputs()) in.push_back(&g.desc(t));
    total += op_cost(n.op, n.params, in, std::span(n.output_array.data(), size_t(n.num_outputs()))).flops;
  }
  return total;
}

// Convolutions by their group count.
std::vector<int64_t> conv_group_counts(const Graph& g) {
  std::vector<int64_t> groups;
  for (const Node& n : g.nodes())
    if (n.op == OpType::conv2d) groups.push_back(conv_groups(g.shape(n.inputs()[0]), g.shape(n.inputs()[1])));
  return groups;
}

}  // namespace

TEST_CASE("every builtin model builds into an acyclic graph whose shapes infer, with no dead nodes",
          "[models]") {
  for (const std::string& name : buildable_names(2)) {
    INFO(name);
    Graph g = build_builtin_model(name);
    REQUIRE_FALSE(g.has_cycle());
    REQUIRE(g.num_operators() > 0);
    REQUIRE_FALSE(g.outputs().empty());
    Graph reinferred = g;
    REQUIRE_NOTHROW(reinferred.infer_shapes());
    REQUIRE(structurally_equal(reinferred, g));
    Graph pruned = g;
    pruned.remove_unused();
    REQUIRE(pruned.num_nodes() == g.num_nodes());  // every operator feeds an output
  }
}

TEST_CASE("the shipped data/models files equal the builders' output", "[models]") {
  for (const std::string& name : buildable_names(4)) {
    std::string file = name;
    if (auto colon = file.find(':'); colon != std::string::npos) file[colon] = '_';
    INFO(file);
    NamedGraph shipped = read_named_graph_file(kSourceDir + "/data/models/" + file + ".json");
    REQUIRE(structurally_equal(shipped.graph, build_builtin_model(name)));
    REQUIRE(shipped.name == name);
  }
}

TEST_CASE("ResNet-50 is TASO's: 52 convolutions, ResNet-50's parameters less the stem and classifier",
          "[models]") {
  Graph g = build_builtin_model("resnet50");
  // 16 bottlenecks of 3 convolutions and 4 projections.
  REQUIRE(test::count_ops(g, OpType::conv2d) == 52);
  REQUIRE(test::count_ops(g, OpType::ewadd) == 16);
  // torchvision's ResNet-50 has 25,557,032 parameters: less the classifier
  // (2,049,000), batch norms (53,120) and the stem convolution (9,408).
  REQUIRE(parameters(g) == 25557032 - 2049000 - 53120 - 9408);
  REQUIRE(g.shape(g.outputs()[0]) == Shape{1, 2048, 7, 7});
  // About 4 GMACs (4.1 with stem and classifier).
  REQUIRE(flops(g) > 7.5e9);
  REQUIRE(flops(g) < 8.2e9);
}

TEST_CASE("ResNeXt-50 has one grouped 3x3 convolution of 32 groups per block", "[models]") {
  Graph g = build_builtin_model("resnext50");
  std::vector<int64_t> groups = conv_group_counts(g);
  REQUIRE(std::count(groups.begin(), groups.end(), 32) == 16);
  REQUIRE(std::count(groups.begin(), groups.end(), 1) == int64_t(groups.size()) - 16);
  REQUIRE(g.num_operators() == 86);  // OCGGS Table 2
  REQUIRE(g.shape(g.outputs()[0]) == Shape{1, 2048, 7, 7});
  REQUIRE(flops(g) > 8.0e9);  // ResNeXt-50 32x4d: 4.2 GMACs
  REQUIRE(flops(g) < 9.0e9);
}

TEST_CASE("BERT: 6 matmuls per layer, 48 in all, and the attention feeds each layer's output", "[models]") {
  Graph g = build_builtin_model("bert");
  REQUIRE(test::count_ops(g, OpType::matmul) == 48);
  REQUIRE(test::count_ops(g, OpType::softmax) == 8);
  REQUIRE(g.shape(g.outputs()[0]) == Shape{64, 1024});
  // Per layer: Q, K, V and output 64x1024·1024x1024, and 16 heads of 64x64·64x64 twice.
  REQUIRE(flops(g) >= 8 * (4 * 2LL * 64 * 1024 * 1024 + 2 * 2LL * 16 * 64 * 64 * 64));
  NodeId output = *g.find("layer3.output");
  REQUIRE(g.node(g.node(output).inputs()[0].node).name.str() == "layer3.concat_heads");
  REQUIRE(g.num_operators() == 113 + 8);  // OCGGS Table 2, plus our softmax per layer
}

TEST_CASE("NASRNN: 8 gates of two matmuls and an ewadd, over 5 steps", "[models]") {
  Graph g = build_builtin_model("nasrnn");
  int gates = 0;
  for (const Node& n : g.nodes())
    if (n.op == OpType::ewadd && g.node(n.inputs()[0].node).op == OpType::matmul &&
        g.node(n.inputs()[1].node).op == OpType::matmul)
      ++gates;
  REQUIRE(gates == 8 * 5);
  REQUIRE(test::count_ops(g, OpType::matmul) == 2 * 8 * 5);
  REQUIRE(g.num_operators() == 230);  // OCGGS Table 2
  REQUIRE(g.shape(g.outputs()[0]) == Shape{1, 512});
}

TEST_CASE("the MetaFlow and OCGGS models have their published sizes", "[models]") {
  Graph inception = build_builtin_model("inception_v3");
  REQUIRE(inception.shape(inception.outputs()[0]) == Shape{1, 2048, 8, 8});
  REQUIRE(flops(inception) > 10.5e9);  // 5.7 GMACs
  REQUIRE(flops(inception) < 12.0e9);
  Graph squeeze = build_builtin_model("squeezenet");
  REQUIRE(squeeze.shape(squeeze.outputs()[0]) == Shape{1, 1000, 1, 1});
  REQUIRE(parameters(squeeze) == 1235496 - 3944);  // SqueezeNet 1.1 less its 3,944 biases
  REQUIRE(flops(squeeze) > 0.6e9);                 // 0.35 GMACs
  REQUIRE(flops(squeeze) < 0.8e9);
  Graph resnet34 = build_builtin_model("resnet34");
  REQUIRE(test::count_ops(resnet34, OpType::conv2d) == 1 + 32 + 3);
  REQUIRE(flops(resnet34) > 6.8e9);  // 3.6 GMACs
  REQUIRE(flops(resnet34) < 7.6e9);
  Graph resnet18 = build_builtin_model("resnet18");
  REQUIRE(test::count_ops(resnet18, OpType::conv2d) == 1 + 16 + 3);
  REQUIRE(flops(resnet18) > 3.4e9);  // 1.8 GMACs
  REQUIRE(flops(resnet18) < 3.8e9);
  // MetaFlow Table 3's CNNs, convolutional parts: torchvision's weights less biases.
  Graph alexnet = build_builtin_model("alexnet");
  REQUIRE(alexnet.shape(alexnet.outputs()[0]) == Shape{1, 256, 6, 6});
  REQUIRE(parameters(alexnet) == 2469696 - 1152);
  REQUIRE(flops(alexnet) > 1.2e9);  // 0.66 GMACs at 227x227
  REQUIRE(flops(alexnet) < 1.4e9);
  Graph vgg16 = build_builtin_model("vgg16");
  REQUIRE(vgg16.shape(vgg16.outputs()[0]) == Shape{1, 512, 7, 7});
  REQUIRE(test::count_ops(vgg16, OpType::conv2d) == 13);
  REQUIRE(parameters(vgg16) == 14714688 - 4224);
  REQUIRE(flops(vgg16) > 30e9);  // 15.4 GMACs
  REQUIRE(flops(vgg16) < 31.5e9);
  // OCGGS section 6.3: ResNet blocks of 5 operators, Inception-E blocks of 13.
  REQUIRE(build_builtin_model("resnet_blocks:6").num_operators() == 30);
  REQUIRE(build_builtin_model("inceptione_blocks:3").num_operators() == 39);
  Graph nasnet = build_builtin_model("nasnet_a");
  std::vector<int64_t> groups = conv_group_counts(nasnet);
  // 5 separable convolutions in each of 18 cells, each with a depthwise part.
  REQUIRE(std::count_if(groups.begin(), groups.end(), [](int64_t g) { return g > 1; }) == 90);
  REQUIRE(nasnet.shape(nasnet.outputs()[0]) == Shape{1, 5120, 7, 7});
  Graph sru = build_builtin_model("sru");
  REQUIRE(test::count_ops(sru, OpType::matmul) == 15);
  REQUIRE(sru.outputs().size() == 5);
}

TEST_CASE("unknown builtin names are errors that list the known ones", "[models]") {
  REQUIRE_THROWS_WITH(build_builtin_model("resnet51"), Contains("builtin model 'resnet51': no such model") &&
                                                           Contains("known: resnet50") &&
                                                           Contains("resnet_blocks:K"));
  REQUIRE_THROWS_WITH(build_builtin_model("resnet_blocks:0"), Contains("K must be a number of blocks"));
  REQUIRE_THROWS_WITH(build_builtin_model("resnet_blocks:x"), Contains("K must be a number of blocks"));
  REQUIRE_THROWS_WITH(build_builtin_model("resnet_blocks"), Contains("no such model"));
  REQUIRE_THROWS_WITH(load_model("builtin:"), Contains("builtin model '': no such model"));
}

TEST_CASE("load_model builds builtins and reads graph files", "[models]") {
  REQUIRE(structurally_equal(load_model("builtin:sru"), build_builtin_model("sru")));
  std::string file = kSourceDir + "/data/graphs/resnet_bottleneck.json";
  REQUIRE(structurally_equal(load_model(file), read_graph_file(file)));
  REQUIRE_THROWS_WITH(load_model("/nonexistent/model.json"), Contains("cannot open /nonexistent/model.json"));
}
