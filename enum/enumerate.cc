// The distributed generation pipeline: enumerate work units, shard records by
// fingerprint, pair classes on their owners, prune and write on rank 0.
#include "enum/enumerate.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unordered_set>

#include "enum/candidates.h"
#include "enum/checkpoint.h"
#include "enum/generator.h"
#include "enum/opset.h"
#include "enum/pruning.h"
#include "enum/renaming.h"
#include "enum/shard_exchange.h"
#include "runtime/core/error.h"
#include "runtime/core/hashing.h"
#include "runtime/db/rule_database.h"
#include "runtime/mpi/mpi_world.h"

namespace superopt::enumeration {
namespace {

constexpr const char* kGeneratorVersion = "superopt-enum 2";  // 2: classes up to renaming
constexpr int kPollEvery = 256;                               // graphs between looks at the message queue

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// Every rank checks the same things, so every rank fails alike.
void check_output(const EnumerateOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(o.out_path, ec) && !o.force) throw Error(o.out_path + " exists (use --force to replace it)");
  fs::path dir = fs::path(o.out_path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw Error("cannot write " + o.out_path + ": no directory " + dir.string());
  if (access(dir.c_str(), W_OK) != 0) throw Error("cannot write " + o.out_path + ": " + std::strerror(errno));
}

// Prints to stderr at most once a second (rank 0).
class ProgressLine {
 public:
  ProgressLine(int64_t units, Clock::time_point start) : units_(units), start_(start), last_(start) {}
  void operator()(uint64_t graphs, int64_t units_given) {
    Clock::time_point now = Clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    double elapsed = seconds_since(start_);
    double left = units_given > 0 ? elapsed * double(units_ - units_given) / double(units_given) : 0;
    std::fprintf(stderr, "enumerate: %llu graphs, %.0f graphs/s, %lld/%lld work units, about %.0f s left\n",
                 static_cast<unsigned long long>(graphs), graphs / std::max(elapsed, 1e-9),
                 static_cast<long long>(units_given), static_cast<long long>(units_), left);
  }

 private:
  int64_t units_;
  Clock::time_point start_, last_;
};

std::vector<GraphRecord> sorted_records(const std::string& store) {
  std::vector<GraphRecord> records;
  for_each_record(store, [&](const GraphRecord& r) { records.push_back(r); });
  // Code bytes start with the operator count, so byte order is code_less.
  std::sort(records.begin(), records.end(), [](const GraphRecord& a, const GraphRecord& b) {
    return a.fingerprint != b.fingerprint ? a.fingerprint < b.fingerprint : a.code < b.code;
  });
  return records;
}

GraphCode decode(std::string_view bytes, const Opset& opset) {
  return GraphCode::from_bytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, opset);
}

// --- surviving rules on the wire: renaming key, fp, source, target, outputs.
struct KeyedRule {
  uint64_t key;
  CandidateRule rule;
};

void append_u64(std::string& out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}

void append_rule(std::string& out, uint64_t key, const CandidateRule& r) {
  append_u64(out, key);
  append_u64(out, r.fingerprint);
  for (const GraphCode* c : {&r.source, &r.target}) {
    std::string bytes;
    c->append_bytes(bytes);
    out.push_back(static_cast<char>(bytes.size()));
    out += bytes;
  }
  out.push_back(static_cast<char>(r.source_outputs.size()));
  for (int t : r.source_outputs) out.push_back(static_cast<char>(t));
  for (int t : r.target_outputs) out.push_back(static_cast<char>(t));
}

std::vector<KeyedRule> read_rules(const std::string& in, const Opset& opset) {
  std::vector<KeyedRule> rules;
  auto byte = [&](size_t at) { return static_cast<uint8_t>(in[at]); };
  for (size_t at = 0; at < in.size();) {
    KeyedRule k;
    CandidateRule& r = k.rule;
    std::memcpy(&k.key, in.data() + at, 8);
    std::memcpy(&r.fingerprint, in.data() + at + 8, 8);
    at += 16;
    for (GraphCode* c : {&r.source, &r.target}) {
      size_t len = byte(at++);
      *c = decode(std::string_view(in).substr(at, len), opset);
      at += len;
    }
    size_t outputs = byte(at++);
    for (size_t n = 0; n < outputs; ++n) r.source_outputs.push_back(byte(at++));
    for (size_t n = 0; n < outputs; ++n) r.target_outputs.push_back(byte(at++));
    rules.push_back(std::move(k));
  }
  return rules;
}

// What identifies a run for its checkpoints: the same opset, limits and seed.
std::string run_description(const Opset& opset, const EnumerateOptions& o) {
  return "opset " + opset.name + ", max-ops " + std::to_string(o.max_ops) + ", seed " +
         std::to_string(o.seed);
}
uint64_t run_key(const Opset& opset, const EnumerateOptions& o) {
  uint64_t h = hash_string(opset.text, 0x7a5c);
  h = hash_combine(hash_combine(h, static_cast<uint64_t>(o.max_ops)), o.seed);
  return hash_string(kGeneratorVersion, h);
}

// The work units no earlier attempt finished (the same list on every rank).
std::vector<int64_t> units_to_do(size_t count, const CheckpointLog* log, const MpiWorld& world) {
  std::vector<char> done(count, 0);
  if (log)
    for (int64_t u : world.all_gather(log->done_units()))
      if (u >= 0 && u < static_cast<int64_t>(count)) done[u] = 1;
  std::vector<int64_t> todo;
  for (size_t u = 0; u < count; ++u)
    if (!done[u]) todo.push_back(static_cast<int64_t>(u));
  return todo;
}

// A test hook: SUPEROPT_TEST_EXIT_AFTER_UNITS=N makes rank 0 die abruptly
// after logging N units, as a killed job would.
int64_t exit_after_units() {
  const char* v = std::getenv("SUPEROPT_TEST_EXIT_AFTER_UNITS");
  return v ? std::atoll(v) : -1;
}

// A unit's checkpoint entry: its graph count (8 bytes), then its records; a
// graph may send more than one record (GeneratedGraph::aligned).
std::string checkpoint_entry(uint64_t graphs, const std::string& records) {
  std::string entry;
  append_u64(entry, graphs);
  return entry + records;
}

// Runs the work units this rank is given, sending each graph's aligned codes
// to the owner of its class key and logging each finished unit.
void generate(Generator& generator, const std::vector<GraphCode>& units, int depth, ShardExchange& exchange,
              CheckpointLog* log, int64_t exit_after) {
  std::string bytes, unit_records;
  uint64_t visited = 0;
  int64_t logged = 0;
  for (int64_t u; (u = exchange.next_unit(generator.counts().graphs)) >= 0;) {
    unit_records.clear();
    uint64_t graphs_before = generator.counts().graphs;
    generator.run_unit(units[u], depth, [&](const GeneratedGraph& g) {
      for (const GraphCode& aligned : g.aligned) {
        bytes.clear();
        aligned.append_bytes(bytes);
        exchange.send(g.class_key, bytes);
        if (log) append_record(unit_records, g.class_key, bytes);
      }
      if (++visited % kPollEvery == 0) exchange.poll();
    });
    if (log) log->append(u, checkpoint_entry(generator.counts().graphs - graphs_before, unit_records));
    if (++logged == exit_after) std::_Exit(137);
  }
  exchange.finish();
}

bool rule_less(const CandidateRule& a, const CandidateRule& b) {
  if (a.fingerprint != b.fingerprint) return a.fingerprint < b.fingerprint;
  if (!(a.target == b.target)) return code_less(a.target, b.target);
  return code_less(a.source, b.source);
}

RuleDatabase to_database(const std::vector<CandidateRule>& rules, const Opset& opset,
                         const EnumerateOptions& o, const EnumerateSummary& summary) {
  RuleDatabase db;
  db.info.generator_version = kGeneratorVersion;
  db.info.opset_name = opset.name;
  db.info.opset_json = opset.text;
  db.info.max_ops = o.max_ops;
  db.info.seed = o.seed;
  db.info.arguments = o.arguments;
  db.info.stage_counts = summary.stages;
  for (const CandidateRule& r : rules) {
    Rule rule;
    rule.source = code_to_graph(r.source, opset, &r.source_outputs);
    rule.target = code_to_graph(r.target, opset, &r.target_outputs);
    rule.fingerprint = r.fingerprint;
    db.rules.push_back(std::move(rule));
  }
  return db;
}

// What each rank keeps of the classes it owns: the renaming key of every
// candidate (to count TASO's renaming stage) and the candidates with no
// common subgraph, keyed. Pruning here, on the owners, keeps rank 0 small;
// the two prunings commute because the common-subgraph test is invariant
// under renaming. A class holds every graph equal to the others up to a
// renaming, each under the naming that makes it compute the same values
// (GeneratedGraph::aligned), so one naming of a rule may come from several
// pairs: the renaming stage removes the others.
struct OwnedRules {
  std::string keys;       // 8 bytes per candidate
  std::string survivors;  // KeyedRule wire format
  uint64_t classes = 0;
  PairingCounts counts;
};

OwnedRules pair_owned_classes(const std::string& store, const Opset& opset, uint64_t seed) {
  OwnedRules owned;
  CandidatePairing pairing(opset, seed);
  std::vector<GraphRecord> records = sorted_records(store);
  std::vector<CandidateRule> found;
  for (size_t i = 0; i < records.size();) {
    size_t j = i;
    std::vector<GraphCode> members;
    std::unordered_set<uint64_t> structures;
    for (; j < records.size() && records[j].fingerprint == records[i].fingerprint; ++j) {
      // Two canonical graphs that are renamings of one graph align to it twice.
      GraphCode code = decode(records[j].code, opset);
      uint64_t structure = structure_hash(code, opset);
      if (!structures.insert(structure).second) continue;
      members.push_back(std::move(code));
    }
    ++owned.classes;
    found.clear();
    pairing.pair(records[i].fingerprint, members, found);
    for (CandidateRule& r : found) {
      name_canonically(r, opset);
      uint64_t key = renaming_key(r, opset);
      append_u64(owned.keys, key);
      TensorEquality equal = [&](int source_tensor, int target_tensor) {
        return pairing.same_tensor(r.source, source_tensor, r.target, target_tensor);
      };
      if (!has_common_subgraph(r, opset, equal)) append_rule(owned.survivors, key, r);
    }
    i = j;
  }
  owned.counts = pairing.counts();
  return owned;
}

// Rank 0: counts the stages, keeps the first rule of each renaming key in
// canonical order, and writes the database.
void write_rules(const OwnedRules& all, const Opset& opset, const EnumerateOptions& o, EnumerateSummary& s) {
  std::vector<uint64_t> keys(all.keys.size() / 8);
  std::memcpy(keys.data(), all.keys.data(), all.keys.size());
  std::sort(keys.begin(), keys.end());
  int64_t distinct = std::unique(keys.begin(), keys.end()) - keys.begin();
  std::vector<KeyedRule> kept = read_rules(all.survivors, opset);
  std::sort(kept.begin(), kept.end(),
            [](const KeyedRule& a, const KeyedRule& b) { return rule_less(a.rule, b.rule); });
  std::vector<CandidateRule> rules;
  std::unordered_set<uint64_t> seen;
  for (KeyedRule& k : kept)
    if (seen.insert(k.key).second) rules.push_back(std::move(k.rule));
  s.stages = {{"candidates", static_cast<int64_t>(keys.size())},
              {"after_input_renaming", distinct},
              {"after_common_subgraphs", static_cast<int64_t>(rules.size())}};
  to_database(rules, opset, o, s).write(o.out_path);
}

}  // namespace
}  // namespace superopt::enumeration

namespace superopt {

EnumerateSummary enumerate_rules(const EnumerateOptions& o) {
  using namespace enumeration;
  Clock::time_point start = Clock::now();
  const MpiWorld world;  // MPI is already running: the command started it
  const int rank = world.rank(), ranks = world.size();
  Opset opset;
  std::unique_ptr<Generator> made;
  std::unique_ptr<CheckpointLog> log;
  world.on_all_ranks([&] {
    opset = read_opset_file(o.opset_path);
    check_output(o);
    made = std::make_unique<Generator>(opset, o.max_ops, o.seed);
    if (!o.checkpoint_dir.empty())
      log = std::make_unique<CheckpointLog>(o.checkpoint_dir, rank, ranks, run_key(opset, o),
                                            run_description(opset, o));
  });
  Generator& generator = *made;
  int depth = std::min(2, o.max_ops);
  std::vector<GraphCode> units = generator.prefixes(depth);
  units.insert(units.begin(), GraphCode{});  // graphs smaller than the units
  std::vector<int64_t> todo = units_to_do(units.size(), log.get(), world);

  EnumerateSummary s;
  OwnedRules owned;
  uint64_t replayed_graphs = 0, replayed_records = 0;  // made by an earlier attempt
  {
    ProgressLine progress(static_cast<int64_t>(todo.size()), start);
    ShardExchange exchange(todo, progress);
    if (log)  // records of units finished before a restart go to their owners again
      log->replay([&](std::string_view entry) {
        uint64_t graphs = 0;
        if (entry.size() >= 8) std::memcpy(&graphs, entry.data(), 8);
        replayed_graphs += graphs;
        for_each_record(entry.substr(std::min<size_t>(8, entry.size())), [&](const GraphRecord& r) {
          exchange.send(r.fingerprint, r.code);
          ++replayed_records;
        });
      });
    generate(generator, units, depth, exchange, log.get(), rank == 0 ? exit_after_units() : -1);
    s.record_bytes = world.sum_to_root(exchange.records().size());
    owned = pair_owned_classes(exchange.records(), opset, o.seed);
  }  // the records go here
  OwnedRules all;
  all.keys = world.gather_to_root(owned.keys);
  all.survivors = world.gather_to_root(owned.survivors);

  s.ranks = ranks;
  s.graphs = world.sum_to_root(generator.counts().graphs + replayed_graphs);
  s.resumed_graphs = world.sum_to_root(replayed_graphs);
  s.records = world.sum_to_root(generator.counts().aligned + replayed_records);
  s.renamings = world.sum_to_root(generator.counts().renamings);
  s.classes = world.sum_to_root(owned.classes);
  s.failed_second_test = static_cast<int64_t>(world.sum_to_root(owned.counts.split_by_second_eval));
  s.failed_float_test = static_cast<int64_t>(world.sum_to_root(owned.counts.failed_float_test));
  s.peak_rss_bytes = world.max_to_root(peak_rss_bytes());  // the last collective: rank 0 may fail after it
  if (rank == 0) {
    write_rules(all, opset, o, s);
    s.peak_rss_bytes = std::max(s.peak_rss_bytes, peak_rss_bytes());
  }
  s.seconds = seconds_since(start);
  return s;
}

}  // namespace superopt
