// An append-only, process-wide table of interned values: equal values get one
// 4-byte id, so that types held by the million (graph nodes, compiled rule
// patterns) carry the id instead of the value. Thread-safe; reading an id
// takes no lock (entries never move: they live in chunks of doubling size).
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "runtime/core/error.h"

namespace superopt {

template <typename T, typename Hash, typename Equal>
class InternTable {
 public:
  // Id 0 is `zero`, the value most holders have.
  explicit InternTable(const T& zero) { append(zero); }
  // The process-wide tables are never destroyed (graphs may be read during
  // exit); a table of a narrower scope frees its chunks.
  ~InternTable() {
    for (std::atomic<T*>& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
  }
  InternTable(const InternTable&) = delete;
  InternTable& operator=(const InternTable&) = delete;

  uint32_t intern(const T& value) {
    std::lock_guard lock(mutex_);
    auto it = ids_.find(value);
    if (it != ids_.end()) return it->second;
    return append(value);
  }

  // An id from intern(); the reference stays valid.
  const T& at(uint32_t id) const {
    auto [chunk, offset] = place(id);
    return chunks_[chunk].load(std::memory_order_acquire)[offset];
  }

  size_t size() const {
    std::lock_guard lock(mutex_);
    return size_;
  }

 private:
  static constexpr uint32_t kFirstChunk = 64;
  static constexpr int kChunks = 26;  // 64 * (2^26 - 1) ids: beyond any table here

  // Chunk c holds kFirstChunk << c entries, from id kFirstChunk * (2^c - 1).
  static std::pair<int, uint32_t> place(uint32_t id) {
    const int chunk = std::bit_width(id / kFirstChunk + 1) - 1;
    return {chunk, id - kFirstChunk * ((1u << chunk) - 1)};
  }

  uint32_t append(const T& value) {
    const auto id = static_cast<uint32_t>(size_);
    auto [chunk, offset] = place(id);
    if (chunk >= kChunks) throw Error("intern table full");
    T* items = chunks_[chunk].load(std::memory_order_relaxed);
    if (!items) {
      items = new T[size_t(kFirstChunk) << chunk]();  // freed by the destructor
      chunks_[chunk].store(items, std::memory_order_release);
    }
    items[offset] = value;
    ids_.emplace(value, id);
    ++size_;
    return id;
  }

  mutable std::mutex mutex_;
  std::array<std::atomic<T*>, kChunks> chunks_{};
  size_t size_ = 0;
  std::unordered_map<T, uint32_t, Hash, Equal> ids_;
};

}  // namespace superopt
