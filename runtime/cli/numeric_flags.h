// Numeric command-line flags, all parsed here with one vocabulary: a flag takes
// exactly the numbers in its range and its error states the range, e.g.
// "--timeout-ms: expected an integer from 1 to 4294967295, got '-5'". Boost's own
// parsing would wrap "-1" into an unsigned flag and accept "inf" and "nan".
#pragma once

#include <boost/program_options.hpp>
#include <charconv>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "runtime/core/error.h"

namespace superopt::cli {

// "FLAG: expected WHAT from MIN to MAX, got 'TEXT'".
[[noreturn]] void fail_range(std::string_view flag, std::string_view what, const std::string& min,
                             const std::string& max, std::string_view text);

// A whole decimal integer in [min, max].
template <typename T>
T parse_integer(std::string_view text, std::string_view flag, T min, T max) {
  static_assert(std::is_integral_v<T>);
  T value{};
  const char* first = text.data();
  if (!text.empty() && text[0] == '+') ++first;  // from_chars takes no sign but '-'
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    fail_range(flag, "an integer", std::to_string(min), std::to_string(max), text);
  return value;
}

// A finite decimal number in [min, max] (never inf or nan).
double parse_real(std::string_view text, std::string_view flag, double min, double max);

// A flag stored into *target, through parse_integer or parse_real, when given.
// The flag's name (with its dashes) is given for the messages, which Boost's
// notifiers do not know.
template <typename T>
boost::program_options::typed_value<std::string>* number(T* target, std::string flag, T min, T max) {
  return boost::program_options::value<std::string>()->value_name("N")->notifier(
      [=](const std::string& text) {
        if constexpr (std::is_integral_v<T>)
          *target = parse_integer<T>(text, flag, min, max);
        else
          *target = static_cast<T>(parse_real(text, flag, min, max));
      });
}

// The usual ranges.
template <typename T>
boost::program_options::typed_value<std::string>* positive(T* target, std::string flag) {
  return number<T>(target, std::move(flag), T{1}, std::numeric_limits<T>::max());
}
template <typename T>
boost::program_options::typed_value<std::string>* non_negative(T* target, std::string flag) {
  return number<T>(target, std::move(flag), T{0}, std::numeric_limits<T>::max());
}
// A seed: any 64-bit value from 0 (a negative one is refused, not wrapped).
inline boost::program_options::typed_value<std::string>* seed(uint64_t* target) {
  return non_negative<uint64_t>(target, "--seed");
}

// A size in bytes: digits with an optional K, M, G or T (powers of 1024).
int64_t parse_bytes(std::string_view text, std::string_view flag);

// --max-memory BYTES|N[KMG], which sets the process's memory budget
// (runtime/core/memory_budget.h); every command that evaluates tensors takes it.
void add_memory_option(boost::program_options::options_description& options);

}  // namespace superopt::cli
