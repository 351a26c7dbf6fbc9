// Representatives only (Quartz's RepGen, as an option of the generator): a
// graph is extended only if it is the representative of its fingerprint
// class, the first member in canonical order (fewest operators, then code
// bytes). Representatives of graphs up to N-1 operators are found level by
// level before the N-operator run: level k enumerates graphs of up to k
// operators extending only the representatives of the levels below, and the
// owners of the classes name the new representatives, which every rank learns.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "enum/generator.h"
#include "enum/opset.h"
#include "runtime/mpi/mpi_world.h"

namespace superopt::enumeration {

// Hashes of the representatives' own codes (GraphCode bytes).
class Representatives {
 public:
  // Runs levels 1 to max_ops - 1 on every rank of `world` (collective).
  Representatives(const Opset& opset, int max_ops, uint64_t seed, const MpiWorld& world);

  // The generator's extend filter: whether a graph is a representative.
  bool contains(const GeneratedGraph& g) const;
  void install(Generator& generator) const;

  size_t size() const { return hashes_.size(); }
  uint64_t graphs() const { return graphs_; }  // graphs the levels made, all ranks (rank 0)

 private:
  std::unordered_set<uint64_t> hashes_;
  uint64_t graphs_ = 0;
};

}  // namespace superopt::enumeration
