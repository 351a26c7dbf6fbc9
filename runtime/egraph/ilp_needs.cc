// The needed classes as bit sets over a topological order (see ilp_needs.h).
#include "runtime/egraph/ilp_needs.h"

#include <algorithm>
#include <cstdint>

namespace superopt::egraph {

std::vector<NeedRow> implied_needs(const IlpProblem& p) {
  const size_t k = p.classes.size();
  // Positions in a post-order from every class (children first); a grey
  // class met again is a cycle.
  std::vector<int> pos(p.index.size(), -1);
  std::vector<char> colour(p.index.size(), 0);
  std::vector<ClassId> by_pos;
  by_pos.reserve(k);
  struct Frame {
    ClassId c;
    size_t node, child;
  };
  for (ClassId start : p.classes) {
    if (colour[start]) continue;
    colour[start] = 1;
    std::vector<Frame> frames{{start, 0, 0}};
    while (!frames.empty()) {
      Frame& f = frames.back();
      const std::vector<NodeIndex>& nodes = p.nodes[size_t(p.index[f.c])];
      if (f.node == nodes.size()) {
        colour[f.c] = 2;
        pos[f.c] = int(by_pos.size());
        by_pos.push_back(f.c);
        frames.pop_back();
        continue;
      }
      const std::vector<ClassId>& ch = p.children[nodes[f.node]];
      if (f.child == ch.size()) {
        ++f.node, f.child = 0;
        continue;
      }
      const ClassId h = ch[f.child++];
      if (colour[h] == 1) return {};
      if (colour[h] == 0) colour[h] = 1, frames.push_back({h, 0, 0});
    }
  }

  const size_t words = (k + 63) / 64;
  std::vector<uint64_t> need(k * words, 0), reach(words), direct(words), cover(words);
  auto set = [&](std::vector<uint64_t>& bits, size_t base, int i) {
    bits[base + size_t(i) / 64] |= 1ull << (i % 64);
  };
  std::vector<NeedRow> rows;
  for (size_t i = 0; i < k; ++i) {  // children before parents
    const ClassId c = by_pos[i];
    uint64_t* nc = &need[i * words];
    bool first = true;
    for (NodeIndex n : p.nodes[size_t(p.index[c])]) {
      // What n needs: its children and what they need.
      std::fill(reach.begin(), reach.end(), 0);
      for (ClassId h : p.children[n]) {
        set(reach, 0, pos[h]);
        const uint64_t* nh = &need[size_t(pos[h]) * words];
        for (size_t w = 0; w < words; ++w) reach[w] |= nh[w];
      }
      std::vector<uint64_t> read(words, 0);
      for (ClassId h : p.children[n]) set(read, 0, pos[h]);
      for (size_t w = 0; w < words; ++w) {
        nc[w] = first ? reach[w] : nc[w] & reach[w];
        direct[w] = first ? read[w] : direct[w] & read[w];
      }
      first = false;
    }
    // The immediate needs: nearest first (a needed class's own needs come
    // after it in the order), each one's needs then covered.
    std::fill(cover.begin(), cover.end(), 0);
    for (size_t w = words; w-- > 0;) {
      for (uint64_t bits = nc[w]; bits;) {
        const int b = 63 - __builtin_clzll(bits);
        bits &= ~(1ull << b);
        const size_t d = w * 64 + size_t(b);
        if (cover[w] & (1ull << b)) continue;
        const uint64_t* nd = &need[d * words];
        for (size_t u = 0; u < words; ++u) cover[u] |= nd[u];
        if (!(direct[w] & (1ull << b))) rows.push_back({c, by_pos[d]});
      }
    }
  }
  return rows;
}

}  // namespace superopt::egraph
