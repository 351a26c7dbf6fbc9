// Independent dimensions of a rule and draws from its family (see rule_family.h).
#include "verify/rule_family.h"

#include <algorithm>
#include <random>

namespace superopt::verify {
namespace {

// Tries per draw: full draws (every class a new size), then partial ones.
constexpr int kFullTries = 80, kPartialTries = 80;

std::vector<Shape> with_sizes(std::vector<Shape> shapes, const std::vector<Slot>& slots, int64_t size) {
  for (Slot s : slots) shapes[s.variable].set(s.axis, size);
  return shapes;
}

RuleFamily family_of(DirectedRule r) {
  RuleFamily f;
  f.own_shapes = rule_variable_shapes(r);
  f.classes = independent_classes(r, f.own_shapes);
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

SizeFamily stated_family(const std::vector<RuleFamily>& families) {
  std::vector<DirectionClasses> directions;
  for (const RuleFamily& f : families) directions.push_back({&f.rule, &f.classes});
  return merged_family(directions);
}

std::optional<RuleInstance> generic_instance(const RuleFamily& family) {
  static constexpr int64_t kPrimes[] = {11, 13, 17, 19, 23, 29, 31,  37,  41,  43,  47,  53,  59,  61,  67,
                                        71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139};
  std::vector<Shape> shapes = family.own_shapes;
  std::optional<RuleInstance> found;
  size_t next = 0;
  for (const std::vector<Slot>& c : family.classes) {
    if (next == std::size(kPrimes)) break;
    std::vector<Shape> moved = with_sizes(shapes, c, kPrimes[next]);
    if (std::optional<RuleInstance> instance = instantiate(family.rule, moved)) {
      shapes = std::move(moved);
      found = std::move(instance);
      ++next;
    }
  }
  return found;
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
