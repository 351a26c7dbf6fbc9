// Medians and quantiles of timed runs, as every executor reports them.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace superopt {

// The median (the mean of the middle two for even sizes); 0 for no times.
inline double median_ms(std::vector<double> times) {
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

// The q-quantile (0..1) by nearest rank.
inline double quantile_ms(std::vector<double> times, double q) {
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  const size_t rank = static_cast<size_t>(std::ceil(q * double(times.size())));
  return times[std::clamp<size_t>(rank, 1, times.size()) - 1];
}

}  // namespace superopt
