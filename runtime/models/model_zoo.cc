// The model zoo's names and the one loader for "builtin:NAME" or a graph file.
#include "runtime/models/model_zoo.h"

#include <charconv>
#include <functional>

#include "runtime/core/error.h"
#include "runtime/formats/graph_json.h"
#include "runtime/models/models.h"

namespace superopt {
namespace {

struct Builtin {
  std::string_view name;
  std::function<Graph()> build;
};

// The plain models; the stacked-block ones take ":K" and are parsed apart.
const Builtin kModels[] = {
    {"resnet50", models::resnet50},
    {"resnext50", models::resnext50},
    {"nasnet_a", models::nasnet_a},
    {"nasrnn", models::nasrnn},
    {"bert", models::bert},
    {"inception_v3", models::inception_v3},
    {"squeezenet", models::squeezenet},
    {"resnet34", models::resnet34},
    {"sru", models::sru},
    {"alexnet", models::alexnet},
    {"vgg16", models::vgg16},
    {"resnet18", models::resnet18},
};

struct BlockFamily {
  std::string_view prefix;
  std::function<Graph(int)> build;
};
const BlockFamily kBlockFamilies[] = {
    {"resnet_blocks", models::resnet_blocks},
    {"inceptione_blocks", models::inceptione_blocks},
};
constexpr int kMaxBlocks = 64;

std::string known_names() {
  std::string s;
  for (const std::string& name : builtin_model_names()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

[[noreturn]] void unknown(std::string_view name, const std::string& why) {
  throw Error("builtin model '" + std::string(name) + "': " + why + " (known: " + known_names() + ")");
}

}  // namespace

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const Builtin& b : kModels) names.emplace_back(b.name);
  for (const BlockFamily& f : kBlockFamilies) names.push_back(std::string(f.prefix) + ":K");
  return names;
}

Graph build_builtin_model(std::string_view name) {
  for (const Builtin& b : kModels)
    if (b.name == name) return b.build();
  for (const BlockFamily& f : kBlockFamilies) {
    if (name.substr(0, f.prefix.size()) != f.prefix) continue;
    std::string_view rest = name.substr(f.prefix.size());
    if (rest.empty() || rest[0] != ':') break;
    int blocks = 0;
    auto [end, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), blocks);
    if (ec != std::errc() || end != rest.data() + rest.size() || blocks < 1 || blocks > kMaxBlocks)
      unknown(name, "K must be a number of blocks from 1 to " + std::to_string(kMaxBlocks));
    return f.build(blocks);
  }
  unknown(name, "no such model");
}

LoadedModel load_named_model(const std::string& spec, const OnnxImportOptions& options) {
  if (is_onnx_path(spec)) {
    OnnxModel m = read_onnx_file(spec, options);
    return {m.name, std::move(m.graph), std::move(m.output_names)};
  }
  if (!options.input_shapes.empty()) throw Error("--input-shape applies to ONNX models only, not to " + spec);
  constexpr std::string_view kPrefix = "builtin:";
  if (spec.starts_with(kPrefix)) {
    std::string_view name = std::string_view(spec).substr(kPrefix.size());
    return {std::string(name), build_builtin_model(name), {}};
  }
  NamedGraph g = read_named_graph_file(spec);
  return {std::move(g.name), std::move(g.graph), {}};
}

Graph load_model(const std::string& spec, const OnnxImportOptions& options) {
  return load_named_model(spec, options).graph;
}

}  // namespace superopt
