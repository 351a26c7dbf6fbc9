// Every cost model by its spec: the offline ones of runtime/cost/ ("analytic:DEVICE",
// "table:FILE") and those measured live on a device through an executor ("cpu",
// "gpu"). It sits here, above cost/ and the executors, so that no arrow points back down.
#pragma once

#include <memory>
#include <string_view>

#include "runtime/cost/cost_model.h"

namespace superopt {

// "analytic:DEVICE" (profile data/devices/DEVICE.json, or a path to a profile
// file), "table:FILE" (an HDF5 cost table; a CPU table measured on another CPU,
// thread count or oneDNN version is reported on stderr as such), "cpu" or
// "cpu:THREADS" (measure on the fly with oneDNN; "@TABLE" after either starts
// from a CPU table measured here with that thread count), "gpu" (measure on the fly on
// CUDA device 0). Throws Error with a one-line message for an unknown model, an
// unknown device, a bad thread count or an unreadable table.
std::unique_ptr<CostModel> make_cost_model(std::string_view spec);

}  // namespace superopt
