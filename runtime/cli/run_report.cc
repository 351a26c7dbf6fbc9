// What `superopt run` reports of a timed run (run_report.h).
#include "runtime/cli/run_report.h"

#include "runtime/cli/timing_report.h"

namespace superopt {
namespace {

std::string precision_text(DeviceKind kind, bool tf32) {
  return kind == DeviceKind::cuda && tf32 ? "tf32" : "fp32";
}

}  // namespace

double run_check_tolerance(DeviceKind kind, bool allow_tf32) {
  return kind == DeviceKind::cuda && allow_tf32 ? kTf32Tolerance : kFp32Tolerance;
}

bool run_check_passed(const RunReport& r, double tolerance) {
  return r.node_error <= tolerance && r.weight_error <= tolerance;
}

std::string not_judged_text(const RunReport& r) {
  constexpr size_t kNamed = 8;  // a long list would bury the rest of the report
  std::string text = std::to_string(r.nodes_not_judged);
  for (size_t i = 0; i < r.not_judged.size() && i < kNamed; ++i) text += (i ? ", " : " (") + r.not_judged[i];
  if (r.not_judged.size() > kNamed) text += " and " + std::to_string(r.not_judged.size() - kNamed) + " more";
  return r.not_judged.empty() ? text : text + ")";
}

nlohmann::ordered_json run_report_json(const std::string& model, DeviceKind kind, const ExecOptions& options,
                                       const RunReport& r, double tolerance) {
  nlohmann::ordered_json j = {
      {"model", model},         {"device_kind", device_kind_name(kind)},
      {"device", r.device},     {"precision", precision_text(kind, options.allow_tf32)},
      {"launches", r.launches}, {"reorders", r.reorders},
      {"fused", r.fused},       {"concats_in_place", r.concats_in_place},
      {"repeats", r.repeats},   {"median_ms", r.median_ms},
      {"p10_ms", r.p10_ms},     {"p90_ms", r.p90_ms}};
  if (r.checked) {
    j["check"] = {{"passed", run_check_passed(r, tolerance)},
                  {"tolerance", tolerance},
                  {"node_error", r.node_error},
                  {"worst_node", r.worst_node},
                  {"nodes_not_judged", r.nodes_not_judged},
                  {"not_judged", r.not_judged},
                  {"weight_error", r.weight_error},
                  {"worst_weight", r.worst_weight},
                  {"output_error", r.output_error},
                  {"worst_output", r.worst_output}};
  }
  if (r.op_summed) j["op_sum_ms"] = r.op_sum_ms;
  if (kind == DeviceKind::cpu) j["threads"] = r.threads;
  if (!r.thread_trial.empty()) {
    nlohmann::ordered_json trial = nlohmann::ordered_json::array();
    for (const ThreadTrial& t : r.thread_trial)
      trial.push_back({{"threads", t.threads}, {"median_ms", t.median_ms}});
    j["thread_trial"] = trial;
  }
  j["spread"] = cli::spread_json(cli::run_spread(r));
  return j;
}

}  // namespace superopt
