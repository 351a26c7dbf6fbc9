// The layout a matmul's folded right operand is packed in, chosen by timing:
// a matmul's operand transposed or not is a layout choice (TASO §5), and for a
// weight it costs nothing at run time (the reorder happens once, at plan time).
#pragma once

#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <span>

namespace superopt::cpu {

// A row-major descriptor of `dims` whose last two dimensions are stored
// transposed ([..., k, n] held as [..., n, k] in memory).
dnnl::memory::desc transposed_desc(const dnnl::memory::dims& dims);

// Whether a weight of this many elements, multiplied from the left by `rows`
// rows (the product of the other operand's dimensions but its last), is worth
// timing both layouts for. Below 64K elements oneDNN's own choice stands (the
// difference is microseconds), and below 16 rows too: a few rows read the
// weight once and row-major won at 2-8 rows alone; at one row the transposed
// weight won alone but lost inside sru's graph (layouts only 0.85x), where a
// trial on one matmul does not see the other weights in the cache.
// False for every weight when the environment says SUPEROPT_WEIGHT_LAYOUT=onednn
// (oneDNN's choice alone: the "substitutions only" bars of TASO's Figure 12,
// scripts/reproduce/layout.sh); `fastest` or unset times them. Any other value
// throws a one-line Error.
bool worth_timing_layouts(const dnnl::memory::dims& weight_dims, int64_t rows);

// The index of the fastest of `candidates`, matmuls that differ only in their
// weights' layout: each runs on scratch buffers, interleaved rounds, median.
size_t fastest_matmul(std::span<const dnnl::matmul::primitive_desc> candidates);

}  // namespace superopt::cpu
