// Substitution rules and the HDF5 rule database that carries them from the
// generator (enum/) to the verifier (verify/) and the optimizer (search/).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

// verified: proved by Z3 from the axioms; derived: proved by a derivation from
// proven rules before it (see Derivation). Both are proven.
enum class RuleStatus : uint8_t { candidate = 0, verified = 1, refuted = 2, unknown = 3, derived = 4 };
inline constexpr int kNumRuleStatuses = 5;
inline bool is_proven(RuleStatus s) {
  return s == RuleStatus::verified || s == RuleStatus::derived;
}
std::string_view rule_status_name(RuleStatus s);
std::optional<RuleStatus> rule_status_from_name(std::string_view name);

// One step of a derivation: rule `rule` (its index in the database) applied in
// one direction to the current graph of one side, at the occurrence whose
// pattern nodes are the graph nodes `site` (in the rule pattern's node order;
// -1 for the pattern's variables) and whose variables are the tensors
// `variables` (node * kMaxOutputs + port; commutative operators match both ways,
// so the nodes alone do not say which). `output` -1: the step rewrites the
// whole rule's side; i >= 0: it rewrites that side of the single-output rule of
// output i (runtime/rewrite/output_rule.h), and sites are its node indices.
struct DerivationStep {
  int64_t rule = -1;
  bool reversed = false;   // the rule's target -> source
  bool on_target = false;  // rewrites the rule's target side (else its source side)
  std::vector<int32_t> site;
  std::vector<int32_t> variables;
  int32_t output = -1;  // -1: the whole rule; i: the single-output rule of output i
  bool operator==(const DerivationStep&) const = default;
};

// A proof of a rule by rewriting: the source-side steps rewrite the source
// and the target-side steps the target into one common graph. Every step uses
// a proven rule that comes before the derived one (smaller, or as small and
// earlier in the database), so derivations never go round in a circle.
// Either every step rewrites the whole rule, or every step rewrites one
// output's single-output rule (a proof per output: for each output i its steps
// make its two sides meet; an output whose two sides are already the same
// computation has none); a derivation mixing the two is invalid.
using Derivation = std::vector<DerivationStep>;

// Derivations as text, the database's derivation column: steps separated by
// ';', each "S" or "T" (side), the rule index with '>' (forward) or '<'
// (reversed), the site's nodes separated by ',', '/' and the variables' tensors,
// and for a step on one output's rule '@' and the output: "S 12> 4,-1,5/2,6;T
// 30< 2,3/0" (whole rule), "S 12> 4,-1/2@0;T 30< 2,3/0@1" (per output). Text
// without '@' (all of it before per-output derivations) reads as whole-rule steps.
std::string derivation_text(const Derivation& d);
// Throws Error("bad derivation ...") on anything malformed.
Derivation derivation_from_text(std::string_view text);

// A rule's family of sizes beyond what its operators ask: classes of its
// variables' dimensions that must share one size. The matcher admits a rule
// only inside its family (runtime/rewrite/size_family.h), and the verifier
// proves and checks it there. A concat's parts meet a convolution's kernel
// parts only where their sizes line up, which well-formedness alone does not
// say (it asks only that the sums agree): conv2d(concat(i2, i1), concat(k2, k1))
// = conv2d(concat(i1, i2), concat(k1, k2)) holds for "i2.1=k2.1;i1.1=k1.1".
struct SizeSlot {
  std::string variable;  // an input or weight of the rule, by name
  int axis = 0;
  auto operator<=>(const SizeSlot&) const = default;
};
struct SizeFamily {
  std::vector<std::vector<SizeSlot>> equal;  // each: two or more slots of one size
  bool operator==(const SizeFamily&) const = default;
};

// The database's family column: "any" (no constraint beyond the operators'),
// or classes separated by ';', their slots by '=': "i2.1=k2.1;i1.1=k1.1".
std::string size_family_text(const SizeFamily& f);
// Throws Error("bad size family ...") on anything malformed.
SizeFamily size_family_from_text(std::string_view text);

// Where a rule stands in the order derivations follow: operators on both sides,
// then the database index.
inline std::pair<int, int64_t> derivation_order(int operators, int64_t index) {
  return {operators, index};
}

// A graph substitution. Source and target read the same named inputs,
// weights and constants; their outputs are aligned: source.outputs()[k] and
// target.outputs()[k] are the same tensor (the output mapping).
struct Rule {
  Graph source;
  Graph target;
  uint64_t fingerprint = 0;  // the fingerprint class both graphs fell in
  RuleStatus status = RuleStatus::candidate;
  double proof_ms = 0;    // time the verifier spent on it
  std::string note;       // refuted: the counterexample; unknown: why
  Derivation derivation;  // derived: the proof
  // Proven rules: the sizes the proof holds for, stated by the verifier.
  // nullopt: not stated (undecided, or a file from before families), and a
  // proven rule's family is then worked out when it is compiled.
  std::optional<SizeFamily> family;
  // Set by RuleDatabase::release_graphs: the graphs are gone, and this is how
  // many operators they had (num_operators() still says).
  int32_t released_operators = -1;

  bool graphs_released() const { return released_operators >= 0; }
  int num_operators() const {
    return graphs_released() ? released_operators : source.num_operators() + target.num_operators();
  }
};

// What produced a database: enough to reproduce it and to refuse mixing.
struct RuleSetInfo {
  int format_version = 1;
  std::string generator_version;
  std::string opset_name;
  std::string opset_json;  // the operator set file, verbatim
  int max_ops = 0;
  uint64_t seed = 0;
  std::string arguments;  // the generating command line
  // Rule counts after each stage, in order, e.g. {"candidates", 28744}, ...
  std::vector<std::pair<std::string, int64_t>> stage_counts;
};

// The file, layout version 1 (h5dump and h5py read it; rule K is element K of
// every dataset in /rules):
//   /            attributes: format = "superopt-rules", format_version (int64),
//                description, generator_version, opset_name, opset (the
//                opset file), arguments (UTF-8 strings); max_ops (int64), seed (uint64)
//   /stages      name (strings) and count (int64): stage_counts, in order
//   /rules       source, target (strings: superopt-graph JSON), output_mapping
//                (strings "S:T,...": source output S is target output T),
//                fingerprint (uint64), status (enum over uint8: candidate,
//                verified, refuted, unknown, derived), proof_ms (float64), note
//                (strings), source_ops, target_ops (int32 operator counts),
//                derivation (strings, derivation_text; absent in older files),
//                family (strings, size_family_text, "" where not stated;
//                absent in files from before size families)
// Every dataset is 1-D and carries a "description" attribute. The string
// columns of /rules are fixed-length, NUL-padded and deflated
// (hdf5::Writer::compressed_column: the 4-operator database 541 MB -> ~35 MB);
// older files hold variable-length strings, and both read alike. write() always
// writes the current version; read() accepts it and older ones.
inline constexpr std::string_view kRuleDatabaseFormat = "superopt-rules";
inline constexpr int kRuleDatabaseFormatVersion = 1;

struct RuleDatabase {
  RuleSetInfo info;
  std::vector<Rule> rules;
  // The file read() read (empty for a database made in memory): its graph
  // columns still hold the graphs of the rules released since.
  std::string graphs_file;

  // Which rules a reader needs the graphs of, by status (a search uses only
  // its usable rules: the 4-operator database's 16,923 minimal ones of 415,786).
  using GraphsWanted = std::function<bool(RuleStatus)>;

  // Throws Error naming the file on anything missing, corrupt or truncated.
  // With `wanted`, a rule it declines is read with its graphs released (as
  // release_graphs(k) leaves it: status, fingerprint, note, derivation, family
  // and operator count are there; its graph text is not parsed or checked).
  static RuleDatabase read(const std::string& path, const GraphsWanted& wanted = {});
  // Only the file's description (its operator set, options, counts), with the
  // same checks of the file's format: which databases apply to a model is
  // known before their rules are read.
  static RuleSetInfo read_info(const std::string& path);
  // Atomic: writes PATH.tmp-<pid> and renames it over PATH; on failure the
  // old PATH is untouched and the temporary file removed. With every rule's
  // graphs released, the graph columns (source, target, output_mapping,
  // source_ops, target_ops) are copied unchanged from graphs_file, which must
  // still hold these rules (the same count and fingerprints); with some
  // released and some not, it throws.
  void write(const std::string& path) const;

  // Drops rule k's graphs and keeps the rest: a rank of a pool that only
  // records verdicts, or that is done with a rule, holds gigabytes less at 4
  // operators (a rule's graphs are about 4 KB there). Throws Error when the
  // database was not read from a file, since write() could not restore them.
  void release_graphs(size_t k);
  // Every rule's, and the freed memory goes back to the system at once (it
  // is many small blocks, which the allocator would otherwise keep).
  void release_all_graphs();

  // The operators the rules use, on either side (inputs and weights included).
  std::set<OpType> operators_used() const;
  // The operators the generator's operator set lists (info.opset_json's
  // "operators"), or nullopt when it lists none (hand-made databases). Throws
  // Error("'OPSET' has operator 'X', unknown to this superopt") for a name
  // this superopt does not know.
  std::optional<std::set<OpType>> opset_operators() const;
};

// Writes a database as RuleDatabase::write does, from `num_rules` rules that
// `rule_at(k, rule)` makes one at a time into `rule`: each rule's graphs are
// turned into their text and dropped before the next, so a writer holding
// its rules in a compact form never holds every rule's graphs (at 4
// operators, 415,786 rules as Graphs took gigabytes). `progress(k)` after each.
void write_rule_database(const std::string& path, const RuleSetInfo& info, size_t num_rules,
                         const std::function<void(size_t k, Rule& rule)>& rule_at,
                         const std::function<void(size_t rules_done)>& progress = {});

}  // namespace superopt
