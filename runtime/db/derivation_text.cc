// Derivations as text, the database's derivation column (see rule_database.h).
#include <charconv>

#include "runtime/core/error.h"
#include "runtime/db/rule_database.h"

namespace superopt {
namespace {

// Far beyond any rule's outputs: the database read checks the real bound.
constexpr int64_t kMaxOutputIndex = int64_t(1) << 30;

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw Error("bad derivation '" + std::string(text.substr(0, 60)) + "': " + why);
}

// The integer at the front of s, which is consumed.
int64_t take_int(std::string_view& s, std::string_view whole) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) bad(whole, "expected a number");
  s.remove_prefix(end - s.data());
  return v;
}

// The output after '@' at the end of s, which is consumed; -1 without one.
int32_t take_output(std::string_view& s, std::string_view whole) {
  const size_t at = s.rfind('@');
  if (at == std::string_view::npos) return -1;
  std::string_view number = s.substr(at + 1);
  s = s.substr(0, at);
  int64_t output = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), output);
  if (ec != std::errc() || end == number.data() || end != number.data() + number.size())
    bad(whole, "expected an output index after '@'");
  if (output < 0 || output >= kMaxOutputIndex) bad(whole, "output index out of range after '@'");
  return static_cast<int32_t>(output);
}

DerivationStep step_from_text(std::string_view s, std::string_view whole) {
  DerivationStep step;
  step.output = take_output(s, whole);
  if (s.size() < 4 || (s[0] != 'S' && s[0] != 'T') || s[1] != ' ')
    bad(whole, "a step starts with 'S ' or 'T '");
  step.on_target = s[0] == 'T';
  s.remove_prefix(2);
  step.rule = take_int(s, whole);
  if (step.rule < 0) bad(whole, "negative rule index");
  if (s.empty() || (s[0] != '>' && s[0] != '<')) bad(whole, "expected '>' or '<' after the rule");
  step.reversed = s[0] == '<';
  s.remove_prefix(1);
  if (s.empty() || s[0] != ' ') bad(whole, "expected the site after the direction");
  s.remove_prefix(1);
  std::vector<int32_t>* list = &step.site;
  while (!s.empty()) {
    int64_t node = take_int(s, whole);
    if (node < -1 || node > (int64_t(1) << 30)) bad(whole, "site node out of range");
    list->push_back(static_cast<int32_t>(node));
    if (s.empty()) break;
    if (s[0] == '/' && list == &step.site) {
      list = &step.variables;
    } else if (s[0] != ',') {
      bad(whole, "expected ',' between site nodes");
    }
    s.remove_prefix(1);
  }
  if (step.site.empty()) bad(whole, "a step without a site");
  return step;
}

}  // namespace

std::string derivation_text(const Derivation& d) {
  std::string text;
  for (const DerivationStep& step : d) {
    if (!text.empty()) text += ';';
    text.append(step.on_target ? "T " : "S ")
        .append(std::to_string(step.rule))
        .append(step.reversed ? "< " : "> ");
    for (size_t i = 0; i < step.site.size(); ++i)
      text.append(i ? "," : "").append(std::to_string(step.site[i]));
    for (size_t i = 0; i < step.variables.size(); ++i)
      text.append(i ? "," : "/").append(std::to_string(step.variables[i]));
    if (step.output >= 0) text.append("@").append(std::to_string(step.output));
  }
  return text;
}

Derivation derivation_from_text(std::string_view text) {
  Derivation d;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t end = rest.find(';');
    d.push_back(step_from_text(rest.substr(0, end), text));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return d;
}

}  // namespace superopt
