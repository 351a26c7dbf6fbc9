// Timing a matmul's weight layouts. Why it is timed and not a rule: oneDNN 2.6's
// gemm:jit reads a 64-byte aligned row-major [k, n] weight in place when it can,
// and that path is up to 2x slower where rows lie a multiple of 4 KiB apart
// (64x1024 by 1024x1024 at one thread on this 2-core EPYC VM: 3.2 ms row-major,
// 1.7 ms transposed), while for a few rows (4x1024 by 1024x1024: 0.21 against
// 0.49 ms) or a long inner dimension (64x3072 by 3072x768: 4.4 against 5.3 ms)
// row-major wins. No rule of thumb fits both, so each signature times both.
#include "runtime/exec/cpu/cpu_matmul_layout.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/exec/cpu/cpu_engine.h"

namespace superopt::cpu {
namespace {

using dnnl::memory;

memory filled(const memory::desc& d) {
  memory m(d, engine());
  // 0.5: no denormals, no overflow over any inner dimension we meet.
  float* p = static_cast<float*>(m.get_data_handle());
  std::fill(p, p + d.get_size() / sizeof(float), 0.5f);
  return m;
}

}  // namespace

memory::desc transposed_desc(const memory::dims& dims) {
  const size_t r = dims.size();
  memory::dims strides(r);
  // Innermost in memory: dimension r-2 (k), then r-1 (n), then the batch dimensions.
  strides[r - 2] = 1;
  strides[r - 1] = dims[r - 2];
  memory::dim step = dims[r - 2] * dims[r - 1];
  for (size_t i = r - 2; i-- > 0;) {
    strides[i] = step;
    step *= dims[i];
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

bool worth_timing_layouts(const memory::dims& weight_dims, int64_t rows) {
  static const bool timed = [] {
    const char* env = std::getenv("SUPEROPT_WEIGHT_LAYOUT");
    if (!env || std::string_view(env) == "fastest") return true;
    if (std::string_view(env) == "onednn") return false;
    throw Error("SUPEROPT_WEIGHT_LAYOUT: '" + std::string(env) + "' is neither 'fastest' nor 'onednn'");
  }();
  if (!timed || rows < 16) return false;
  memory::dim elements = 1;
  for (memory::dim d : weight_dims) elements *= d;
  return elements >= 64 * 1024;
}

size_t fastest_matmul(std::span<const dnnl::matmul::primitive_desc> candidates) {
  struct Trial {
    dnnl::matmul primitive;
    std::unordered_map<int, memory> args;
    std::vector<double> ms;
  };
  std::vector<Trial> trials;
  for (const auto& pd : candidates) {
    Trial t{dnnl::matmul(pd), {}, {}};
    t.args = {{DNNL_ARG_SRC, filled(pd.src_desc())},
              {DNNL_ARG_WEIGHTS, filled(pd.weights_desc())},
              {DNNL_ARG_DST, filled(pd.dst_desc())}};
    if (pd.bias_desc().get_size() > 0) t.args.emplace(DNNL_ARG_BIAS, filled(pd.bias_desc()));
    t.primitive.execute(stream(), t.args);  // warm-up: caches, page faults, the jit
    trials.push_back(std::move(t));
  }
  stream().wait();
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; ++round)
    for (Trial& t : trials) {
      const auto start = std::chrono::steady_clock::now();
      t.primitive.execute(stream(), t.args);
      stream().wait();
      t.ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
  size_t best = 0;
  double best_ms = 0;
  for (size_t i = 0; i < trials.size(); ++i) {
    std::vector<double>& ms = trials[i].ms;
    std::nth_element(ms.begin(), ms.begin() + kRounds / 2, ms.end());
    if (i == 0 || ms[kRounds / 2] < best_ms) best = i, best_ms = ms[kRounds / 2];
  }
  return best;
}

}  // namespace superopt::cpu
