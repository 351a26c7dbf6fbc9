// The analytic cost model: a roofline per operator (FLOPs against peak
// FLOP/s, bytes against memory bandwidth) plus a kernel launch, from a
// device profile in data/devices/NAME.json.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/operator_registry.h"
#include "runtime/cost/cost_model.h"

namespace superopt {

// A device profile file (format "superopt-device", version 1); see data/devices/.
struct DeviceProfile {
  std::string name, description;
  double peak_flops = 0;                    // FP32 FLOP/s, used for every operator
  double memory_bandwidth_bytes_per_s = 0;  // device memory
  double launch_overhead_us = 0;            // per kernel
  int64_t memory_bytes = 0;                 // the device's memory: the graph's memory limit
  // A convolution runs as one implicit GEMM per group, computed in threadblock
  // tiles: its per-group output channels are rounded up to conv_tile_out_channels
  // and its per-group reduction (C/groups * kh * kw) to conv_tile_reduction
  // (optional fields; 1 means no rounding). See conv_compute_flops.
  int64_t conv_tile_out_channels = 1;
  int64_t conv_tile_reduction = 1;
};

// Reads a profile file; one-line Error naming the file and field at fault.
DeviceProfile read_device_profile(const std::string& path);

// "h100" (data/devices/h100.json) or a path ending in .json. Throws
// "unknown device 'X' (known: h100, v100)" for a name without a profile.
DeviceProfile find_device_profile(std::string_view device);

// The FLOPs a convolution's tiles compute, padding included: groups *
// 2 * output pixels * roundup(out_channels / groups, tile_out) *
// roundup(in_channels / groups * kh * kw, tile_reduction), plus the activation.
// Tile quantization, as CUTLASS's implicit-GEMM convolutions run: tiny per-group
// GEMMs (4 channels per group in ResNeXt) fill a tile poorly, which TASO's
// Figure 9 shows for grouped convolutions on a GPU. Depthwise convolutions (one
// input channel per group) run as direct kernels: plain FLOPs.
int64_t conv_compute_flops(const Shape& input, const Shape& weight, const Shape& output,
                           Activation activation, const DeviceProfile& device);

// max(flops / peak, bytes / bandwidth) + launch overhead, in milliseconds.
double roofline_ms(const OpCost& cost, const DeviceProfile& device);

class AnalyticCostModel : public CostModel {
 public:
  AnalyticCostModel(std::string name, DeviceProfile device)
      : name_(std::move(name)), device_(std::move(device)) {}
  double node_cost_ms(const Graph& g, NodeId id) override;
  std::string name() const override { return name_; }
  int64_t memory_limit_bytes() const override { return device_.memory_bytes; }
  const DeviceProfile& device() const { return device_; }

 private:
  std::string name_;
  DeviceProfile device_;
};

}  // namespace superopt
