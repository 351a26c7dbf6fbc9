// Level-by-level discovery of class representatives over MPI.
#include "enum/representatives.h"

#include <string>
#include <vector>

#include "enum/progress.h"
#include "enum/record_store.h"
#include "enum/shard_exchange.h"
#include "runtime/core/hashing.h"

namespace superopt::enumeration {
namespace {

constexpr int kPollEvery = 256;  // graphs between looks at the message queue
constexpr uint64_t kCodeHashSeed = 0x2e9;

uint64_t code_hash(const GraphCode& code) {
  std::string bytes;
  code.append_bytes(bytes);
  return hash_bytes(bytes.data(), bytes.size(), kCodeHashSeed);
}

// One level: every graph of up to `level` operators whose ancestors are
// representatives goes to its class owner under its own code; the owner's
// classes whose first member has `level` operators name a new representative.
std::vector<int64_t> level_representatives(const Opset& opset, int level, uint64_t seed,
                                           const Representatives& known, uint64_t& graphs, int rank) {
  Generator generator(opset, level, seed);
  known.install(generator);
  int depth = std::min(2, level);
  std::vector<GraphCode> units = generator.prefixes(depth);
  units.insert(units.begin(), GraphCode{});
  std::vector<int64_t> all(units.size());
  for (size_t u = 0; u < units.size(); ++u) all[u] = static_cast<int64_t>(u);
  RecordStore store(0, "", rank);
  ShardExchange exchange(all, EnumerationProgress(static_cast<int64_t>(all.size()), rank == 0),
                         [&](std::string_view records) { store.add(records); });
  std::string bytes;
  uint64_t visited = 0;
  for (int64_t u; (u = exchange.next_unit(generator.counts().graphs)) >= 0;)
    generator.run_unit(units[u], depth, [&](const GeneratedGraph& g) {
      bytes.clear();
      g.code.append_bytes(bytes);
      exchange.send(g.class_key, bytes);
      if (++visited % kPollEvery == 0) exchange.poll(generator.counts().graphs);
    });
  exchange.finish();
  graphs = generator.counts().graphs;
  std::vector<int64_t> found;
  // Code bytes start with the operator count, so the first in byte order is the representative.
  store.for_each_class([&](uint64_t, const std::vector<std::string_view>& codes) {
    if (static_cast<uint8_t>(codes[0][0]) == level)
      found.push_back(static_cast<int64_t>(hash_bytes(codes[0].data(), codes[0].size(), kCodeHashSeed)));
  });
  return found;
}

}  // namespace

Representatives::Representatives(const Opset& opset, int max_ops, uint64_t seed, const MpiWorld& world) {
  PhaseProgress progress("representatives", "", world.rank() == 0);
  for (int level = 1; level < max_ops; ++level) {
    uint64_t graphs = 0;
    std::vector<int64_t> found = level_representatives(opset, level, seed, *this, graphs, world.rank());
    for (int64_t h : world.all_gather(found)) hashes_.insert(static_cast<uint64_t>(h));
    uint64_t all_graphs = world.sum_to_root(graphs);
    graphs_ += all_graphs;
    progress.say("level " + std::to_string(level) + ": " + std::to_string(all_graphs) + " graphs, " +
                 std::to_string(hashes_.size()) + " representatives so far");
  }
}

bool Representatives::contains(const GeneratedGraph& g) const {
  return hashes_.count(code_hash(g.code)) > 0;
}

void Representatives::install(Generator& generator) const {
  generator.set_extend_filter([this](const GeneratedGraph& g) { return contains(g); });
}

}  // namespace superopt::enumeration
