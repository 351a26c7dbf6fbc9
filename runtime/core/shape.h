// Tensor shapes: a fixed-capacity list of dimensions, cheap to copy, hash and compare.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace superopt {

inline constexpr int kMaxRank = 6;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) push_back(d);
  }

  int rank() const { return rank_; }
  int64_t operator[](int i) const {
    assert(i >= 0 && i < rank_);
    return dims_[i];
  }
  // Both throw Error naming a dimension that does not fit (beyond 32 bits:
  // cut to 32 bits, 2^32+4 would silently read as 4) or a rank beyond kMaxRank.
  void set(int i, int64_t d) {
    assert(i >= 0 && i < rank_);
    dims_[i] = checked_dimension(d);
  }
  void push_back(int64_t d) {
    if (rank_ >= kMaxRank) throw_rank_too_large();
    dims_[rank_++] = checked_dimension(d);
  }
  // Counts from the back: back(0) is the innermost dimension.
  int64_t back(int i = 0) const { return (*this)[rank_ - 1 - i]; }

  int64_t num_elements() const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }
  bool all_positive() const {
    for (int i = 0; i < rank_; ++i)
      if (dims_[i] <= 0) return false;
    return true;
  }

  // "2x4x5x5"; a rank-0 shape prints as "scalar".
  std::string str() const {
    if (rank_ == 0) return "scalar";
    std::string s;
    for (int i = 0; i < rank_; ++i) {
      if (i) s += 'x';
      s += std::to_string(dims_[i]);
    }
    return s;
  }

  // Unused dimensions stay zero, so member-wise comparison is exact.
  bool operator==(const Shape&) const = default;

 private:
  static int32_t checked_dimension(int64_t d) {
    if (d < INT32_MIN || d > INT32_MAX) throw_dimension_out_of_range(d);
    return static_cast<int32_t>(d);
  }
  [[noreturn]] static void throw_dimension_out_of_range(int64_t d);
  [[noreturn]] void throw_rank_too_large() const;

  std::array<int32_t, kMaxRank> dims_{};
  int8_t rank_ = 0;
};

}  // namespace superopt
