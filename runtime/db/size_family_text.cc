// Size families as text, the database's family column (see rule_database.h).
#include <algorithm>
#include <charconv>

#include "runtime/core/error.h"
#include "runtime/db/rule_database.h"

namespace superopt {
namespace {

constexpr std::string_view kAny = "any";

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw Error("bad size family '" + std::string(text.substr(0, 60)) + "': " + why);
}

// Splits s at each `sep`.
std::vector<std::string_view> split_at(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

SizeSlot slot_from_text(std::string_view s, std::string_view whole) {
  const size_t dot = s.rfind('.');
  if (dot == std::string_view::npos || dot == 0)
    bad(whole, "expected NAME.AXIS, got '" + std::string(s) + "'");
  SizeSlot slot{std::string(s.substr(0, dot)), 0};
  std::string_view axis = s.substr(dot + 1);
  auto [end, ec] = std::from_chars(axis.data(), axis.data() + axis.size(), slot.axis);
  if (ec != std::errc() || end != axis.data() + axis.size() || slot.axis < 0 || slot.axis >= kMaxRank)
    bad(whole, "bad axis in '" + std::string(s) + "'");
  return slot;
}

}  // namespace

std::string size_family_text(const SizeFamily& f) {
  if (f.equal.empty()) return std::string(kAny);
  std::string text;
  for (const std::vector<SizeSlot>& c : f.equal) {
    if (!text.empty()) text += ';';
    for (size_t i = 0; i < c.size(); ++i)
      text.append(i ? "=" : "").append(c[i].variable).append(".").append(std::to_string(c[i].axis));
  }
  return text;
}

SizeFamily size_family_from_text(std::string_view text) {
  SizeFamily f;
  if (text == kAny) return f;
  for (std::string_view c : split_at(text, ';')) {
    std::vector<SizeSlot> slots;
    for (std::string_view s : split_at(c, '=')) slots.push_back(slot_from_text(s, text));
    if (slots.size() < 2) bad(text, "a class needs two or more dimensions");
    std::vector<SizeSlot> sorted = slots;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) bad(text, "a dimension repeats");
    f.equal.push_back(std::move(slots));
  }
  return f;
}

}  // namespace superopt
