// How `run` and `measure` report the spread of their repeats (issue 34): a time
// is printed with its interquartile range, extremes and relative spread, and a
// spread above kLargeRelativeSpread is warned about (a loaded machine, an
// OpenMP barrier waiting a scheduler slice): such times are not worth
// comparing closely.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/exec/executor.h"
#include "runtime/exec/timing_stats.h"

namespace superopt::cli {

inline TimingSpread run_spread(const RunReport& r) {
  TimingSpread s;
  s.count = r.repeats;
  s.median_ms = r.median_ms;
  s.p25_ms = r.p25_ms;
  s.p75_ms = r.p75_ms;
  s.min_ms = r.min_ms;
  s.max_ms = r.max_ms;
  return s;
}

inline nlohmann::ordered_json spread_json(const TimingSpread& s) {
  return {{"p25_ms", s.p25_ms},       {"p75_ms", s.p75_ms},   {"min_ms", s.min_ms},
          {"max_ms", s.max_ms},       {"iqr_ms", s.iqr_ms()}, {"relative_spread", s.relative()},
          {"spread_large", s.large()}};
}

inline std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

// "IQR 0.12 ms (p25 1.02, p75 1.14), min 0.98, max 1.60 ms, relative spread 11.0%"
inline std::string spread_text(const TimingSpread& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "IQR %.4g ms (p25 %.4g, p75 %.4g), min %.4g, max %.4g ms, relative spread %s", s.iqr_ms(),
                s.p25_ms, s.p75_ms, s.min_ms, s.max_ms, percent_text(s.relative()).c_str());
  return buf;
}

// One line for stderr when the spread is large, else "".
inline std::string spread_warning(const TimingSpread& s, const std::string& what) {
  if (!s.large()) return "";
  return "warning: " + what + ": the repeats spread by " + percent_text(s.relative()) +
         " of the median (IQR / median above " + percent_text(kLargeRelativeSpread) +
         "): the machine is busy or the threads wait on each other; compare these times with care "
         "(fewer --threads, a quieter machine, more --repeat)\n";
}

}  // namespace superopt::cli
