// Proving rules by derivation (Ruler's and Quartz's idea of keeping only what
// the others do not imply): a rule whose two sides rewrite into one common
// graph by a short chain of proven rules that come before it is `derived`, and
// its derivation is stored (rule_database.h). The rules proven and derived from
// nothing before them are the minimal set.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"
#include "runtime/rewrite/rule_index.h"
#include "verify/class_paths.h"

namespace superopt::verify {

// `derive` (minimization) searches one rewrite deeper than verify's derivation
// first: on every 40th minimal rule of data/rules/taso-4.h5 (423, against its
// proven rules of up to 7 operators) 3 steps derive 137 where 2 derive none,
// at 41 ms a rule against 6 ms; verify keeps 2, since Z3 decides a rule in
// about 7 ms. Minimal set at 3 steps: taso-3.h5 964 -> 781, the 4-operator
// 10 % sample 5,622 -> 5,208 (verify/README.md).
inline constexpr int kMinimizeMaxSteps = 3;

struct DeriveOptions {
  int max_steps = 2;      // rewrites in a derivation, both sides together (derive: kMinimizeMaxSteps)
  int max_graphs = 256;   // graphs reached from one side before giving up
  int max_extra_ops = 2;  // operators an intermediate graph may have beyond the rule's larger side
  // Rewrites along the rule's fingerprint class (class_paths.h), tried first;
  // 0: not tried. 4 by measurement (`derive` after `verify --redecide`):
  // minimal set of data/rules/taso-3.h5 954 at 0, 952 at 2, 950 at 4, 8 and
  // 16; of the 4-operator 10 % sample 5,665, 5,663, then 5,650 from 4 on.
  int max_class_path = 4;
};

struct DeriveSummary {
  int64_t tried = 0;                // rules a derivation was looked for
  int64_t derived = 0;              // rules derived this run
  std::map<int, int64_t> by_steps;  // derived rules by derivation length
  int64_t by_class_path = 0;        // of derived: along the rule's fingerprint class
  int64_t by_parts = 0;             // of derived: part by part (rule_parts.h)
  int64_t by_outputs = 0;           // of derived: output by output (derive_by_outputs)
  int64_t invalidated = 0;          // derivations dropped first: a rule they used is no longer proven
  int passes = 0;
  double seconds = 0;
};

// Every rule's index in the order derivations follow (smallest first:
// derivation_order), the order verify decides and derive minimizes in.
std::vector<int> derivation_sequence(const std::vector<Rule>& rules);

// Rank 0's statuses and derivations of rules[k] for k in `done` reach every
// rank of `world` (null or one rank: nothing to do), so that all index the
// same proven rules.
void share_results(const MpiWorld* world, std::vector<Rule>& rules, const std::vector<int>& done);

// The proven rules a derivation may use, in derivation order: for the
// breadth-first search and by fingerprint class, with the same positions so
// that one prefix cut (`first_n`) applies to both.
struct ProvenRules {
  RuleIndex index;
  ClassPaths classes;
  // By database index: where the rule's directions start in `index` (-1: not proven).
  std::vector<int> first_position;
  // By database index: the keys its class files it under (proven rules only).
  std::vector<ClassPaths::Keys> class_keys;

  // Adds proven rule `k` of the database.
  void add(const Rule& rule, int k);
  // Adds proven rule `k`, of class `fingerprint`, already compiled: its
  // directions (compile_rule's) and class keys, taken from another index
  // (an index rebuilt without the rule's graphs).
  void add_compiled(int k, uint64_t fingerprint, std::vector<DirectedRule> directions, ClassPaths::Keys keys);
};

// The note a rule derived along its fingerprint class carries.
inline constexpr const char* kClassPathNote = "derived along its fingerprint class";

// The note a rule derived part by part carries.
inline constexpr const char* kPartsNote = "derived part by part";

// The note a rule derived output by output carries.
inline constexpr const char* kPerOutputNote = "derived output by output";

// A derivation, and how it was found: the note the derived rule carries
// (kClassPathNote, kPartsNote, kPerOutputNote; "" for the breadth-first search).
struct FoundDerivation {
  Derivation steps;
  const char* note = "";
};

// A derivation of rule from the first `first_n` rules of `proven` (-1: all):
// along its fingerprint class first (o.max_class_path), else find_derivation,
// else derive_by_parts, else derive_by_outputs.
std::optional<FoundDerivation> derive_rule(const Rule& rule, const ProvenRules& proven,
                                           const DeriveOptions& o, int first_n = -1);

// The shortest derivation of rule from the rules in `proven` (the first
// `first_n` added, if not -1) within the bounds: both sides rewritten breadth
// first until they meet in one graph.
std::optional<Derivation> find_derivation(const Rule& rule, const RuleIndex& proven, const DeriveOptions& o,
                                          int first_n = -1);

// Bounds of find_meeting: breadth-first levels from each side (the source's
// first), operators of a graph, graphs reached from one side.
struct MeetingBounds {
  int source_levels = 0;
  int target_levels = 0;
  int max_ops = 0;
  int max_graphs = 256;
};

// Steps of the rules in `rules` (all of them) that rewrite rule's two sides
// into one common graph within the bounds, fewest first.
std::optional<Derivation> find_meeting(const Rule& rule, const RuleIndex& rules, const MeetingBounds& b);

// A derivation of a rule that is a product of smaller ones (rule_parts.h):
// each part derived on its own (derive_rule, or no steps when both its sides
// are the same computation), then the whole rule searched again with only the
// rule directions the parts used, as many levels per side as their steps, so
// that every step is the engine's match on the whole graph and the proof is an
// ordinary derivation. nullopt when the rule is not a product, a part does not
// derive, or the parts' steps do not carry over to the whole graph.
std::optional<Derivation> derive_by_parts(const Rule& rule, const ProvenRules& proven, const DeriveOptions& o,
                                          int first_n = -1);

// A derivation of a rule of two or more outputs output by output: each
// output's single-output rule (runtime/rewrite/output_rule.h) derived with
// derive_rule (same rules, prefix and bounds), or no steps when its two sides
// are the same computation; the steps carry their output. nullopt when the
// rule has one output, an output does not derive, or no output needs a step.
std::optional<Derivation> derive_by_outputs(const Rule& rule, const ProvenRules& proven,
                                            const DeriveOptions& o, int first_n = -1);

// Derives every non-refuted rule it can from the proven rules before it in
// derivation order (smallest first); a verified rule that is derived leaves the
// minimal set. Rules already derived keep their derivation (after derivations
// that used a no-longer-proven rule are dropped). Whether a rule derives
// depends only on the proven rules before it, so the rules are shared out over
// the ranks of `world` (the verifier pool; null: this process alone), in
// passes until no rule that was unproven at a pass's start became derived.
// Every rank passes the same database and gets the result.
// `recorded` (if set) is called on rank 0 after each rule's result is in the
// database: derive_command saves progress there.
DeriveSummary derive_rules(RuleDatabase& db, const DeriveOptions& options, const MpiWorld* world = nullptr,
                           const std::function<void()>& recorded = {});

// `superopt derive rules.h5 [--max-steps 3] [--max-graphs 256] [--max-class-path 4] [--json]`
int derive_command(const std::vector<std::string>& args);

}  // namespace superopt::verify
