// undecided_waves() (see waves.h).
#include "verify/waves.h"

namespace superopt::verify {

std::vector<Wave> undecided_waves(const std::vector<Rule>& rules, const std::vector<int>& order,
                                  int wave_rules) {
  std::vector<Wave> waves;
  Wave wave;
  int size = -1;
  int rules_in_wave = 0;  // of any status
  for (size_t p = 0; p < order.size(); ++p) {
    const Rule& r = rules[order[p]];
    if (r.num_operators() != size || (wave_rules > 0 && rules_in_wave == wave_rules)) {
      if (!wave.todo.empty()) waves.push_back(std::move(wave));
      wave = Wave{p, {}};
      size = r.num_operators();
      rules_in_wave = 0;
    }
    ++rules_in_wave;
    if (r.status == RuleStatus::candidate || r.status == RuleStatus::unknown) wave.todo.push_back(order[p]);
  }
  if (!wave.todo.empty()) waves.push_back(std::move(wave));
  return waves;
}

}  // namespace superopt::verify
