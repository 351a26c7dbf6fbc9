// first_broken_step(): re-checking a search's applications one at a time.
#include "search/step_check.h"

#include "search/numerical_check.h"

namespace superopt::search {

std::optional<BrokenStep> first_broken_step(const std::vector<Trace>& traces, uint64_t seed,
                                            int64_t flops_limit, Clock::time_point deadline) {
  for (const Trace& trace : traces) {
    const Graph* before = trace.start.get();
    for (const Step& step : trace.steps) {
      NumericalCheck check = numerical_check(*before, *step.after, seed, flops_limit, deadline);
      if (check.cut_short) return std::nullopt;
      if (!check.passed && !check.inconclusive) return BrokenStep{step.rule, check};
      before = step.after.get();
    }
  }
  return std::nullopt;
}

}  // namespace superopt::search
