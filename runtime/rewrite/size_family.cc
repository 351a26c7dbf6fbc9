// Size families of rules (see size_family.h).
#include "runtime/rewrite/size_family.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "runtime/core/error.h"
#include "runtime/rewrite/rule_instance.h"

namespace superopt {
namespace {

// Slots are tried in pairs within groups of at most this many, in triples
// within smaller ones (the search grows as n^2 and n^3 per slot).
constexpr size_t kMaxRefinedGroup = 16, kMaxTripleGroup = 10;

std::vector<Shape> with_sizes(std::vector<Shape> shapes, const std::vector<Slot>& slots, int64_t size) {
  for (Slot s : slots) shapes[s.variable].set(s.axis, size);
  return shapes;
}

class ClassFinder {
 public:
  ClassFinder(const DirectedRule& r, const std::vector<Shape>& own) : r_(r), own_(own) {
    for (const Shape& s : own)
      for (int i = 0; i < s.rank(); ++i) used_.insert(s[i]);
  }

  // The classes of the slots that share one size in the rule (see
  // independent_classes).
  void split(std::vector<Slot> group, std::vector<std::vector<Slot>>& classes) {
    for (size_t k = 0; k < group.size() && group.size() > 1;) {
      std::optional<std::vector<Slot>> found = smallest_movable(group, k);
      if (!found) {
        ++k;
        continue;
      }
      for (Slot s : *found) group.erase(std::find(group.begin(), group.end(), s));
      classes.push_back(std::move(*found));
    }
    if (!group.empty()) classes.push_back(std::move(group));
  }

 private:
  // The smallest set of the group's slots with slot k, of one, two or three,
  // that can take a new size on its own; nullopt when none can.
  std::optional<std::vector<Slot>> smallest_movable(const std::vector<Slot>& group, size_t k) {
    const size_t n = group.size();
    const Slot s = group[k];
    if (movable({s})) return std::vector<Slot>{s};
    if (n > kMaxRefinedGroup) return std::nullopt;
    for (size_t i = 0; i < n; ++i)
      if (i != k && movable({s, group[i]})) return std::vector<Slot>{s, group[i]};
    if (n > kMaxTripleGroup) return std::nullopt;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (i != k && j != k && movable({s, group[i], group[j]}))
          return std::vector<Slot>{s, group[i], group[j]};
    return std::nullopt;
  }

  // Whether the slots can take a size no dimension has, the others unchanged.
  bool movable(const std::vector<Slot>& slots) {
    int64_t size = own_[slots[0].variable][slots[0].axis];
    for (int64_t fresh : {unused_near(size, -1), unused_near(size, +1)})
      if (fresh > 0 && instantiate(r_, with_sizes(own_, slots, fresh))) return true;
    return false;
  }

  int64_t unused_near(int64_t size, int step) const {
    for (int64_t s = size + step; s > 0 && s < size + 64; s += step)
      if (!used_.count(s)) return s;
    return 0;
  }

  const DirectedRule& r_;
  const std::vector<Shape>& own_;
  std::set<int64_t> used_;
};

// Union-find over slots named by (variable name, axis).
class SlotUnion {
 public:
  void join(const std::vector<SizeSlot>& c) {
    for (size_t i = 1; i < c.size(); ++i) parent_[find(c[i])] = find(c[0]);
  }
  SizeFamily family() {
    std::map<SizeSlot, std::vector<SizeSlot>> by_root;
    for (const auto& [slot, parent] : parent_) by_root[find(slot)].push_back(slot);
    SizeFamily f;
    for (auto& [root, slots] : by_root)
      if (slots.size() > 1) f.equal.push_back(std::move(slots));  // sorted: the map's order
    std::sort(f.equal.begin(), f.equal.end());
    return f;
  }

 private:
  SizeSlot find(const SizeSlot& s) {
    auto it = parent_.try_emplace(s, s).first;
    if (it->second == s) return s;
    return it->second = find(it->second);
  }
  std::map<SizeSlot, SizeSlot> parent_;
};

}  // namespace

std::vector<std::vector<Slot>> independent_classes(const DirectedRule& r, const std::vector<Shape>& own) {
  std::map<int64_t, std::vector<Slot>> groups;
  for (int v = 0; v < int(own.size()); ++v)
    for (int axis = 0; axis < own[v].rank(); ++axis) groups[own[v][axis]].push_back({v, axis});
  std::vector<std::vector<Slot>> classes;
  ClassFinder finder(r, own);
  for (auto& [size, slots] : groups) finder.split(std::move(slots), classes);
  return classes;
}

SizeFamily merged_family(const std::vector<DirectionClasses>& directions) {
  SlotUnion slots;
  for (const DirectionClasses& d : directions)
    for (const std::vector<Slot>& c : *d.classes) {
      if (c.size() < 2) continue;
      std::vector<SizeSlot> named;
      for (Slot s : c) named.push_back({d.rule->source.variable_names[s.variable], s.axis});
      slots.join(named);
    }
  return slots.family();
}

SizeFamily size_family_of(const Rule& rule) {
  const std::vector<DirectedRule> directions = compile_rule_unconstrained(rule, 0);
  std::vector<std::vector<std::vector<Slot>>> classes;
  std::vector<DirectionClasses> found;
  classes.reserve(directions.size());  // `found` points into it
  for (const DirectedRule& d : directions) {
    const std::vector<Shape> own = rule_variable_shapes(d);
    if (!instantiate(d, own)) continue;  // not applicable even at its own shapes
    classes.push_back(independent_classes(d, own));
    found.push_back({&d, &classes.back()});
  }
  return merged_family(found);
}

void constrain(DirectedRule& d, const SizeFamily& f) {
  std::vector<std::vector<std::pair<int, int>>> equal;
  for (const std::vector<SizeSlot>& c : f.equal) {
    std::vector<std::pair<int, int>> indexed;
    for (const SizeSlot& s : c) {
      const auto& names = d.source.variable_names;
      auto it = std::find(names.begin(), names.end(), s.variable);
      if (it == names.end())
        throw Error("rule " + d.label + ": its size family names '" + s.variable +
                    "', which it does not read");
      indexed.emplace_back(int(it - names.begin()), s.axis);
    }
    equal.push_back(std::move(indexed));
  }
  d.source.equal_sizes = equal;
  d.target.equal_sizes = std::move(equal);
}

bool sizes_fit_family(const Pattern& p, const Graph& g, std::span<const TensorRef> variables) {
  for (const auto& c : p.equal_sizes) {
    int64_t size = -1;
    for (auto [v, axis] : c) {
      if (v >= int(variables.size()) || variables[v].node < 0) continue;
      const Shape& s = g.shape(variables[v]);
      if (axis >= s.rank()) return false;
      if (size < 0)
        size = s[axis];
      else if (s[axis] != size)
        return false;
    }
  }
  return true;
}

}  // namespace superopt
