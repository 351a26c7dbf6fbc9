// The first pass of a two-pass generation (--two-pass): owners count the
// class keys they receive in a compact filter, so that the second pass keeps
// only records whose class may have two members. A key hashes to one slot of
// two bit arrays (seen once, seen twice); a lone key sharing a slot with
// another passes anyway (a false positive costs pairing work, never a rule),
// a key seen twice always passes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace superopt::enumeration {

class PairFilter {
 public:
  explicit PairFilter(int64_t bytes);  // the two bit arrays together, at least 16 bytes

  void add(uint64_t key);
  bool may_pair(uint64_t key) const;
  // Appends to `out` the records (GraphRecord layout) whose key may pair;
  // returns how many it dropped.
  uint64_t keep_pairable(std::string_view records, std::string& out) const;

 private:
  uint64_t slot(uint64_t key) const;
  std::vector<uint64_t> once_, twice_;
  uint64_t slots_;
};

}  // namespace superopt::enumeration
