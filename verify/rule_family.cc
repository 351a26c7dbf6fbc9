// Independent dimensions of a rule and draws from its family (see rule_family.h).
#include "verify/rule_family.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace superopt::verify {
namespace {

// Slots are tried in pairs within groups of at most this many, in triples
// within smaller ones (the search grows as n^2 and n^3 per slot).
constexpr size_t kMaxRefinedGroup = 16, kMaxTripleGroup = 10;
// Tries per draw: full draws (every class a new size), then partial ones.
constexpr int kFullTries = 80, kPartialTries = 80;

int64_t size_at(const std::vector<Shape>& shapes, Slot s) {
  return shapes[s.variable][s.axis];
}

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

  // The classes of the slots that share one size in the rule: each slot's
  // smallest set of up to three that can take a new size on its own is a
  // class; the slots left over, which move only together, are one more.
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
    int64_t size = size_at(own_, slots[0]);
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

RuleFamily family_of(DirectedRule r) {
  RuleFamily f;
  f.own_shapes = rule_variable_shapes(r);
  std::map<int64_t, std::vector<Slot>> groups;
  for (int v = 0; v < int(f.own_shapes.size()); ++v)
    for (int axis = 0; axis < f.own_shapes[v].rank(); ++axis)
      groups[f.own_shapes[v][axis]].push_back({v, axis});
  ClassFinder finder(r, f.own_shapes);
  for (auto& [size, slots] : groups) finder.split(std::move(slots), f.classes);
  f.rule = std::move(r);
  return f;
}

// Sizes for the classes: distinct ones from 1..max (a random permutation's
// prefix), or any in 1..max.
std::vector<int64_t> draw_sizes(size_t classes, int64_t max, bool distinct, std::mt19937_64& rng) {
  std::vector<int64_t> sizes;
  if (distinct) {
    std::vector<int64_t> all(max);
    for (int64_t i = 0; i < max; ++i) all[i] = i + 1;
    std::shuffle(all.begin(), all.end(), rng);
    sizes.assign(all.begin(), all.begin() + std::min<size_t>(classes, all.size()));
  }
  std::uniform_int_distribution<int64_t> any(1, max);
  while (sizes.size() < classes) sizes.push_back(any(rng));
  return sizes;
}

}  // namespace

std::vector<RuleFamily> rule_families(const Rule& rule) {
  std::vector<RuleFamily> families;
  for (DirectedRule& d : compile_rule(rule, 0))
    if (instantiate(d, rule_variable_shapes(d))) families.push_back(family_of(std::move(d)));
  return families;
}

std::vector<RuleInstance> draw_instances(const RuleFamily& family, const DrawOptions& options) {
  const size_t k = family.classes.size();
  const int64_t max = options.max_size > 0 ? options.max_size : std::max<int64_t>(6, int64_t(k) + 1);
  std::mt19937_64 rng(options.seed);
  std::vector<RuleInstance> found;
  std::vector<std::vector<Shape>> seen{family.own_shapes};
  for (int attempt = 0; attempt < kFullTries + kPartialTries && int(found.size()) < options.count;
       ++attempt) {
    std::vector<int64_t> sizes = draw_sizes(k, max, options.distinct, rng);
    std::vector<Shape> shapes = family.own_shapes;
    // Partial draws keep a random half of the classes at the rule's sizes: a
    // class tied to another by a ratio (a group count) moves only with it.
    const bool partial = attempt >= kFullTries;
    for (size_t c = 0; c < k; ++c)
      if (!partial || rng() % 2) shapes = with_sizes(std::move(shapes), family.classes[c], sizes[c]);
    if (std::find(seen.begin(), seen.end(), shapes) != seen.end()) continue;
    seen.push_back(shapes);
    if (std::optional<RuleInstance> instance = instantiate(family.rule, shapes))
      found.push_back(std::move(*instance));
  }
  return found;
}

}  // namespace superopt::verify
