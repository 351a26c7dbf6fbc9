// Derivations along a fingerprint class (Quartz's ECC): the proven rules of one
// class connect its member graphs, so a rule whose two sides are already
// connected by them follows by transitivity, however long the chain, where
// find_derivation's breadth-first search over every rule stops after a few
// rewrites. The class's members are joined by their shape up to the names of
// their inputs (one key per member, `renaming_free_key`); a rule whose sides'
// keys are connected is then searched for along the class's rules only, each
// applied by the rewrite engine to the whole graph, until the source becomes
// the target exactly (same inputs, same names). The engine decides where a rule
// applies (its matcher, with every matching condition), so a chain the matcher
// refuses, or whose renaming of the inputs does not come out right, is not a
// derivation and the breadth-first search is tried instead.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "runtime/db/rule_database.h"
#include "runtime/rewrite/rule_index.h"

namespace superopt::verify {

// A hash of g's computation with every input and weight alike: equal for two
// graphs that differ only in which inputs they read (any renaming, merging
// two inputs into one included), so that a whole-graph application of a rule
// side (its variables bound to the graph's inputs) keeps the key.
uint64_t renaming_free_key(const Graph& g);

// The proven rules of every fingerprint class, in the order they were added to
// a RuleIndex (derivation order), with the index positions of their directions
// so that the same prefix cut (`first_n`) applies to both.
class ClassPaths {
 public:
  // The keys a rule's two sides are filed under (renaming_free_key).
  struct Keys {
    uint64_t source = 0;
    uint64_t target = 0;
  };
  static Keys keys(const Rule& rule) {
    return {renaming_free_key(rule.source), renaming_free_key(rule.target)};
  }

  // Files the directions of a rule of class `fingerprint` whose sides have
  // `keys`, which `index` holds from position `first` on (compile_rule's,
  // just added).
  void add(uint64_t fingerprint, Keys keys, const RuleIndex& index, int first);

  // The steps that rewrite rule.source into rule.target with the class's rules
  // among the first `first_n` of `index` (-1: all), each applied to the whole
  // graph: at most `max_steps` of them and `max_graphs` graphs reached.
  std::optional<Derivation> find(const Rule& rule, const RuleIndex& index, int max_steps, int max_graphs,
                                 int first_n = -1) const;

 private:
  // One direction of a proven rule: its position in the index, and the keys
  // of the member it rewrites and of the one it gives.
  struct Edge {
    int position;
    uint64_t from;
    uint64_t to;
  };
  bool connected(const std::vector<Edge>& edges, uint64_t from, uint64_t to, int first_n) const;

  std::unordered_map<uint64_t, std::vector<Edge>> by_class_;  // by fingerprint
};

}  // namespace superopt::verify
