// A dense row-major tensor over any scalar type, the values the reference kernels compute on.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/shape.h"

namespace superopt {

// Element strides of a row-major shape; entries beyond the rank are zero.
using Strides = std::array<int64_t, kMaxRank>;

inline Strides row_major_strides(const Shape& s) {
  Strides st{};
  int64_t step = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    st[i] = step;
    step *= s[i];
  }
  return st;
}

// Elements are never default-constructed (z3::expr has no default), so every
// constructor takes the values or a fill value.
template <class T>
struct Tensor {
  Shape shape;
  std::vector<T> data;

  Tensor(const Shape& s, const T& fill) : shape(s), data(static_cast<size_t>(s.num_elements()), fill) {}
  Tensor(const Shape& s, std::vector<T> values) : shape(s), data(std::move(values)) {
    if (static_cast<int64_t>(data.size()) != s.num_elements())
      throw Error("tensor of shape " + s.str() + " given " + std::to_string(data.size()) + " values");
  }

  int64_t size() const { return static_cast<int64_t>(data.size()); }
  T& operator[](int64_t i) { return data[static_cast<size_t>(i)]; }
  const T& operator[](int64_t i) const { return data[static_cast<size_t>(i)]; }

  // Element at a full multi-index; for tests and cold code, not for kernels.
  T& at(std::initializer_list<int64_t> index) { return data[offset(index)]; }
  const T& at(std::initializer_list<int64_t> index) const { return data[offset(index)]; }

 private:
  size_t offset(std::initializer_list<int64_t> index) const {
    if (static_cast<int>(index.size()) != shape.rank())
      throw Error("index of rank " + std::to_string(index.size()) + " into shape " + shape.str());
    int64_t flat = 0;
    int dim = 0;
    for (int64_t i : index) {
      if (i < 0 || i >= shape[dim]) throw Error("index out of range for shape " + shape.str());
      flat = flat * shape[dim++] + i;
    }
    return static_cast<size_t>(flat);
  }
};

}  // namespace superopt
