// Device profiles and the roofline cost of one operator.
#include "runtime/cost/analytic_cost.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/core/data_dir.h"
#include "runtime/core/error.h"
#include "runtime/core/graph_analysis.h"
#include "runtime/formats/json_text.h"

namespace superopt {
namespace {

using json::Json;

double positive_number(const Json& obj, std::string_view field, const json::Where& w) {
  const Json& v = json::need_field(obj, field, w);
  if (!v.is_number() || !(v.get<double>() > 0)) w.fail(field, "expected a positive number" + json::got(v));
  return v.get<double>();
}

std::string devices_dir() {
  return data_path("devices");
}

std::string known_devices() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(devices_dir(), ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none in " + devices_dir() : s;
}

}  // namespace

DeviceProfile read_device_profile(const std::string& path) {
  Json j = json::parse_json(json::read_text_file(path), path);
  json::Where w{path, ""};
  if (!j.is_object()) w.fail("", "expected a JSON object at the top level");
  json::check_fields(
      j,
      {"format", "version", "name", "description", "peak_flops", "memory_bandwidth_bytes_per_s",
       "launch_overhead_us", "memory_bytes", "conv_tile_out_channels", "conv_tile_reduction"},
      w);
  if (json::need_string(json::need_field(j, "format", w), "format", w) != "superopt-device")
    w.fail("format", "expected \"superopt-device\"");
  const Json& version = json::need_field(j, "version", w);
  if (json::as_int(version) != 1)
    w.fail("version", "this superopt reads version 1 only" + json::got(version));
  DeviceProfile d;
  d.name = json::need_string(json::need_field(j, "name", w), "name", w);
  if (const Json* desc = json::find_field(j, "description"))
    d.description = json::need_string(*desc, "description", w);
  d.peak_flops = positive_number(j, "peak_flops", w);
  d.memory_bandwidth_bytes_per_s = positive_number(j, "memory_bandwidth_bytes_per_s", w);
  const Json& launch = json::need_field(j, "launch_overhead_us", w);
  if (!launch.is_number() || launch.get<double>() < 0)
    w.fail("launch_overhead_us", "expected a number of microseconds, 0 or more" + json::got(launch));
  d.launch_overhead_us = launch.get<double>();
  const Json& memory = json::need_field(j, "memory_bytes", w);
  std::optional<int64_t> bytes = json::as_int(memory);
  if (!bytes || *bytes <= 0) w.fail("memory_bytes", "expected a positive integer" + json::got(memory));
  d.memory_bytes = *bytes;
  for (auto [field, tile] : {std::pair{"conv_tile_out_channels", &d.conv_tile_out_channels},
                             std::pair{"conv_tile_reduction", &d.conv_tile_reduction}}) {
    const Json* v = json::find_field(j, field);
    if (!v) continue;
    std::optional<int64_t> n = json::as_int(*v);
    if (!n || *n <= 0 || *n > 4096) w.fail(field, "expected a tile size from 1 to 4096" + json::got(*v));
    *tile = *n;
  }
  return d;
}

DeviceProfile find_device_profile(std::string_view device) {
  std::string name(device);
  if (name.ends_with(".json")) return read_device_profile(name);
  bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  std::string path = devices_dir() + "/" + name + ".json";
  if (!plain || !std::filesystem::exists(path))
    throw Error("unknown device '" + name + "' (known: " + known_devices() +
                "; or give a profile FILE.json)");
  return read_device_profile(path);
}

int64_t conv_compute_flops(const Shape& input, const Shape& weight, const Shape& output,
                           Activation activation, const DeviceProfile& device) {
  auto round_up = [](int64_t n, int64_t tile) { return (n + tile - 1) / tile * tile; };
  const int64_t groups = conv_groups(input, weight);
  // Depthwise convolutions run as direct kernels (cuDNN's and CUTLASS's depthwise
  // kernels), not as per-group GEMMs: no tiles.
  const bool depthwise = weight[1] == 1 && groups == input[1] && groups > 1;
  const int64_t tile_out = depthwise ? 1 : device.conv_tile_out_channels;
  const int64_t tile_reduction = depthwise ? 1 : device.conv_tile_reduction;
  const int64_t pixels = output[0] * output[2] * output[3];
  const int64_t out_per_group = round_up(weight[0] / groups, tile_out);
  const int64_t reduction = round_up(weight[1] * weight[2] * weight[3], tile_reduction);
  return groups * 2 * pixels * out_per_group * reduction +
         (activation != Activation::none ? output.num_elements() : 0);
}

double roofline_ms(const OpCost& cost, const DeviceProfile& device) {
  double compute_s = double(cost.flops) / device.peak_flops;
  double memory_s = double(cost.bytes_read + cost.bytes_written) / device.memory_bandwidth_bytes_per_s;
  return std::max(compute_s, memory_s) * 1e3 + device.launch_overhead_us * 1e-3;
}

double AnalyticCostModel::node_cost_ms(const Graph& g, NodeId id) {
  if (runs_no_kernel(g, id)) return 0;
  const Node& n = g.node(id);
  std::vector<const TensorDesc*> in;
  for (TensorRef t : n.inputs()) in.push_back(&g.desc(t));
  OpCost cost = op_cost(n.op, n.params, in, std::span(n.output_array.data(), size_t(n.num_outputs())));
  if (n.op == OpType::conv2d)
    cost.flops =
        conv_compute_flops(in[0]->shape, in[1]->shape, n.output(0).shape, n.params.activation, device_);
  return roofline_ms(cost, device_);
}

}  // namespace superopt
