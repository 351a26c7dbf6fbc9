// Range errors and real numbers for numeric_flags.h.
#include "runtime/cli/numeric_flags.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "runtime/core/memory_budget.h"

namespace superopt::cli {
namespace {

std::string real_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

void fail_range(std::string_view flag, std::string_view what, const std::string& min, const std::string& max,
                std::string_view text) {
  throw Error(std::string(flag) + ": expected " + std::string(what) + " from " + min + " to " + max +
              ", got '" + std::string(text) + "'");
}

double parse_real(std::string_view text, std::string_view flag, double min, double max) {
  const std::string s(text);
  char* end = nullptr;
  double value = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || value < min || value > max)
    fail_range(flag, "a number", real_text(min), real_text(max), text);
  return value;
}

int64_t parse_bytes(std::string_view text, std::string_view flag) {
  int shift = 0;
  std::string_view digits = text;
  if (!text.empty()) {
    const std::string_view suffixes = "KMGT";
    if (size_t at = suffixes.find(text.back()); at != std::string_view::npos) {
      shift = 10 * static_cast<int>(at + 1);
      digits.remove_suffix(1);
    }
  }
  const int64_t max = std::numeric_limits<int64_t>::max() >> shift;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value < 1 || value > max)
    throw Error(std::string(flag) +
                ": expected a size in bytes from 1 to 2^63-1, optionally with K, M, G or T, got '" +
                std::string(text) + "'");
  return value << shift;
}

void add_memory_option(boost::program_options::options_description& options) {
  options.add_options()(
      "max-memory",
      boost::program_options::value<std::string>()->value_name("BYTES")->notifier(
          [](const std::string& text) { set_memory_budget(parse_bytes(text, "--max-memory")); }),
      ("the most memory tensors may take, e.g. 4G: a larger graph is refused before anything is allocated "
       "(default 3/4 of this machine's memory, " +
       bytes_text(default_memory_budget_bytes()) + ")")
          .c_str());
}

}  // namespace superopt::cli
