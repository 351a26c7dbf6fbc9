// Short constructors of operator parameters, shared by the unit tests.
#pragma once

#include "runtime/core/operator_registry.h"

namespace superopt::test {

inline OpParams conv(int stride, Padding pad, Activation act = Activation::none) {
  OpParams p;
  p.stride_h = p.stride_w = stride;
  p.padding = pad;
  p.activation = act;
  return p;
}
inline OpParams pool_window(int kh, int kw, int stride, Padding pad) {
  OpParams p = conv(stride, pad);
  p.kernel_h = kh;
  p.kernel_w = kw;
  return p;
}
inline OpParams pool(int k, int stride, Padding pad) {
  return pool_window(k, k, stride, pad);
}
inline OpParams axis(int a) {
  OpParams p;
  p.axis = a;
  return p;
}
inline OpParams merge(int groups, int into) {
  OpParams p;
  p.groups = groups;
  p.into = into;
  return p;
}
inline OpParams with_shape(Shape s) {
  OpParams p;
  p.shape = s;
  return p;
}

}  // namespace superopt::test
