// Pairing on the owners: each rank turns the fingerprint classes it owns into
// candidate rules, prunes those with a common subgraph, and ships what rank 0
// needs (renaming keys and surviving rules) in a compact wire format.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "enum/candidates.h"
#include "enum/opset.h"
#include "enum/record_store.h"

namespace superopt::enumeration {

// What each rank keeps of the classes it owns: the renaming key of every
// candidate (to count TASO's renaming stage) and the candidates with no
// common subgraph, keyed. Pruning here, on the owners, keeps rank 0 small;
// the two prunings commute because the common-subgraph test is invariant
// under renaming. A class holds every graph equal to the others up to a
// renaming, each under the naming that makes it compute the same values
// (GeneratedGraph::aligned), so one naming of a rule may come from several
// pairs: the renaming stage removes the others.
struct OwnedRules {
  std::string keys;       // 8 bytes per candidate
  std::string survivors;  // KeyedRule wire format
  uint64_t classes = 0;
  PairingCounts counts;
};

// Pairs every class of `store`, in fingerprint order. `progress` is called
// now and then with record bytes paired so far and in all; `after_class`
// after each class (a test hook kills the run there).
OwnedRules pair_owned_classes(RecordStore& store, const Opset& opset, uint64_t seed,
                              const RecordStore::Progress& progress,
                              const std::function<void()>& after_class);

// A surviving rule with its renaming key, as rank 0 reads them.
struct KeyedRule {
  uint64_t key;
  CandidateRule rule;
};
std::vector<KeyedRule> read_rules(const std::string& wire, const Opset& opset);

}  // namespace superopt::enumeration
