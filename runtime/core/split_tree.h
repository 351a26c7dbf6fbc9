// TASO's split trees: the concatenation history of one tensor dimension, so that
// split can undo the most recent concat without a split-point parameter.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

namespace superopt {

// The binary concat tree of a dimension, stored as its inner split points in
// post-order (left subtree, right subtree shifted by the left size, then the
// root's point). The last point is therefore the most recent concatenation.
// At most kCapacity points are kept; beyond that the oldest (deepest-left)
// history is forgotten, and a split that would need it reports no point.
class SplitTree {
 public:
  static constexpr int kCapacity = 7;

  static SplitTree concat(const SplitTree& left, int32_t left_size, const SplitTree& right) {
    SplitTree t;
    std::array<int32_t, 2 * kCapacity + 1> all{};
    int n = 0;
    for (int i = 0; i < left.count_; ++i) all[n++] = left.points_[i];
    for (int i = 0; i < right.count_; ++i) all[n++] = right.points_[i] + left_size;
    all[n++] = left_size;
    int first = n > kCapacity ? n - kCapacity : 0;
    for (int i = first; i < n; ++i) t.points_[t.count_++] = all[i];
    return t;
  }

  bool empty() const { return count_ == 0; }
  int32_t split_point() const { return count_ ? points_[count_ - 1] : 0; }

  // Undoes the most recent concatenation; requires !empty().
  std::pair<SplitTree, SplitTree> split() const {
    SplitTree left, right;
    int32_t mid = split_point();
    for (int i = 0; i + 1 < count_; ++i) {
      if (points_[i] < mid)
        left.points_[left.count_++] = points_[i];
      else
        right.points_[right.count_++] = points_[i] - mid;
    }
    return {left, right};
  }

  int count() const { return count_; }
  int32_t point(int i) const { return points_[i]; }
  bool operator==(const SplitTree&) const = default;

 private:
  std::array<int32_t, kCapacity> points_{};
  int8_t count_ = 0;
};

}  // namespace superopt
