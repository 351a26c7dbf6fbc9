// Medians, quantiles and the spread of timed runs, as every executor reports
// them: a time is only worth comparing with its spread beside it.
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

// A relative spread (IQR / median) above this says the machine was busy while
// timing (other processes, an OpenMP barrier waiting a scheduler slice): the
// times are not worth comparing closely. Quiet runs of our models stay under 3%.
inline constexpr double kLargeRelativeSpread = 0.10;

// How timed runs spread: quartiles, extremes and the interquartile range.
struct TimingSpread {
  int count = 0;
  double median_ms = 0, p25_ms = 0, p75_ms = 0, min_ms = 0, max_ms = 0;
  double iqr_ms() const { return p75_ms - p25_ms; }
  // IQR / median; 0 without times.
  double relative() const { return median_ms > 0 ? iqr_ms() / median_ms : 0; }
  bool large() const { return relative() > kLargeRelativeSpread; }
};

inline TimingSpread timing_spread(const std::vector<double>& times) {
  TimingSpread s;
  if (times.empty()) return s;
  s.count = int(times.size());
  s.median_ms = median_ms(times);
  s.p25_ms = quantile_ms(times, 0.25);
  s.p75_ms = quantile_ms(times, 0.75);
  s.min_ms = *std::min_element(times.begin(), times.end());
  s.max_ms = *std::max_element(times.begin(), times.end());
  return s;
}

}  // namespace superopt
