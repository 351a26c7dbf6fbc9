// Substitution rules and the HDF5 rule database that carries them from the
// generator (enum/) to the verifier (verify/) and the optimizer (search/).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/graph.h"

namespace superopt {

enum class RuleStatus : uint8_t { candidate = 0, verified = 1, refuted = 2, unknown = 3 };
inline constexpr int kNumRuleStatuses = 4;
std::string_view rule_status_name(RuleStatus s);
std::optional<RuleStatus> rule_status_from_name(std::string_view name);

// A graph substitution. Source and target read the same named inputs,
// weights and constants; their outputs are aligned: source.outputs()[k] and
// target.outputs()[k] are the same tensor (the output mapping).
struct Rule {
  Graph source;
  Graph target;
  uint64_t fingerprint = 0;  // the fingerprint class both graphs fell in
  RuleStatus status = RuleStatus::candidate;
  double proof_ms = 0;  // time the verifier spent on it
  std::string note;     // refuted: the counterexample; unknown: why
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
//                verified, refuted, unknown), proof_ms (float64), note
//                (strings), source_ops, target_ops (int32 operator counts)
// Every dataset is 1-D and carries a "description" attribute. write() always
// writes the current version; read() accepts it and older ones.
inline constexpr std::string_view kRuleDatabaseFormat = "superopt-rules";
inline constexpr int kRuleDatabaseFormatVersion = 1;

struct RuleDatabase {
  RuleSetInfo info;
  std::vector<Rule> rules;

  // Throws Error naming the file on anything missing, corrupt or truncated.
  static RuleDatabase read(const std::string& path);
  // Atomic: writes PATH.tmp-<pid> and renames it over PATH; on failure the
  // old PATH is untouched and the temporary file removed.
  void write(const std::string& path) const;

  // The operators the rules use, on either side (inputs and weights included).
  std::set<OpType> operators_used() const;
  // The operators the generator's operator set lists (info.opset_json's
  // "operators"), or nullopt when it lists none (hand-made databases). Throws
  // Error("'OPSET' has operator 'X', unknown to this superopt") for a name
  // this superopt does not know.
  std::optional<std::set<OpType>> opset_operators() const;
};

}  // namespace superopt
