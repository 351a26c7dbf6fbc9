// Stable 64-bit hashing (XXH3) for canonical graph hashes and fingerprints.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <string_view>

namespace superopt {

inline uint64_t hash_bytes(const void* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

// Order-dependent combination: hash_combine(a, b) != hash_combine(b, a).
inline uint64_t hash_combine(uint64_t seed, uint64_t value) {
  return XXH3_64bits_withSeed(&value, sizeof value, seed);
}

inline uint64_t hash_string(std::string_view s, uint64_t seed) {
  return hash_combine(seed, XXH3_64bits(s.data(), s.size()));
}

}  // namespace superopt
