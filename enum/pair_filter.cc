// PairFilter: two bit arrays indexed by a hash of the class key.
#include "enum/pair_filter.h"

#include <algorithm>

#include "enum/shard_exchange.h"
#include "runtime/core/hashing.h"

namespace superopt::enumeration {

PairFilter::PairFilter(int64_t bytes) {
  size_t words = static_cast<size_t>(std::max<int64_t>(bytes, 16) / 16);
  once_.assign(words, 0);
  twice_.assign(words, 0);
  slots_ = words * 64;
}

// Keys are fingerprints, already uniform, but the owner is key % ranks: rehash
// so that the slots a rank uses are not a residue class.
uint64_t PairFilter::slot(uint64_t key) const {
  return hash_combine(0xf17e, key) % slots_;
}

void PairFilter::add(uint64_t key) {
  uint64_t s = slot(key), bit = uint64_t{1} << (s % 64);
  if (once_[s / 64] & bit)
    twice_[s / 64] |= bit;
  else
    once_[s / 64] |= bit;
}

bool PairFilter::may_pair(uint64_t key) const {
  uint64_t s = slot(key);
  return (twice_[s / 64] >> (s % 64)) & 1;
}

uint64_t PairFilter::keep_pairable(std::string_view records, std::string& out) const {
  uint64_t dropped = 0;
  for_each_record(records, [&](const GraphRecord& r) {
    if (may_pair(r.fingerprint))
      append_record(out, r.fingerprint, r.code);
    else
      ++dropped;
  });
  return dropped;
}

}  // namespace superopt::enumeration
