// A vector of at most N elements kept inline: for the per-output lists of
// compiled rule patterns (one or two entries), where a std::vector's heap block
// cost more than its contents across the million patterns of a rule index.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>

namespace superopt {

template <typename T, int N>
class FixedVector {
 public:
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const T& operator[](size_t i) const {
    assert(i < count_);
    return items_[i];
  }
  void push_back(const T& item) {
    assert(count_ < N);
    items_[count_++] = item;
  }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + count_; }
  // Unused slots keep their default value, so member-wise comparison is exact.
  bool operator==(const FixedVector&) const = default;

 private:
  std::array<T, N> items_{};
  uint8_t count_ = 0;
};

}  // namespace superopt
