// What `superopt run` reports of a timed run: the check's tolerance and verdict,
// and the one JSON object of `--json`, which the Python package returns too.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/exec/executor.h"

namespace superopt {

// Worst relative error `run --check` accepts for one operator on its device
// inputs and for a folded weight: FP32 accumulation over the models' longest
// reductions; TF32 keeps only 10 mantissa bits. The end-to-end error of the
// outputs is reported, not judged: with random weights activations grow large
// and saturated softmaxes can turn FP32 rounding into large output changes.
inline constexpr double kFp32Tolerance = 1e-3;
inline constexpr double kTf32Tolerance = 2e-2;

double run_check_tolerance(DeviceKind kind, bool allow_tf32);

// Every operator and folded weight within the tolerance (a checked report).
bool run_check_passed(const RunReport& r, double tolerance);

// "N (label, label, ...)": how many operators the check did not judge (their
// values beyond float's range on random weights) and the first of them by name.
std::string not_judged_text(const RunReport& r);

// `run --json`'s object: device, precision, launches, timings, the check and
// the op sum when they ran, and the spread of the repeats.
nlohmann::ordered_json run_report_json(const std::string& model, DeviceKind kind, const ExecOptions& options,
                                       const RunReport& r, double tolerance);

}  // namespace superopt
