// The /rules datasets of the rule database (layout in rule_database.h), stated
// once for the writer and the reader: one vector per dataset, rule k is element
// k of each, and each dataset's name and description.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/db/rule_database.h"

namespace superopt::rule_columns {

struct Column {
  const char* name;
  const char* description;
};

inline constexpr Column kSource{"source", "source graph (superopt-graph JSON)"};
inline constexpr Column kTarget{"target", "target graph (superopt-graph JSON), same inputs as the source"};
inline constexpr Column kOutputMapping{"output_mapping", "S:T pairs: source output S is target output T"};
inline constexpr Column kFingerprint{"fingerprint", "fingerprint class both graphs fell in"};
inline constexpr Column kStatus{"status", "candidate, verified, refuted, unknown or derived"};
inline constexpr Column kProofMs{"proof_ms", "milliseconds the verifier spent"};
inline constexpr Column kNote{"note", "refuted: the counterexample; unknown: why"};
inline constexpr Column kSourceOps{"source_ops", "operators in the source graph"};
inline constexpr Column kTargetOps{"target_ops", "operators in the target graph"};
inline constexpr Column kDerivation{"derivation",
                                    "derived: the proof, steps 'S|T RULE>|< SITE' separated by ';'"};

inline constexpr Column kFamily{"family",
                                "proven: the sizes the proof holds for, classes of dimensions of one size "
                                "('any', or 'x.1=k.1;...'); empty where not stated"};

// The status enum's member names, by value.
inline constexpr std::string_view kStatusNames[kNumRuleStatuses] = {"candidate", "verified", "refuted",
                                                                    "unknown", "derived"};

struct RuleColumns {
  std::vector<std::string> source, target, output_mapping, note, derivation, family;
  std::vector<uint64_t> fingerprint;
  std::vector<RuleStatus> status;
  std::vector<double> proof_ms;
  std::vector<int32_t> source_ops, target_ops;
};

}  // namespace superopt::rule_columns
